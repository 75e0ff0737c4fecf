# From project root
docker build -t echo-env:latest -f envs/echo_env/server/Dockerfile .
