pip install openenv
