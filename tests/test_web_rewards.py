"""The reward debugger without a browser: components, charts, the episode file, the panel."""

from __future__ import annotations

import re

import pytest
from reward_apps import CoinAction, CoinEnvironment

from openenv.core.serialization import observation_to_wire
from openenv.web.drawing import Picture
from openenv.web.episode.export import episode_jsonl
from openenv.web.episode.files import EpisodeFileError, parse_episode_jsonl
from openenv.web.rewards import charts
from openenv.web.rewards.charts import compare_chart_svg, first_divergence, stacked_chart_svg
from openenv.web.rewards.components import (
    PALETTE,
    component_names,
    components_table_html,
    step_components,
)
from openenv.web.rewards.review import Pinned, Review, review_html, rewards_of


def record(guesses: list[str], seed: int = 3) -> list[dict]:
    """Steps as the playground records them (action, observation, reward, done)."""
    env = CoinEnvironment()
    env.reset(seed=seed)
    steps = []
    for guess in guesses:
        payload = observation_to_wire(env.step(CoinAction(guess=guess)))
        steps.append({"action": {"guess": guess, "metadata": {}}, **payload})
        del steps[-1]["metadata"]
    return steps


def step(components: dict, weights: dict, reward: float, done: bool = False) -> dict:
    meta = {"reward_components": components, "reward_weights": weights}
    return {"action": {"a": 1}, "observation": {"metadata": meta}, "reward": reward, "done": done}


# -- components -------------------------------------------------------------------------


def test_components_are_read_from_the_observation_metadata():
    first = record(["heads"])[0]
    parts = {c.name: (c.score, c.weight, c.contribution) for c in step_components(first)}
    assert parts["step_cost"] == (1.0, -0.05, -0.05)
    assert sum(p[2] for p in parts.values()) == pytest.approx(first["reward"])


def test_component_table_shows_each_part_and_the_total():
    table = components_table_html(
        step({"hit": 1.0, "cost": 1.0}, {"hit": 2.0, "cost": -0.5}, 1.5), 4
    )
    assert "Step 5: reward +1.5" in table
    assert re.search(r'data-component="hit".*?<td>\+1</td><td>\+2</td><td>\+2</td>', table)
    assert re.search(r'data-component="cost".*?<td>\+1</td><td>-0.5</td><td>-0.5</td>', table)
    assert '<td class="oe-total">+1.5</td>' in table


def test_a_step_without_components_says_so():
    plain = {"action": {}, "observation": {"metadata": {}}, "reward": 1.0, "done": False}
    assert step_components(plain) == []
    assert "no components" in components_table_html(plain, 0)


def test_names_keep_their_first_appearance_order_over_an_episode():
    steps = [step({"b": 1}, {}, 1), step({"a": 1, "b": 0}, {}, 1)]
    assert component_names(steps) == ["b", "a"]


def test_names_are_escaped():
    table = components_table_html(step({"<b>x</b>": 1.0}, {}, 1.0), 0)
    assert "<b>x</b>" not in table and "&lt;b&gt;x&lt;/b&gt;" in table


# -- stacked chart ----------------------------------------------------------------------


def bars(svg: str) -> list[dict[str, tuple[float, float]]]:
    """Per step, {component: (top y, bottom y)} of the drawn rectangles."""
    out = []
    for group in re.findall(r'<g class="oe-bar[^"]*" data-step="\d+">(.*?)</g>', svg):
        rects = re.findall(
            r'y="([\d.]+)" width="[\d.]+" height="([\d.]+)"[^>]*data-component="([^"]+)"', group
        )
        out.append({name: (float(y), float(y) + float(h)) for y, h, name in rects})
    return out


def test_positive_parts_stack_up_and_negative_parts_go_down():
    svg = stacked_chart_svg([step({"a": 1, "b": 1, "c": 1}, {"a": 2, "b": 1, "c": -1}, 2)])
    (drawn,) = bars(svg)
    zero = float(re.search(r'<line x1="\d+" x2="\d+" y1="([\d.]+)"', svg).group(1))
    assert drawn["a"][1] == pytest.approx(zero, abs=0.05)  # first positive part sits on zero
    assert drawn["b"][1] == pytest.approx(drawn["a"][0], abs=0.05)  # the next one on top of it
    assert drawn["c"][0] == pytest.approx(zero, abs=0.05)  # negative parts hang below zero
    height = lambda name: drawn[name][1] - drawn[name][0]  # noqa: E731
    assert height("a") == pytest.approx(2 * height("b"), rel=0.02)
    assert height("c") == pytest.approx(height("b"), rel=0.02)
    assert re.findall(r'class="oe-axis"[^>]*>([^<]+)<', svg) == ["+3", "0", "-1"]


def test_stacked_chart_has_a_legend_a_total_line_and_a_target_per_step():
    steps = record(["heads", "tails", "heads"])
    svg = stacked_chart_svg(steps, selected=1)
    assert re.findall(r'class="oe-bar" data-step="(\d)"', svg) == ["0", "1", "2"]
    assert svg.count('class="oe-hit oe-picked"') == 1
    assert ">correct</text>" in svg and ">step_cost</text>" in svg and ">reward</text>" in svg
    points = re.search(r'class="oe-total-line"[^>]*points="([^"]+)"', svg).group(1).split()
    assert len(points) == 3
    assert f'fill="{PALETTE[0]}"' in svg and f'fill="{PALETTE[1]}"' in svg


def test_a_long_legend_wraps_inside_the_chart():
    names = ["time", "extinguished", "spread", "land_saved", "contained", "illegal_move"]
    svg = stacked_chart_svg([step({n: 1.0 for n in names}, {n: 1.0 for n in names}, 6.0)])
    width, height = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    texts = re.findall(r'<text x="([\d.]+)" y="([\d.]+)" font-size="10"[^>]*>([^<]+)</text>', svg)
    assert [t[2] for t in texts] == [*names, "reward"]
    assert all(float(x) + 6 * len(label) <= width for x, _, label in texts)
    assert all(float(y) <= height for _, y, _ in texts)
    assert len({y for _, y, _ in texts}) == 2  # two rows


def test_rewards_without_components_still_show():
    plain = {"action": {}, "observation": {}, "reward": -1.0, "done": True}
    assert "reward without components" in stacked_chart_svg([plain])


def test_every_step_is_a_bar_up_to_the_bound():
    svg = stacked_chart_svg([step({"a": 1}, {"a": 1}, 1)] * 600)
    assert svg.count('class="oe-bar"') == 600
    assert "downsampled" not in svg


def test_long_episodes_are_drawn_as_min_max_ranges_that_say_so_never_means():
    # 2,000 steps of 0 with a -1 every 4th: the mean of a bucket of 4 would be -0.25.
    steps = [step({"a": -1 if i % 4 == 0 else 0}, {"a": 1}, -1.0 if i % 4 == 0 else 0.0)
             for i in range(2000)]  # fmt: skip
    svg = stacked_chart_svg(steps)
    assert svg.count('class="oe-bar"') == 500  # buckets of 4 steps
    assert "downsampled: min–max of each 4 steps" in svg
    assert 'data-bucket="4"' in svg
    assert "reward from -1 to +0" in svg  # the bucket's range, in its tooltip
    # The lowest total line reaches -1, which is the bottom of the plot; nothing lies between.
    lines = re.findall(r'class="oe-total-line"[^>]*points="([^"]+)"', svg)
    assert len(lines) == 2
    lows = {float(p.split(",")[1]) for p in lines[1].split()}
    bottom = charts.PAD + charts.HEIGHT - charts.LEGEND - 2 * charts.PAD  # where -1 is drawn
    assert lows == {bottom}  # every bucket holds a -1, and its line is drawn at -1


def test_empty_charts_say_so():
    assert "no steps yet" in stacked_chart_svg([])
    assert "no steps yet" in compare_chart_svg([("a", []), ("b", [])])


# -- comparison -------------------------------------------------------------------------


def test_compare_draws_one_return_curve_per_run_with_a_legend():
    svg = compare_chart_svg([("pinned", [1, 1, 1]), ("this run", [1, -1])])
    lines = re.findall(r'data-run="(\d)" data-label="([^"]+)"[^>]*points="([^"]+)"', svg)
    assert [(n, label) for n, label, _ in lines] == [("0", "pinned"), ("1", "this run")]
    assert [len(p.split()) for _, _, p in lines] == [4, 3]  # origin + one point per step
    ys = [float(p.split(",")[1]) for p in lines[0][2].split()]
    assert ys == sorted(ys, reverse=True)  # the return of +1 per step climbs
    assert ">pinned</text>" in svg and ">this run</text>" in svg


def test_first_divergence():
    assert first_divergence([1, 0, 1], [1, 0, 1]) is None
    assert first_divergence([1, 0, 1], [1, 1, 1]) == 1
    assert first_divergence([1, 0], [1, 0, 1]) == 2


# -- the episode file -------------------------------------------------------------------


def test_loading_an_export_gives_back_the_recorded_steps():
    steps = record(["heads", "tails", "tails", "heads"])
    assert parse_episode_jsonl(episode_jsonl(steps)) == steps
    assert parse_episode_jsonl(episode_jsonl(steps).encode()) == steps


def test_a_loaded_episode_draws_the_same_chart_as_the_live_one():
    steps = record(["heads"] * 10)
    loaded = parse_episode_jsonl(episode_jsonl(steps))
    assert stacked_chart_svg(loaded) == stacked_chart_svg(steps)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "no steps"),
        ("{not json}\n", "line 1: not JSON"),
        ("[1, 2]\n", "line 1: expected a JSON object"),
        ('{"action": {}, "observation": {}, "reward": 1}\n', "line 1: missing done"),
        ('{"action": 3, "observation": {}, "reward": 1, "done": false}\n', "action must be"),
        ('{"action": {}, "observation": {}, "reward": "1", "done": false}\n', "reward must be"),
        ('{"action": {}, "observation": {}, "reward": NaN, "done": false}\n', "reward must be"),
        ('{"action": {}, "observation": {}, "reward": 1, "done": "no"}\n', "done must be"),
        (
            '{"action": {}, "observation": {}, "reward": 1, "done": true}\n'
            '{"action": {}, "observation": {}, "reward": 1, "done": false}\n',
            "line 2: a step follows the step that ended the episode",
        ),
    ],
)
def test_bad_files_are_refused_with_the_line_and_the_reason(text, error):
    with pytest.raises(EpisodeFileError, match=error):
        parse_episode_jsonl(text)


def test_binary_files_are_refused():
    with pytest.raises(EpisodeFileError, match="not UTF-8"):
        parse_episode_jsonl(b"\x89PNG\r\n\x1a\n\xff\xfe")


# -- the whole panel --------------------------------------------------------------------


def test_panel_follows_the_latest_step_until_one_is_picked():
    steps = record(["heads", "tails", "heads"])
    review = Review()
    panel = review_html("k", review, steps)
    assert 'data-selected="2"' in panel and "Step 3: reward" in panel
    review.selected = 0
    panel = review_html("k", review, steps)
    assert 'data-selected="0"' in panel and "Step 1: reward" in panel
    assert "&quot;guess&quot;: &quot;heads&quot;" in panel  # the action of step 1
    assert f"<dt>flip</dt><dd>{steps[0]['observation']['flip']}</dd>" in panel
    assert "⏭ Latest step" in panel


def test_panel_shows_the_recorded_frame_of_the_picked_step():
    steps = record(["heads", "tails"])
    frames = [Picture(png=png, shape=(1, 1)) for png in (b"reset", b"after-1", b"after-2")]
    panel = review_html("k", Review(selected=0), steps, frames)
    from openenv.core.views import png_data_url

    assert png_data_url(b"after-1") in panel
    assert png_data_url(b"after-2") not in panel


def test_panel_shows_a_loaded_file_and_the_comparison_with_a_pinned_run():
    live = record(["heads"] * 4)
    other = record(["tails"] * 4)
    review = Review(
        loaded=other, loaded_name="run.jsonl", pinned=Pinned("pinned", rewards_of(live))
    )
    panel = review_html("k", review, live)
    assert 'data-source="file run.jsonl"' in panel
    assert "Back to the live episode" in panel and "Unpin" in panel
    assert 'class="oe-compare"' in panel
    split = first_divergence(rewards_of(live), rewards_of(other))
    expected = "identical rewards so far" if split is None else f"differ from step {split + 1}"
    assert expected in panel


def test_panel_before_any_step():
    panel = review_html("k", Review(), [])
    assert "No steps yet" in panel and 'data-steps="0"' in panel


# -- the panel's commands (what the page's buttons do) -----------------------------------


def live_tab(steps: list[dict], seed: int | None = 3):
    from openenv.web.stage.tabs import Episode, WebTab

    tab = WebTab(key="k", session_hash=None, authorized=True)
    tab.episode = Episode(steps=steps, reset_kwargs={} if seed is None else {"seed": seed})
    return tab


def test_panel_commands_pick_load_pin_and_go_back():
    from openenv.web.rewards.panel import RewardPanel

    panel, tab = RewardPanel(controller=None), live_tab(record(["heads", "tails"]))
    panel.html(tab)
    panel.command(tab, "pick", {"step": 7})  # out of range: ignored, still following
    panel.command(tab, "pick", {"step": True})
    assert 'data-selected="1"' in panel.html(tab)
    panel.command(tab, "pick", {"step": 0})
    assert 'data-selected="0"' in panel.html(tab)
    panel.command(tab, "pin", {})
    assert panel.review(tab).pinned.label == "pinned run (seed 3)"
    panel.command(tab, "load", {"text": "oops", "name": "x.jsonl"})
    assert "Could not inspect x.jsonl: line 1: not JSON" in panel.html(tab)
    text = episode_jsonl(record(["tails"] * 3))
    panel.command(tab, "load", {"text": text, "name": "x.jsonl"})
    shown = panel.html(tab)
    assert 'data-source="file x.jsonl"' in shown and 'data-steps="3"' in shown
    assert "Could not inspect" not in shown
    panel.command(tab, "live", {})
    assert 'data-source="live"' in panel.html(tab)
    panel.command(tab, "nonsense", {})
    assert "unknown reward-panel command" in panel.html(tab)


def test_panel_follows_a_new_episode():
    from openenv.web.rewards.panel import RewardPanel
    from openenv.web.stage.tabs import Episode

    panel, tab = RewardPanel(controller=None), live_tab(record(["heads"] * 4))
    panel.html(tab)
    panel.command(tab, "pick", {"step": 1})
    assert 'data-selected="1"' in panel.html(tab)
    tab.episode = Episode(steps=record(["tails"] * 3))
    assert 'data-selected="2"' in panel.html(tab)
