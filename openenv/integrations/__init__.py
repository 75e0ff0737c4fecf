"""Adapters to other ecosystems: Gymnasium, TRL, Inspect AI (each an optional extra)."""
