import json
from pathlib import Path

SUMMARY = Path("/app/summary.json")
EXPECTED = {"north": 369.75, "south": 455.48, "east": 52.0, "west": 379.3}


def load():
    return json.loads(SUMMARY.read_text())


def test_summary_exists_and_is_json():
    assert SUMMARY.exists(), f"{SUMMARY} does not exist"
    assert isinstance(load(), dict)


def test_every_region_is_there():
    assert sorted(load()) == sorted(EXPECTED)


def test_totals_are_right():
    got = load()
    for region, total in EXPECTED.items():
        assert abs(float(got[region]) - total) < 0.005, (region, got[region], total)
