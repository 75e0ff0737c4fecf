#!/bin/bash
# Verifier: reward 1 when calc.add sums and calc.mul still multiplies.
logs="${LOGS_DIR:-/logs}/verifier"
mkdir -p "$logs"
if python3 -c 'import calc; assert calc.add(2, 3) == 5 and calc.add(-1, 1) == 0; assert calc.mul(2, 3) == 6'; then
  echo 1 > "$logs/reward.txt"
else
  echo 0 > "$logs/reward.txt"
fi
