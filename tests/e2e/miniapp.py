"""Driving the Mini App in a real browser: Debian's chromium through chromium-driver.

:func:`browser` starts a headless chromium at phone size with Telegram's script blocked
(it cannot be fetched here); :func:`open_app` injects a stub ``window.Telegram.WebApp``
before the page's own scripts run, carrying an ``initData`` signed with the bot's token
as Telegram would sign it (:func:`bot.edge.initdata.sign`).  :class:`AppApi` speaks
the app's JSON API directly (for forged requests and for reading the state).
Shared by tests/e2e/test_miniapp.py and benchmarks/miniapp_bench.py.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from bot.edge.initdata import sign
from tests.botapi.model import User

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PHONE = (390, 844)


def have_browser() -> bool:
    return bool(shutil.which("chromium") and shutil.which("chromedriver"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def init_data(token: str, user: User, *, start_param: str | None = None,
              auth_date: float | None = None) -> str:
    fields = {"user": json.dumps({"id": user.id, "first_name": user.first_name,
                                  "language_code": user.language_code or "en"}),
              "auth_date": str(int(time.time() if auth_date is None else auth_date)),
              "query_id": f"AAH{user.id}"}
    if start_param is not None:
        fields["start_param"] = start_param
    return sign(token, fields)


@contextlib.contextmanager
def browser(size: tuple[int, int] = PHONE) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={size[0]},{size[1]}", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        phone_size(driver, size)  # (headless chromium keeps a wider minimum window)
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*telegram.org*"]})
        yield driver
    finally:
        driver.quit()


def phone_size(driver: Any, size: tuple[int, int]) -> None:
    """The browser's viewport as a phone's of ``size`` (CSS pixels, two device pixels each)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True})


def open_app(driver: Any, url: str, payload: str, data: str) -> None:
    """Open the app as Telegram would: a stubbed WebApp with ``data`` as its initData."""
    unsafe = json.dumps({"start_param": payload})
    stub = (f"window.Telegram = {{WebApp: {{initData: {json.dumps(data)}, initDataUnsafe: "
            f"{unsafe}, ready() {{}}, expand() {{}}, HapticFeedback: "
            "{selectionChanged() {}}}};")
    previous = getattr(driver, "nardy_stub", None)  # a browser shared by several tests
    if previous is not None:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                               {"identifier": previous})
    added = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": stub})
    driver.nardy_stub = added.get("identifier")
    driver.get(f"{url}/?game={payload}")


def shown_version(driver: Any) -> int | None:
    value = driver.execute_script("return document.body.dataset.version || null")
    return None if value is None else int(value)


def wait_version(driver: Any, version: int, timeout: float = 20.0) -> float:
    """Wait until the page shows ``version``; returns the seconds it took."""
    start = time.monotonic()
    while shown_version(driver) != version:
        if time.monotonic() - start > timeout:
            error = driver.execute_script("return document.getElementById('error').textContent")
            raise AssertionError(f"the app shows version {shown_version(driver)}, not "
                                 f"{version}, after {timeout}s (error: {error!r})")
        time.sleep(0.02)
    return time.monotonic() - start


def click(driver: Any, selector: str) -> None:
    driver.find_element("css selector", selector).click()


def cell(driver: Any, name: object) -> Any:
    return driver.find_element("css selector", f'[data-cell="{name}"]')


def drag(driver: Any, source: object, target: object) -> None:
    """Drag a checker from one cell to another, as a finger would (pointer events)."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).click_and_hold(cell(driver, source)).move_by_offset(3, 3) \
        .move_to_element(cell(driver, target)).release().perform()


def used_dice(driver: Any) -> int:
    """The dice drawn as used (the steps played locally use theirs)."""
    return len(driver.find_elements("css selector", "rect.die.used"))


def play_turn(driver: Any, state: dict[str, Any], *, confirm: bool = True,
              dragging: bool = False) -> list[list[int]]:
    """Play a turn through the app: the first legal step of each node of the server's
    tree, tapping checker then target (``dragging``: dragging the checker there),
    until the turn may be confirmed; then Confirm (unless not ``confirm``: the caller
    taps it)."""
    tree, node, steps = state["tree"], 0, []
    while not tree[node]["complete"]:
        step = tree[node]["steps"][0]
        if dragging:
            drag(driver, step["from"], step["to"])
        else:
            click(driver, f'[data-cell="{step["from"]}"]')
            click(driver, f'[data-cell="{step["to"]}"]')
        steps.append(step["step"])
        node = step["next"]
    if confirm:
        click(driver, '[data-action="confirm"]')
    return steps


class AppApi:
    """The app's JSON API as ``user`` calls it (initData signed now)."""

    def __init__(self, url: str, token: str, user: User, payload: str) -> None:
        self.url, self.token, self.user, self.payload = url, token, user, payload

    def call(self, name: str, *, data: str | None = None, **body: Any) -> tuple[int, Any]:
        body = {"initData": data if data is not None else init_data(self.token, self.user),
                "game": self.payload, **body}
        request = urllib.request.Request(f"{self.url}/api/{name}", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def state(self) -> dict[str, Any]:
        status, body = self.call("state")
        assert status == 200, body
        state: dict[str, Any] = body
        return state
