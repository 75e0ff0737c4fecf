# From project root
docker build -t coding-env:latest -f envs/coding_env/server/Dockerfile .
