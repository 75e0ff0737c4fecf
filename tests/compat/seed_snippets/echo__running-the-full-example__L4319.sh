python3 examples/local_echo_env.py
