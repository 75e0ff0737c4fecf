# From the server directory
python3 envs/echo_env/server/test_echo_env.py
