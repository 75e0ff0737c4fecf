pip install git+https://huggingface.co/spaces/openenv/echo_env
