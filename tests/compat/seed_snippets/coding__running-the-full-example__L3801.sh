python3 envs/coding_env/client/example_usage.py
