"""Episode records as a Hugging Face dataset: parquet shards under ``data/`` and a dataset card
(``README.md``) naming the env, its version, the seeds and a summary of the rewards, which
``datasets.load_dataset(DIR)`` (or the Hub repo) opens; :func:`push_dataset` publishes one.

The columns are fixed, whatever the env, so teacher rollouts and human demonstrations of any
env mix: ``episode_id``, ``messages`` (``role``/``content``), ``reward``, ``done``, the
record's structured fields as JSON text (``tool_trace``, ``metrics``, ``verify_metrics``,
``artifacts``, ``task``, ``extra``: observations differ from env to env) and flat copies of what
a filter wants (``env``, ``seed``, ``source``, ``marked``, ``note``).
"""

from __future__ import annotations

import io
import json
import math
import statistics
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openenv.datasets.records import EpisodeRecord

ROWS_PER_SHARD = 1000
README_FILENAME = "README.md"
JSON_COLUMNS = ("tool_trace", "metrics", "verify_metrics", "artifacts", "task", "extra")


def arrow_schema() -> Any:
    """The dataset's columns (pyarrow is imported on use: the ``datasets`` extra)."""
    import pyarrow as pa

    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    return pa.schema(
        [
            ("episode_id", pa.string()),
            ("messages", pa.list_(message)),
            ("reward", pa.float64()),
            ("done", pa.bool_()),
            *[(name, pa.string()) for name in JSON_COLUMNS],
            ("env", pa.string()),
            ("seed", pa.int64()),
            ("source", pa.string()),
            ("marked", pa.bool_()),
            ("note", pa.string()),
        ]
    )


def record_row(record: EpisodeRecord) -> dict[str, Any]:
    """One record as a row of :func:`arrow_schema`."""
    data = record.model_dump(mode="json")
    row: dict[str, Any] = {
        "episode_id": record.episode_id,
        "messages": [
            {"role": str(m.get("role", "")), "content": _text(m.get("content"))}
            for m in record.messages
        ],
        "reward": float(record.reward),
        "done": bool(record.done),
    }
    row.update({name: json.dumps(data[name], ensure_ascii=False) for name in JSON_COLUMNS})
    extra = record.extra
    seed = extra.get("seed")
    row.update(
        env=str(extra.get("env", "")),
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        source=str(extra.get("source", "")),
        marked=bool(extra.get("marked", False)),
        note=str(extra.get("note", "")),
    )
    return row


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def write_dataset(
    records: Sequence[EpisodeRecord],
    out_dir: Path | str,
    info: dict[str, Any] | None = None,
    rows_per_shard: int = ROWS_PER_SHARD,
) -> Path:
    """Write ``records`` as ``out_dir/data/train-0000i-of-0000n.parquet`` and the card
    ``out_dir/README.md`` (``info``: the run's metadata, shown in the card); return out_dir."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(out_dir)
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    for old in data.glob("train-*.parquet"):
        old.unlink()
    shards = max(1, math.ceil(len(records) / rows_per_shard))
    schema = arrow_schema()
    for i in range(shards):
        rows = [record_row(r) for r in records[i * rows_per_shard : (i + 1) * rows_per_shard]]
        table = pa.Table.from_pylist(rows, schema=schema)
        pq.write_table(table, data / f"train-{i:05d}-of-{shards:05d}.parquet")
    (out / README_FILENAME).write_text(dataset_card(records, info or {}), encoding="utf-8")
    return out


def reward_summary(records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """Episodes, the mean return, and the mean, standard deviation, min and max of the final
    reward (``reward``), the share of episodes whose reward is above 0, how many finished."""
    rewards = [r.reward for r in records]
    if not rewards:
        return {"episodes": 0}
    returns = [float(r.metrics.get("return", r.reward)) for r in records]
    return {
        "episodes": len(rewards),
        "mean_return": statistics.fmean(returns),
        "mean": statistics.fmean(rewards),
        "std": statistics.pstdev(rewards),
        "min": min(rewards),
        "max": max(rewards),
        "success_rate": sum(r > 0 for r in rewards) / len(rewards),
        "finished": sum(r.done for r in records),
    }


def _seeds_text(records: Sequence[EpisodeRecord]) -> str:
    seeds = sorted({s for r in records if isinstance(s := r.extra.get("seed"), int)})
    if not seeds:
        return "none recorded (the server drew them)"
    if len(seeds) > 2 and seeds[-1] - seeds[0] + 1 == len(seeds):  # sorted, distinct: a run
        return f"{seeds[0]}–{seeds[-1]} ({len(seeds)} seeds)"
    shown = ", ".join(map(str, seeds[:50]))
    return shown + (f", … ({len(seeds)} seeds)" if len(seeds) > 50 else "")


def dataset_card(records: Sequence[EpisodeRecord], info: dict[str, Any]) -> str:
    """The dataset card: YAML front matter (the parquet files, tags) and what the data is."""
    envs = sorted({str(r.extra.get("env", "")) for r in records} - {""}) or [
        str(info.get("env", "unknown"))
    ]
    sources = sorted({str(r.extra.get("source", "")) for r in records} - {""})
    summary = reward_summary(records)
    lines = [
        "---",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: train",
        '    path: "data/train-*.parquet"',
        "tags:",
        "- openenv",
        "- rl",
        "- trajectories",
        "---",
        "",
        f"# OpenEnv episodes: {', '.join(envs)}",
        "",
        f"- **Environment:** {', '.join(f'`{e}`' for e in envs)}",
        f"- **Environment version:** {info.get('env_version') or 'unknown'}",
        f"- **Sources:** {', '.join(sources) or 'unknown'}",
        f"- **Episodes:** {len(records)}",
        f"- **Seeds:** {_seeds_text(records)}",
        "",
        "## Rewards (`reward`: the final reward; return: the sum over an episode)",
        "",
        "| statistic | value |",
        "| --- | --- |",
        *[f"| {k} | {_fmt(v)} |" for k, v in summary.items()],
    ]
    if info:
        lines += ["", "## Run settings", "", "| key | value |", "| --- | --- |"]
        lines += [f"| `{k}` | `{_cell(v)}` |" for k, v in info.items()]
    lines += [
        "",
        "## Columns",
        "",
        "- `episode_id`, `reward` (the env's last reward), `done` (it ended, not cut by a limit)",
        "- `messages`: the episode as a chat (system, then each observation and each action)",
        "- `tool_trace`, `metrics`, `verify_metrics`, `artifacts`, `task`, `extra`: JSON text",
        "- `env`, `seed`, `source` (`collect` or `demo`), `marked` and `note` (a visitor's flag)",
        "",
        "## Load",
        "",
        "```python",
        "from datasets import load_dataset",
        'episodes = load_dataset("<this repo or directory>", split="train")',
        "```",
        "",
    ]
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _cell(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")[:200]


def dataset_zip(records: Sequence[EpisodeRecord], info: dict[str, Any], work: Path) -> bytes:
    """The dataset of ``records`` (written under ``work``) as the bytes of one zip file."""
    root = write_dataset(records, work, info)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(root).as_posix())
    return buffer.getvalue()


def push_dataset(
    folder: Path | str,
    repo_id: str,
    *,
    private: bool = False,
    token: str | None = None,
    commit_message: str | None = None,
) -> str:
    """Create the dataset repo ``repo_id`` (if new) and upload ``folder`` to it with
    huggingface_hub; return the dataset's URL. The token: ``token``, else ``$HF_TOKEN`` or the
    one ``hf auth login`` saved."""
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id=repo_id, repo_type="dataset", private=private, exist_ok=True)
    episodes = sum(1 for _ in Path(folder).glob("data/*.parquet"))
    api.upload_folder(
        folder_path=str(folder),
        repo_id=repo_id,
        repo_type="dataset",
        commit_message=commit_message or f"Add OpenEnv episodes ({episodes} shard(s))",
    )
    return f"{api.endpoint.rstrip('/')}/datasets/{repo_id}"
