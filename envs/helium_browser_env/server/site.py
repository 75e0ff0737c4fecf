"""The env's own web site, served on loopback by a small in-process HTTP server.

One server per process (:data:`SITE`, started on first use on ``127.0.0.1`` at a free port).
It is also the browsers' only proxy: every Chromium this env starts sends every request,
loopback included, through it (``--proxy-server`` with ``<-loopback>``), and it answers only
for its own ``host:port``; any other host, port or ``CONNECT`` (HTTPS) gets a 403 page saying
the request was blocked. So a page can reach nothing but this site.

Pages are stateless: the task of a browser (which user signs in, which item is wanted) is in
its ``task`` cookie, set by the env at reset through Selenium; the shop's cart is in a ``cart``
cookie the site sets. Nothing a page receives is echoed unescaped.
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import sys
import threading
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

MAX_BODY = 4096  # a form post, at most
MAX_COOKIE = 2048

# What the pages draw: plain, readable at the frame's size, no caret (a caret blinks, and the
# same actions must give the same frames).
CSS = """
* { caret-color: transparent; box-sizing: border-box; }
body { font: 18px/1.45 system-ui, sans-serif; margin: 0; background: #f8fafc; color: #0f172a; }
header { background: #1e3a8a; color: white; padding: 12px 24px; font-weight: 600; }
main { padding: 16px 24px; max-width: 820px; }
label { display: block; margin: 10px 0 4px; font-weight: 600; }
input { font: inherit; padding: 6px 10px; width: 320px; border: 1px solid #64748b;
  border-radius: 6px; }
button { font: inherit; padding: 6px 16px; margin: 10px 8px 0 0; border-radius: 6px;
  border: 1px solid #1e40af; background: #dbeafe; color: #1e3a8a; cursor: pointer; }
.card { background: white; border: 1px solid #cbd5e1; border-radius: 8px; padding: 12px 16px;
  margin: 12px 0; min-height: 120px; }
.error { color: #b91c1c; font-weight: 600; }
.ok { color: #15803d; font-weight: 600; }
a { color: #1d4ed8; }
"""

CATALOGUE = {
    "desk-lamp": ("Desk lamp", "A small lamp with a brass arm."),
    "floor-lamp": ("Floor lamp", "A tall lamp for reading corners."),
    "violet-lamp": ("Violet lamp", "A lamp with a violet glass shade."),
    "oak-chair": ("Oak chair", "A solid oak dining chair."),
    "camp-chair": ("Camp chair", "A folding chair for the outdoors."),
    "office-chair": ("Office chair", "A chair on wheels with a high back."),
    "tea-mug": ("Tea mug", "A wide mug for tea."),
    "travel-mug": ("Travel mug", "A mug with a lid that seals."),
    "glass-table": ("Glass table", "A low table with a glass top."),
    "side-table": ("Side table", "A narrow table for a sofa's side."),
}
PRODUCTS = {  # the shop: id -> (name, price in cents)
    "mug": ("Mug", 900),
    "teapot": ("Teapot", 2400),
    "kettle": ("Kettle", 3900),
    "spoon": ("Spoon", 300),
    "plate": ("Plate", 1100),
    "bowl": ("Bowl", 1000),
}
QUARTERS = ("Q1", "Q2", "Q3", "Q4")
REPORT_DELAY_MS = 2500  # the report page's "Download report" appears this long after "Generate"


def encode_task(task: dict[str, Any]) -> str:
    """The ``task`` cookie's value (URL-safe base64 of compact JSON)."""
    raw = json.dumps(task, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_task(value: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        task = json.loads(raw)
    except ValueError:
        return {}
    return task if isinstance(task, dict) else {}


# Marks the document as being left as soon as a navigation starts (a form posted, a link
# followed), so the env waits for the next page before it reads the state.
LEAVING_JS = (
    "addEventListener('beforeunload', function () "
    "{ document.documentElement.dataset.leaving = '1'; });"
)


def page(title: str, body: str, data: dict[str, str] | None = None, script: str = "") -> str:
    attrs = "".join(f' data-{k}="{html.escape(v)}"' for k, v in (data or {}).items())
    tail = f"<script>{LEAVING_JS}{script}</script>"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{CSS}</style></head><body{attrs}><header>Helium test site · "
        f"{html.escape(title)}</header><main>{body}</main>{tail}</body></html>"
    )


def parse_cart(value: str) -> dict[str, int]:
    cart: dict[str, int] = {}
    for part in value.split("."):
        name, _, count = part.partition("-")
        if name in PRODUCTS and count.isdigit():
            cart[name] = min(int(count), 99)
    return cart


def format_cart(cart: dict[str, int]) -> str:
    return ".".join(f"{k}-{v}" for k, v in sorted(cart.items()) if v > 0)


# -- the pages ---------------------------------------------------------------------------------


def home() -> str:
    links = "".join(
        f"<li><a href='{path}'>{name}</a></li>"
        for path, name in (
            ("/login", "Sign in"),
            ("/search", "Catalogue search"),
            ("/shop", "Shop"),
            ("/report", "Reports"),
        )
    )
    return page("Home", f"<p>The pages of this site:</p><ul>{links}</ul>")


def login_form(error: str = "") -> str:
    note = f"<p class='error'>{html.escape(error)}</p>" if error else ""
    return page(
        "Sign in",
        f"{note}<form method='post' action='/login'>"
        "<label for='username'>Username</label><input id='username' name='username'>"
        "<label for='password'>Password</label>"
        "<input id='password' name='password' type='password'>"
        "<div><button type='submit'>Sign in</button></div></form>",
    )


def account(user: str) -> str:
    return page(
        "Account",
        f"<p class='ok'>Welcome, {html.escape(user)}!</p><p>You are signed in.</p>",
        data={"user": user},
    )


def search(query: str) -> str:
    form = (
        "<form method='get' action='/search'><label for='q'>Search</label>"
        f"<input id='q' name='q' value='{html.escape(query, quote=True)}'>"
        "<button type='submit'>Go</button></form>"
    )
    if not query.strip():
        return page("Catalogue search", form + "<p>Type a word and press Enter.</p>")
    words = query.lower().split()
    hits = [
        (slug, name)
        for slug, (name, blurb) in CATALOGUE.items()
        if all(w in (name + " " + blurb).lower() for w in words)
    ]
    items = "".join(f"<li><a href='/item/{slug}'>{html.escape(n)}</a></li>" for slug, n in hits)
    found = f"<p>{len(hits)} results for “{html.escape(query)}”</p><ul>{items}</ul>"
    return page("Catalogue search", form + found, data={"query": query})


def item(slug: str) -> str | None:
    if slug not in CATALOGUE:
        return None
    name, blurb = CATALOGUE[slug]
    body = f"<h2>{html.escape(name)}</h2><p>{html.escape(blurb)}</p><a href='/search'>Back</a>"
    return page(name, body, data={"item": slug})


def shop(cart: dict[str, int]) -> str:
    total = sum(PRODUCTS[k][1] * v for k, v in cart.items())
    summary = ", ".join(f"{v} × {PRODUCTS[k][0]}" for k, v in sorted(cart.items())) or "empty"
    cards = "".join(
        f"<div class='card'><b>{name}</b> · ${price / 100:.2f}"
        f"<form method='post' action='/cart'><input type='hidden' name='add' value='{pid}'>"
        f"<button type='submit'>Add {name}</button></form></div>"
        for pid, (name, price) in PRODUCTS.items()
    )
    head = (
        f"<p>Cart: {html.escape(summary)} (${total / 100:.2f})</p>"
        "<form method='post' action='/cart'><input type='hidden' name='clear' value='1'>"
        "<button type='submit'>Empty cart</button></form>"
    )
    tail = "<form method='post' action='/checkout'><button type='submit'>Check out</button></form>"
    return page("Shop", head + cards + tail, data={"cart": format_cart(cart)})


def order(cart: dict[str, int]) -> str:
    lines = "".join(f"<li>{v} × {PRODUCTS[k][0]}</li>" for k, v in sorted(cart.items()))
    body = f"<p class='ok'>Order placed.</p><ul>{lines or '<li>nothing</li>'}</ul>"
    return page("Order", body, data={"order": format_cart(cart)})


REPORT_JS = f"""
function generate(q) {{
  document.getElementById('status').textContent = 'Preparing the ' + q + ' report…';
  setTimeout(function () {{
    document.getElementById('status').textContent = 'Report ready: ' + q;
    var b = document.getElementById('download');
    b.dataset.quarter = q; b.hidden = false;
  }}, {REPORT_DELAY_MS});
}}
function download() {{
  var q = document.getElementById('download').dataset.quarter;
  document.body.dataset.downloaded = q;
  document.getElementById('status').textContent = 'Downloaded the ' + q + ' report.';
}}
"""


def report() -> str:
    buttons = "".join(
        f"<button type='button' onclick=\"generate('{q}')\">Generate {q} report</button>"
        for q in QUARTERS
    )
    body = (
        f"<p>Reports take a moment to prepare.</p><div>{buttons}</div>"
        "<p id='status'>No report yet.</p>"
        "<button id='download' type='button' hidden onclick='download()'>Download report</button>"
    )
    return page("Reports", body, script=REPORT_JS)


def blocked(target: str) -> str:
    return page(
        "Blocked",
        f"<p class='error'>Blocked: {html.escape(target[:200])}</p>"
        "<p>This browser reaches only the environment's own site.</p>",
    )


# -- the server ---------------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    server_version = "HeliumTestSite/1"
    protocol_version = "HTTP/1.0"

    def log_message(self, *_args: Any) -> None:  # quiet: tests and servers read their own logs
        pass

    def do_CONNECT(self) -> None:
        self._send(403, blocked(self.path))

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def _route(self, method: str) -> None:
        site: SiteServer = self.server.site  # type: ignore[attr-defined]
        target = urlsplit(self.path)
        proxied = bool(target.scheme or target.netloc)  # a proxied request: ours, or blocked
        if proxied and (target.scheme != "http" or target.netloc != site.netloc):
            self._send(403, blocked(self.path))
            return
        path, query = target.path or "/", parse_qs(target.query)
        form: dict[str, list[str]] = {}
        if method == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(413, page("Too large", "<p class='error'>Form too large.</p>"))
                return
            form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        cookies = SimpleCookie()
        try:
            cookies.load((self.headers.get("Cookie") or "")[:MAX_COOKIE])
        except Exception:  # a malformed cookie header: as if there were none
            cookies = SimpleCookie()
        task = decode_task(cookies["task"].value) if "task" in cookies else {}
        cart = parse_cart(cookies["cart"].value) if "cart" in cookies else {}
        self._answer(method, path, query, form, task, cart)

    def _answer(self, method, path, query, form, task, cart) -> None:
        first = lambda d, k: (d.get(k) or [""])[0][:200]  # noqa: E731
        if path == "/" and method == "GET":
            self._send(200, home())
        elif path == "/login" and method == "GET":
            self._send(200, login_form())
        elif path == "/login" and method == "POST":
            user, password = first(form, "username"), first(form, "password")
            if user and user == task.get("user") and password == task.get("password"):
                self._redirect("/account", {"user": quote(user)})
            else:
                self._send(200, login_form("Wrong username or password."))
        elif path == "/account" and method == "GET":
            user = unquote(self._cookie("user"))
            self._send(200, account(user) if user else login_form("Please sign in first."))
        elif path == "/search" and method == "GET":
            self._send(200, search(first(query, "q")))
        elif path.startswith("/item/") and method == "GET":
            body = item(path.removeprefix("/item/"))
            self._send(200 if body else 404, body or page("Not found", "<p>No such item.</p>"))
        elif path == "/shop" and method == "GET":
            self._send(200, shop(cart))
        elif path == "/cart" and method == "POST":
            add = first(form, "add")
            if first(form, "clear"):
                cart = {}
            elif add in PRODUCTS:
                cart[add] = min(cart.get(add, 0) + 1, 99)
            self._redirect("/shop", {"cart": format_cart(cart)})
        elif path == "/checkout" and method == "POST":
            self._redirect("/order", {"cart": "", "order": format_cart(cart)})
        elif path == "/order" and method == "GET":
            self._send(200, order(parse_cart(self._cookie("order"))))
        elif path == "/report" and method == "GET":
            self._send(200, report())
        else:
            self._send(404, page("Not found", "<p>No such page on this site.</p>"))

    def _cookie(self, name: str) -> str:
        cookies = SimpleCookie()
        try:
            cookies.load((self.headers.get("Cookie") or "")[:MAX_COOKIE])
        except Exception:
            return ""
        return cookies[name].value[:200] if name in cookies else ""

    def _redirect(self, location: str, cookies: dict[str, str]) -> None:
        self.send_response(303)
        self.send_header("Location", location)
        for name, value in cookies.items():
            self.send_header("Set-Cookie", f"{name}={value}; Path=/; SameSite=Lax")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: int, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        with contextlib.suppress(ConnectionError):  # the browser gave up on it (a CONNECT)
            self.wfile.write(data)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that hangs up mid-answer is not news; anything else is printed."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class SiteServer:
    """The site and proxy on ``127.0.0.1``, started on first use (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def start(self) -> str:
        """The site's origin, ``http://127.0.0.1:PORT``."""
        with self._lock:
            if self._httpd is None:
                httpd = QuietServer(("127.0.0.1", 0), Handler)
                httpd.site = self  # type: ignore[attr-defined]
                self._httpd = httpd
                threading.Thread(
                    target=httpd.serve_forever, name="helium-site", daemon=True
                ).start()
            return self.origin

    @property
    def netloc(self) -> str:
        assert self._httpd is not None
        return f"127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def origin(self) -> str:
        return f"http://{self.netloc}"


SITE = SiteServer()
