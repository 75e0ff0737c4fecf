#!/bin/bash
cd /app/logs
for f in *.log; do
  n=$(awk '$2 == "ERROR"' "$f" | wc -l)
  [ "$n" -gt 0 ] && echo "${f%.log} $n"
done | sort -k2,2nr -k1,1 > /app/errors.txt
