"""One headless Chromium per session, driven by Selenium through Debian's chromedriver, and
Helium on top of it.

Bounds:

- the driver is ``/usr/bin/chromedriver`` given as the Service's path, and the browser
  ``/usr/bin/chromium`` (``HELIUM_CHROMEDRIVER``, ``HELIUM_CHROMIUM`` override them), so Selenium
  Manager is never asked to find or download anything;
- network: every request goes through the site's server as proxy (``--proxy-server`` with
  ``<-loopback>``, so loopback is proxied too), which answers only for the site itself, and the
  browser resolves no host names (``--host-resolver-rules``); see :mod:`.site`;
- time: page loads 15 s, scripts 5 s, Helium's implicit wait 1 s (a missing element is an error
  at once, not after Helium's default 10 s), ``wait_until`` at most 10 s, any driver command 30 s;
- a profile of its own in a temporary directory, no downloads, deleted on close.

Helium keeps its driver in a module global; each session here has its own ``APIImpl`` (the
object behind Helium's functions) holding its own driver, so sessions never share a browser.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import signal
import tempfile
import time
import weakref
from typing import Any

import numpy as np
from PIL import Image

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 960, 600  # the screenshot's size (the window's viewport)
PAGE_LOAD_S = 15
SCRIPT_S = 5
COMMAND_S = 30
IMPLICIT_WAIT_S = 1
MAX_WINDOWS = 1  # a page that opens a window gets it closed again

# Where the page is: its document (performance.timeOrigin is new with every document), whether
# it is loaded, and whether it is being left (the site's pages flag it on beforeunload).
WHERE_JS = """return [location.href, performance.timeOrigin, document.readyState,
  document.documentElement.dataset.leaving || ''];"""
SETTLE_S = 5.0  # at most this long waiting for a page the action started loading
QUIET_S = 0.2  # the page must stay the same document this long to count as settled

VISIBLE_JS = """
const out = [];
for (const el of document.querySelectorAll('a[href], button, input[type=submit]')) {
  const r = el.getBoundingClientRect();
  const text = (el.innerText || el.value || '').trim().replace(/\\s+/g, ' ');
  if (text && r.width > 0 && r.height > 0 && !el.hidden && !out.includes(text)) out.push(text);
  if (out.length >= 30) break;
}
return {text: document.body ? document.body.innerText : '', clickable: out,
  path: location.pathname, data: Object.assign({}, document.body ? document.body.dataset : {}),
  url: location.href, title: document.title, doc: performance.timeOrigin};
"""


class MissingBrowser(RuntimeError):
    """Chromium or chromedriver is not installed where this env looks for it."""


def chrome_paths() -> tuple[str, str]:
    chromium = os.environ.get("HELIUM_CHROMIUM") or CHROMIUM
    driver = os.environ.get("HELIUM_CHROMEDRIVER") or CHROMEDRIVER
    for path, package in ((chromium, "chromium"), (driver, "chromium-driver")):
        if not os.path.isfile(path):
            raise MissingBrowser(
                f"{path} not found: install Debian's {package} (apt-get install {package})"
            )
    return chromium, driver


def chrome_options(proxy_netloc: str, profile: str) -> Any:
    from selenium.webdriver import ChromeOptions

    options = ChromeOptions()
    options.binary_location = chrome_paths()[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--no-first-run",
        "--no-default-browser-check",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--window-size={WIDTH},{HEIGHT}",
        f"--user-data-dir={profile}",
        f"--proxy-server=http://{proxy_netloc}",
        "--proxy-bypass-list=<-loopback>",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ):
        options.add_argument(arg)
    options.add_experimental_option("excludeSwitches", ["enable-logging"])
    options.add_experimental_option(
        "prefs",
        {
            "download_restrictions": 3,  # no downloads at all
            "profile.password_manager_leak_detection": False,  # as Helium sets it
            "credentials_enable_service": False,
            "profile.password_manager_enabled": False,
        },
    )
    options.page_load_strategy = "normal"
    return options


_OPEN: weakref.WeakSet[Browser] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Browsers still open when the server exits are quit (and their profiles removed)."""
    for browser in list(_OPEN):
        browser.close()


class Browser:
    """A session's Chromium and its Helium (``close()`` ends both and removes the profile)."""

    def __init__(self, proxy_netloc: str) -> None:
        import helium
        from helium._impl import APIImpl
        from selenium.webdriver import Chrome
        from selenium.webdriver.chrome.service import Service

        helium.Config.implicit_wait_secs = IMPLICIT_WAIT_S
        _, driver_path = chrome_paths()
        self._profile = tempfile.mkdtemp(prefix="helium-env-")
        try:
            self.driver = Chrome(
                service=Service(executable_path=driver_path, log_output=os.devnull),
                options=chrome_options(proxy_netloc, self._profile),
            )
        except Exception:
            shutil.rmtree(self._profile, ignore_errors=True)
            raise
        with contextlib.suppress(AttributeError):  # Selenium's HTTP client to the driver
            self.driver.command_executor._client_config.timeout = COMMAND_S
        # The viewport (and so the screenshot) is WIDTH x HEIGHT whatever the window's frame.
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        )
        self.driver.set_page_load_timeout(PAGE_LOAD_S)
        self.driver.set_script_timeout(SCRIPT_S)
        self.helium = APIImpl()
        self.helium.set_driver_impl(self.driver)
        _OPEN.add(self)

    # -- Helium's calls, one per action --------------------------------------------------------

    def go_to(self, url: str) -> None:
        self.helium.go_to_impl(url)

    def click(self, text: str) -> None:
        self.helium.click_impl(text)

    def write(self, text: str, into: str) -> None:
        self.helium.write_impl(text, into or None)

    def press(self, key: str) -> None:
        self.helium.press_impl(key)

    def scroll(self, pixels: int) -> None:
        if pixels >= 0:
            self.helium.scroll_down_impl(pixels)
        else:
            self.helium.scroll_up_impl(-pixels)

    def wait_until_text(self, text: str, timeout_s: float) -> None:
        from helium._impl import TextImpl

        wrapped = self.helium.require_driver()
        self.helium.wait_until_impl(lambda: TextImpl(wrapped, text).exists(), timeout_s, 0.25)

    # -- reading the page ----------------------------------------------------------------------

    def where(self) -> list[Any]:
        return list(self.driver.execute_script(WHERE_JS))

    def settle(self) -> None:
        """Wait (at most :data:`SETTLE_S`) until the page an action may have started loading
        is there: loaded, not being left, and the same document for :data:`QUIET_S`."""
        deadline = time.monotonic() + SETTLE_S
        last: list[Any] | None = None
        while time.monotonic() < deadline:
            try:
                now = self.where()
            except Exception:  # between two documents: ask again
                now = None
            if now is not None and now == last and now[2] == "complete" and not now[3]:
                return
            last = now
            time.sleep(QUIET_S / 2)

    def script(self, js: str) -> Any:
        return self.driver.execute_script(js)

    def screenshot(self) -> np.ndarray:
        png = self.driver.get_screenshot_as_png()
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.uint8)

    def keep_one_window(self) -> None:
        """Close windows a page opened, back to the first one."""
        handles = self.driver.window_handles
        for handle in handles[MAX_WINDOWS:]:
            self.driver.switch_to.window(handle)
            self.driver.close()
        self.driver.switch_to.window(handles[0])

    def alive(self) -> bool:
        try:
            self.driver.current_url  # noqa: B018 (asks the driver)
            return True
        except Exception:
            return False

    def close(self) -> None:
        """Quit the driver and its browser, wait (at most 10 s) for the browser's processes to
        end (Chromium writes its profile while it shuts down), then remove the profile."""
        driver, self.driver = self.driver, None
        if driver is not None:
            pids = _descendants(driver.service.process.pid)
            with contextlib.suppress(Exception):
                driver.quit()
            with contextlib.suppress(Exception):  # quit() failed: make sure the driver goes
                driver.service.stop()
            deadline = time.monotonic() + 10.0
            while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
                time.sleep(0.05)
            for pid in pids:  # a browser process that outlived quit() and the wait
                with contextlib.suppress(OSError):
                    if _running(pid):
                        os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self._profile, ignore_errors=True)
        _OPEN.discard(self)


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (Linux /proc; none elsewhere)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop()
        with contextlib.suppress(OSError):
            with open(f"/proc/{current}/task/{current}/children") as f:
                children = [int(p) for p in f.read().split()]
            found += children
            todo += children
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` is alive and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
