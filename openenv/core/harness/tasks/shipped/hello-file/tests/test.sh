#!/bin/bash
# Verifier: reward 1 when hello.txt in the working directory holds exactly "Hello, Harbor!".
# Harbor's containers read the reward from /logs/verifier; the process sandbox sets LOGS_DIR.
logs="${LOGS_DIR:-/logs}/verifier"
mkdir -p "$logs"
if [ "$(cat hello.txt 2>/dev/null)" = "Hello, Harbor!" ]; then
  echo 1 > "$logs/reward.txt"
  echo "hello.txt is right"
else
  echo 0 > "$logs/reward.txt"
  echo "hello.txt is missing or wrong"
fi
