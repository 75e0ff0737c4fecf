"""The playground page's README tab: the env package's README (else its environment module's
docstring) as HTML."""

from __future__ import annotations

import inspect
import sys

import gradio as gr

from openenv.server.context import ServerContext


def readme_component(markdown: str) -> gr.components.Component:
    """The README as HTML rendered here (one component type fewer for the page to load), or
    as gr.Markdown when markdown-it-py (a dependency of Gradio's CLI) is unavailable."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        return gr.Markdown(markdown, elem_id="oe-readme")
    rendered = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return gr.HTML(f'<div class="oe-readme prose">{rendered}</div>', elem_id="oe-readme")


def readme_markdown(ctx: ServerContext) -> str:
    """The README tab's markdown: the package's README, else the title and the environment
    module's docstring (else the manifest's description)."""
    if ctx.package.readme:
        return ctx.package.readme
    module = sys.modules.get(ctx.env_cls.__module__) if ctx.env_cls is not None else None
    doc = inspect.getdoc(module) if module is not None else None
    return f"# {ctx.package.title}\n\n{doc or ctx.manifest.description or 'No README yet.'}"
