docker run -p 8000:8000 -e ATARI_FULL_ACTION_SPACE=false atari-env:latest
