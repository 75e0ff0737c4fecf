"""The SVG an environment draws is rewritten from an allow-list before the page inlines it:
known bypasses of pattern filters come out harmless, ordinary drawings come out whole."""

from __future__ import annotations

import pytest

from openenv.web.drawing.svg import sanitize_svg

ATTACKS = [
    '<svg onload="alert(1)"><rect/></svg>',
    "<svg/onload=alert(1)><rect/></svg>",
    '<svg><rect onclick="alert(1)" onmouseover=alert(1)/></svg>',
    "<svg><script>alert(1)</script><rect/></svg>",
    "<svg><script xlink:href=data:,alert(1) /></svg>",
    '<svg><a href="javascript:alert(1)"><text>x</text></a></svg>',
    '<svg><a xlink:href="jav&#x61;script:alert(1)"><rect/></a></svg>',
    '<svg><use href="javascript:alert(1)"/></svg>',
    '<svg><use href="https://evil.example/x.svg#a"/></svg>',
    '<svg><image href="https://evil.example/track.png"/></svg>',
    '<svg><image href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="/></svg>',
    '<svg><foreignObject><iframe src="javascript:alert(1)"></iframe></foreignObject></svg>',
    '<svg><animate attributeName="href" to="javascript:alert(1)"/><rect/></svg>',
    '<svg><set attributeName="onmouseover" to="alert(1)"/></svg>',
    "<svg><style>@import url(https://evil.example/x.css);</style><rect/></svg>",
    '<svg><rect style="fill:url(https://evil.example/p.svg#x)"/></svg>',
    "<svg><rect style=\"background:url('javascript:alert(1)')\"/></svg>",
    '<svg><rect fill="url(https://evil.example/p.svg#x)"/></svg>',
    '<svg><rect style="width:expression(alert(1))"/></svg>',
    "<svg><!--<script>alert(1)</script>--><rect/></svg>",
    "<svg><![CDATA[<script>alert(1)</script>]]><rect/></svg>",
    "<svg><text>&lt;script&gt;alert(1)&lt;/script&gt;</text></svg>",
    '<svg><iframe srcdoc="<script>alert(1)</script>"></iframe></svg>',
    '<svg xmlns="http://evil.example"><rect/></svg>',
]

DANGERS = ("<script", "javascript", "onload", "onclick", "onmouseover", "evil.example",
           "<iframe", "<foreignobject", "<animate", "<set", "<style", "expression(", "<a ",
           "data:text")  # fmt: skip


@pytest.mark.parametrize("attack", ATTACKS)
def test_known_bypasses_come_out_harmless(attack: str) -> None:
    clean = sanitize_svg(attack).lower()
    assert not [d for d in DANGERS if d in clean], clean


def test_an_ordinary_drawing_keeps_its_shapes_text_gradients_and_references() -> None:
    drawing = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="100">'
        '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient>'
        '<clipPath id="c"><rect width="5" height="5"/></clipPath></defs>'
        '<rect x="1" y="1" width="8" height="8" fill="url(#g)" clip-path="url(#c)" '
        'style="stroke: black; stroke-width: 0.5"/>'
        '<use href="#c"/><text x="5" y="5" text-anchor="middle">a &amp; b</text>'
        '<image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/></svg>'
    )
    clean = sanitize_svg(drawing)
    for kept in ('viewBox="0 0 10 10"', "<linearGradient", 'stop-color="red"', 'fill="url(#g)"',
                 'clip-path="url(#c)"', "stroke: black", '<use href="#c"/>', "a &amp; b",
                 'href="data:image/png;base64,iVBORw0KGgo="'):  # fmt: skip
        assert kept in clean, (kept, clean)
    assert clean.startswith("<svg") and clean.endswith("</svg>")


def test_the_result_is_well_formed_even_from_broken_markup() -> None:
    from xml.etree import ElementTree

    for broken in ("<svg><g><rect>", "<svg><text>unclosed <tspan>x</svg>", "</g><svg></svg>"):
        ElementTree.fromstring(sanitize_svg(broken) or "<svg/>")  # raises if not well formed


def test_the_chess_board_survives_the_sanitizer() -> None:
    chess = pytest.importorskip("chess.svg")
    import chess as chess_lib

    board = chess.board(chess_lib.Board(), size=200)
    clean = sanitize_svg(board)
    assert clean.count("<use") == board.count("<use") and "<rect" in clean
