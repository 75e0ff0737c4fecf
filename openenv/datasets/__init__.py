"""Data in and out of environments: one episode schema for every source.

- :mod:`~openenv.datasets.records`: one episode as a record (the fields of ``openenv collect``'s
  ``results.jsonl``), built from the steps of any source;
- :mod:`~openenv.datasets.results`: ``results.jsonl`` and ``metadata.json`` on disk (resume);
- :mod:`~openenv.datasets.policies`: who picks the actions (random, scripted, a teacher model);
- :mod:`~openenv.datasets.collector`: episodes played against a running server;
- :mod:`~openenv.datasets.hf_dataset`: records as a Hugging Face dataset (parquet and a card),
  pushed with ``huggingface_hub``;
- :mod:`~openenv.datasets.demos`: the playground's human demonstrations, bounded in memory.
"""
