"""One Chromium per server process, one Playwright connection and context per session.

Playwright's sync API is bound to the thread that started it, and BrowserGym's ``BrowserEnv``
is written against the sync API (and launches a browser of its own on every reset, plus a
second one for its chat window). So:

- :class:`BrowserServer`: the process's one Chromium, started lazily by Playwright's own
  ``launch-server`` (Debian's ``/usr/bin/chromium``, headless), listening on loopback at an
  unguessable path; restarted if it dies.
- :class:`SessionThread`: one thread per session. It owns that session's Playwright connection
  to the shared browser and runs every Playwright call of the session, so sessions never wait
  for each other: a session blocked on a slow page blocks only its own thread. The server's
  worker thread that runs ``step()`` just waits for the result.
- :func:`install_shims`: BrowserGym asks ``_get_global_playwright()`` for a Playwright and calls
  ``chromium.launch()``; on a session thread it gets :class:`SharedChromium`, whose
  ``launch()`` hands out a :class:`BrowserLease` on the shared browser (``close()`` closes only
  the lease's contexts). BrowserGym's chat window (a second browser) becomes :class:`QuietChat`,
  a list of messages. Outside a session thread BrowserGym is left as it was.

Every context gets :func:`guard` installed before any page opens: requests are fulfilled from
the MiniWoB pages shipped in the ``miniwob`` package, everything else is aborted.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import ctypes
import json
import os
import queue
import secrets
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from browsergym_env.server.pages import MiniwobPages

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=OverlayScrollbars,ExtendedOverlayScrollbars",  # as BrowserGym launches
]
START_TIMEOUT_S = 60.0


class BrowserServer:
    """The process's one Chromium behind Playwright's ``launch-server`` (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._endpoint = ""

    def endpoint(self) -> str:
        """The browser's WebSocket endpoint, starting (or restarting) the browser if needed."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._endpoint = self._start()
            return self._endpoint

    def _start(self) -> str:
        from playwright._impl._driver import compute_driver_executable

        node, cli = compute_driver_executable()
        config = {
            "executablePath": os.environ.get("BROWSERGYM_CHROMIUM", CHROMIUM),
            "headless": _flag(os.environ.get("BROWSERGYM_HEADLESS", "true")),
            "args": CHROMIUM_ARGS,
            "ignoreDefaultArgs": ["--hide-scrollbars"],  # screenshots show scrollbars
            "host": "127.0.0.1",
            "port": 0,
            "wsPath": "/" + secrets.token_urlsafe(24),  # knowing it is needed to connect
        }
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(config, f)
        cmd = [node, cli, "launch-server", "--browser", "chromium", "--config", f.name]
        try:
            self._proc = _spawn_from_own_thread(cmd)
            line = _read_line(self._proc, START_TIMEOUT_S)
        finally:
            os.unlink(f.name)
        if not line.startswith("ws://"):
            self.stop()
            raise RuntimeError(f"Chromium did not start (launch-server said {line!r})")
        return line

    def restart(self, endpoint: str) -> None:
        """Stop the browser at ``endpoint`` (unless another session restarted it already);
        the next ``endpoint()`` starts a new one."""
        with self._lock:
            if self._endpoint == endpoint:
                self.stop()

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def rss_bytes(self) -> int:
        """Resident memory of the browser and its children (for the README's figures)."""
        return _tree_rss(self._proc.pid) if self._proc is not None else 0


def _spawn_from_own_thread(cmd: list[str]) -> subprocess.Popen[str]:
    """Start ``cmd`` from a thread that lives as long as it does: the kernel's parent-death
    signal (:func:`_die_with_parent`) fires when the *thread* that forked exits, so the
    browser must not be forked by a session thread, which ends with its session."""
    started: queue.Queue[Any] = queue.Queue()

    def own() -> None:
        try:
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                text=True,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        except Exception as exc:  # re-raised in the starting thread
            started.put(exc)
            return
        started.put(proc)
        proc.wait()

    threading.Thread(target=own, name="browsergym-browser", daemon=True).start()
    result = started.get(timeout=START_TIMEOUT_S)
    if isinstance(result, Exception):
        raise result
    return result


def _read_line(proc: subprocess.Popen[str], timeout_s: float) -> str:
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True)
    reader.start()
    try:
        return lines.get(timeout=timeout_s).strip()
    except queue.Empty:
        return f"nothing within {timeout_s:g} s"


def _die_with_parent() -> None:
    """The browser goes when the server process goes, however it ends (Linux prctl)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _tree_rss(pid: int) -> int:
    total, pids = 0, [pid]
    while pids:
        current = pids.pop()
        with contextlib.suppress(OSError):
            with open(f"/proc/{current}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{current}/task/{current}/children") as f:
                pids.extend(int(p) for p in f.read().split())
    return total


def _flag(text: str) -> bool:
    return text.strip().lower() not in ("0", "false", "no", "off")


SERVER = BrowserServer()
atexit.register(SERVER.stop)


# -- one thread per session ---------------------------------------------------------------------

_local = threading.local()


class SessionThread:
    """A thread that owns one session's Playwright connection; ``run(fn)`` calls ``fn`` there.

    ``fn`` runs with BrowserGym's shims active (see :func:`install_shims`) and the connection
    in :attr:`shared`; jobs run one at a time, in order.
    """

    def __init__(self) -> None:
        self.shared: SharedChromium | None = None
        self._jobs: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="browsergym-session", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Queue ``fn()`` for the session thread; the future holds its result or exception."""
        if not self._thread.is_alive():
            raise RuntimeError("the session's browser thread has stopped; open a new session")
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((fn, future))
        return future

    def run(self, fn: Callable[[], Any], timeout_s: float) -> Any:
        """``fn()`` on the session thread; its result, or its exception re-raised here."""
        return self.submit(fn).result(timeout=timeout_s)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self, fn: Callable[[], Any] | None = None, timeout_s: float = 30.0) -> None:
        """Run ``fn`` (cleanup), close the connection and end the thread."""
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                if fn is not None:
                    self.run(fn, timeout_s)
            self._jobs.put(None)
            self._thread.join(timeout_s)

    def _serve(self) -> None:
        _local.thread = self
        playwright = None
        try:
            while (job := self._jobs.get()) is not None:
                fn, future = job
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    playwright = playwright or _start_playwright()
                    self._connect(playwright)
                    future.set_result(fn())
                except BaseException as exc:  # re-raised in the caller's thread
                    future.set_exception(exc)
        finally:
            if playwright is not None:
                with contextlib.suppress(Exception):
                    playwright.stop()

    def _connect(self, playwright: Any) -> None:
        """(Re)connect to the shared browser: on the first job, and after the browser died."""
        if self.shared is None:
            self.shared = SharedChromium(playwright, connect(playwright), PAGES)
        self.shared.reconnect()


PAGES = MiniwobPages()
MAX_IDLE = 2  # connected session threads kept for the next sessions (a driver each, ~50 MB)
_idle: list[SessionThread] = []
_idle_lock = threading.Lock()


def lease_thread() -> SessionThread:
    """A connected session thread: a spare one if there is, and a new spare warmed behind it
    (starting Playwright's driver takes seconds on a loaded machine; a session should not)."""
    with _idle_lock:
        while _idle:
            thread = _idle.pop()
            if thread.alive:
                break
        else:
            thread = SessionThread()
        if not _idle:
            spare = SessionThread()
            spare.submit(lambda: None)  # connects in the background
            _idle.append(spare)
    return thread


def release_thread(thread: SessionThread, cleanup: Callable[[], Any]) -> None:
    """Run ``cleanup`` (close the session's contexts) and keep the thread for another session,
    or end it when enough are kept. Its contexts are gone: nothing of the session remains."""
    try:
        thread.run(cleanup, 30.0)
        clean = True
    except Exception:  # a stuck or broken thread is not kept
        clean = False
    with _idle_lock:
        if clean and thread.alive and len(_idle) < MAX_IDLE:
            _idle.append(thread)
            return
    thread.stop()


def connect(playwright: Any, endpoint: str | None = None) -> Any:
    """A connection of ``playwright`` to the process's browser (started if need be)."""
    endpoint = endpoint or SERVER.endpoint()
    return playwright.chromium.connect(endpoint, timeout=START_TIMEOUT_S * 1000)


def _start_playwright() -> Any:
    from playwright.sync_api import sync_playwright

    return sync_playwright().start()


class SharedChromium:
    """What BrowserGym sees as ``playwright.chromium`` (and ``.selectors``) on a session thread."""

    def __init__(self, playwright: Any, browser: Any, pages: MiniwobPages) -> None:
        self.playwright = playwright
        self.browser = browser
        self.pages = pages
        self.selectors = playwright.selectors
        self.chromium = self

    def launch(self, **_options: Any) -> BrowserLease:
        # BrowserGym's launch options (headless, slow_mo, args) are the shared browser's: set
        # once in BrowserServer; slow_mo is dropped (it would add 100 ms to every call).
        self.reconnect()
        return BrowserLease(self)

    def reconnect(self, force: bool = False) -> None:
        """Connect again if the browser went away (``force``: it may have, though the
        connection has not noticed yet); a browser that does not answer is restarted."""
        if self.browser.is_connected() and not force:
            return
        with contextlib.suppress(Exception):
            self.browser.close()
        endpoint = SERVER.endpoint()
        try:
            self.browser = connect(self.playwright, endpoint)
        except Exception:  # the browser server is up but its browser is gone
            SERVER.restart(endpoint)
            self.browser = connect(self.playwright)


class BrowserLease:
    """What BrowserGym sees as its browser: contexts on the shared one, closed on ``close()``."""

    def __init__(self, shared: SharedChromium) -> None:
        self._shared = shared
        self.contexts: list[Any] = []

    def new_context(self, **options: Any) -> Any:
        options = {k: v for k, v in options.items() if v is not None}
        options.pop("record_video_size", None)  # meaningful only with a video directory
        context = self._shared.browser.new_context(
            **options, service_workers="block", accept_downloads=False
        )
        guard(context, self._shared.pages)
        self.contexts.append(context)
        return context

    def close(self) -> None:
        for context in self.contexts:
            with contextlib.suppress(Exception):
                context.close()
        self.contexts.clear()

    def is_connected(self) -> bool:
        return self._shared.browser.is_connected()


def guard(context: Any, pages: MiniwobPages) -> None:
    """Serve the MiniWoB pages to ``context`` and abort every other request (the
    context-level half of the navigation rule; the action check is the other half)."""

    def route(route: Any) -> None:
        path = pages.file_for(route.request.url)
        if path is None:
            route.abort("blockedbyclient")
        else:
            route.fulfill(path=str(path))

    context.route("**/*", route)
    with contextlib.suppress(AttributeError):  # Playwright >= 1.48: sockets mocked, never open
        context.route_web_socket("**/*", lambda ws: ws.close())


class QuietChat:
    """BrowserGym's chat without its browser window: the messages, in order."""

    def __init__(self, *_args: Any, **_kwargs: Any) -> None:
        self.messages: list[dict[str, Any]] = []

    def add_message(self, role: str, msg: str) -> None:
        self.messages.append({"role": role, "timestamp": time.time(), "message": str(msg)})
        del self.messages[:-50]  # bounded: an agent may send_msg_to_user in a loop

    def wait_for_user_message(self) -> None:
        raise RuntimeError("this server has no chat window to wait on")

    def close(self) -> None:
        self.messages = []


_installed = False


def install_shims() -> None:
    """Route BrowserGym's browser launches to the shared browser on session threads."""
    global _installed
    if _installed:
        return
    import browsergym.core.env as bg_env

    original = bg_env._get_global_playwright

    def playwright_for_this_thread() -> Any:
        thread = getattr(_local, "thread", None)
        return thread.shared if thread is not None else original()

    bg_env._get_global_playwright = playwright_for_this_thread
    bg_env.Chat = QuietChat
    bg_env.extract_screenshot = _screenshot_keeping_viewport(bg_env.extract_screenshot)
    _installed = True


# While BrowserGym captures the frame, text carets are drawn transparent (as Playwright's own
# screenshots do): a caret blinks on a timer, so a focused field would show or not depending
# on when the frame was taken, and the same episode would give different frames.
CARET_STYLE_ID = "openenv-hide-caret"
HIDE_CARET = f"""() => {{
  const style = document.createElement('style');
  style.id = '{CARET_STYLE_ID}';
  style.textContent = '*, *::before, *::after {{ caret-color: transparent !important; }}';
  (document.head || document.documentElement).appendChild(style);
}}"""
SHOW_CARET = f"() => document.getElementById('{CARET_STYLE_ID}')?.remove()"


def _screenshot_keeping_viewport(extract: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """BrowserGym's screenshot (text carets hidden), then the page's viewport as Playwright
    set it.

    BrowserGym captures at 1.5x through a CDP device-metrics override and "restores" it with a
    second override; current Chromium then lays the page out in a shorter window (innerHeight
    127 of a 214 px viewport), so a click on the lower part of the frame lands outside the page.
    Setting the viewport again through Playwright puts its own emulation back.
    """

    def screenshot(page: Any) -> Any:
        page.evaluate(HIDE_CARET)  # a blinking caret would make the frame depend on time
        try:
            pixels = extract(page)
        finally:
            page.evaluate(SHOW_CARET)
        size = page.viewport_size
        if size is not None:
            page.set_viewport_size({"width": size["width"], "height": size["height"] + 1})
            page.set_viewport_size(size)
        return pixels

    return screenshot
