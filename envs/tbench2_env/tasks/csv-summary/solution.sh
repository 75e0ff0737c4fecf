#!/bin/bash
cd /app
python3 - <<'PY'
import csv, json
totals = {}
with open("sales.csv") as f:
    for row in csv.DictReader(f):
        totals[row["region"]] = totals.get(row["region"], 0) + int(row["units"]) * float(row["unit_price"])
json.dump({k: round(v, 2) for k, v in totals.items()}, open("summary.json", "w"), indent=2)
PY
