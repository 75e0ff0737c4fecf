"""The playground's Chat tab: type a message, the server tokenises it, the step sends the ids.

The wire action stays ``ChatAction(tokens)`` as the reference's: the text is turned into token
ids by the session's own tokenizer (``message_to_action``), then stepped like any action (it
shows in the episode log with its reward). Imported only when the page is built
(``app.py``), so serving the API alone never loads Gradio.
"""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

MAX_MESSAGE_CHARS = 4000


def chat_tab(api: Any) -> None:
    """Draw the role picker, the message box, Send, and the tokens the last message became."""
    with gr.Row():
        role = gr.Radio(
            ["user", "assistant", "system"], value="user", label="role", elem_id="oe-chat-role"
        )
    text = gr.Textbox(
        label="message",
        lines=2,
        max_length=MAX_MESSAGE_CHARS,
        placeholder="Type a message and press Send",
        elem_id="oe-chat-text",
    )
    send = gr.Button("Send", variant="primary", elem_id="oe-chat-send")
    status = gr.HTML(elem_id="oe-chat-status")

    async def on_send(who: str, content: str, request: gr.Request):
        message = {"role": who or "user", "content": (content or "")[:MAX_MESSAGE_CHARS]}
        action = await api.call(request, lambda env: env.message_to_action(message))
        data = await api.step(request, {"tokens": list(action.tokens)})
        return await api.stage_html(request), status_html(action.tokens, data), ""

    send.click(on_send, [role, text], [api.stage, status, text], show_progress="minimal")
    text.submit(on_send, [role, text], [api.stage, status, text], show_progress="minimal")


def status_html(tokens: list[int], data: dict[str, Any]) -> str:
    """The ids sent and the reward they got."""
    shown = ", ".join(map(str, tokens[:40])) + (", …" if len(tokens) > 40 else "")
    line = f"sent {len(tokens)} tokens [{shown}] · reward {data.get('reward')}"
    return f'<span class="oe-ok">✓ {html.escape(line)}</span>'
