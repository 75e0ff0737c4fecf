docker run -p 8000:8000 -e ATARI_OBS_TYPE=ram atari-env:latest
