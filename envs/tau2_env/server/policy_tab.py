"""The playground's Policy tab: each domain's policy, as the agent must follow it."""

from __future__ import annotations

from typing import Any

from tau2_env.server import domains


def policy_tab(api: Any) -> None:
    """One folded section per domain with its policy (Markdown, as the package ships it)."""
    import gradio as gr

    gr.Markdown(
        "The agent must follow its domain's policy; the scoring checks the database it leaves, "
        "so an action the policy forbids costs the reward."
    )
    for index, name in enumerate(domains.DOMAINS):
        try:
            text = domains.load(name).policy
        except domains.DomainUnavailable as exc:
            text = str(exc)
        with gr.Accordion(f"{name} policy", open=index == 0):
            gr.Markdown(text, elem_id=f"tau2-policy-{name}")
