"""A small DevTools-protocol client for headless Chromium (aiohttp's websocket client), enough
to load a page, read what a served Textual app draws and press keys in it.

The page of ``textual-serve`` draws the terminal on a canvas, so its text is not in the DOM:
``Page.screen()`` replays the terminal bytes the page received on its websocket (the
Network domain's frames, i.e. exactly what the browser got) through ``pyte``, a terminal
emulator, and returns the screen's lines.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import aiohttp

KEYS = {  # key -> (key, code, windowsVirtualKeyCode, text)
    "enter": ("Enter", "Enter", 13, "\r"),
    "escape": ("Escape", "Escape", 27, ""),
    "down": ("ArrowDown", "ArrowDown", 40, ""),
    "up": ("ArrowUp", "ArrowUp", 38, ""),
}


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium process; ``await Browser.start()``, then ``new_page(url)``."""

    def __init__(
        self, proc: subprocess.Popen, profile: tempfile.TemporaryDirectory, ws: Any, session: aiohttp.ClientSession
    ) -> None:
        self.proc = proc
        self.profile = profile
        self.ws = ws
        self.http = session
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future] = {}
        self._listeners: dict[str, Any] = {}  # CDP session id -> Page
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, *, width: int = 1400, height: int = 900, timeout: float = 20) -> Browser:
        exe = chromium_path()
        assert exe, "chromium is not installed"
        profile = tempfile.TemporaryDirectory(prefix="gauntlet-chromium-")
        proc = subprocess.Popen(
            [
                exe,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-dev-shm-usage",
                f"--window-size={width},{height}",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile.name}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(profile.name) / "DevToolsActivePort"
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if proc.poll() is not None or loop.time() > end:
                proc.kill()
                raise RuntimeError(f"chromium did not open its DevTools port (exit {proc.poll()})")
            await asyncio.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        session = aiohttp.ClientSession()
        ws = await session.ws_connect(f"ws://127.0.0.1:{port}{path}", max_msg_size=0)
        return cls(proc, profile, ws, session)

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(msg.data)
            if "id" in data:
                fut = self._waiting.pop(data["id"], None)
                if fut is not None and not fut.done():
                    if "error" in data:
                        fut.set_exception(RuntimeError(f"CDP error: {data['error']}"))
                    else:
                        fut.set_result(data.get("result", {}))
            elif data.get("sessionId") in self._listeners:
                self._listeners[data["sessionId"]].on_event(data["method"], data.get("params", {}))

    async def send(
        self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 15
    ) -> dict:
        i = next(self._ids)
        fut = asyncio.get_running_loop().create_future()
        self._waiting[i] = fut
        msg: dict[str, Any] = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        await self.ws.send_str(json.dumps(msg))
        return await asyncio.wait_for(fut, timeout)

    async def new_page(self, url: str, *, isolated: bool = True) -> Page:
        """A tab on ``url``; ``isolated``: in a fresh browser context (cookies apart)."""
        params: dict[str, Any] = {"url": "about:blank"}
        if isolated:
            params["browserContextId"] = (await self.send("Target.createBrowserContext"))["browserContextId"]
        target = (await self.send("Target.createTarget", params))["targetId"]
        sid = (await self.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        page = Page(self, sid, target)
        self._listeners[sid] = page
        await page.send("Network.enable")
        await page.send("Page.enable")
        await page.send("Page.navigate", {"url": url})
        return page

    async def close(self) -> None:
        try:
            await self.send("Browser.close", timeout=5)
        except Exception:  # noqa: BLE001 — it is going anyway
            pass
        self._reader.cancel()
        await self.ws.close()
        await self.http.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.profile.cleanup()


class Page:
    def __init__(self, browser: Browser, session: str, target: str) -> None:
        import pyte

        self.browser = browser
        self.session = session
        self.target = target
        self.socket: str | None = None  # requestId of the app's websocket
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.received = 0  # terminal bytes
        self.closed = False

    async def send(self, method: str, params: dict | None = None, timeout: float = 15) -> dict:
        return await self.browser.send(method, params, self.session, timeout)

    def on_event(self, method: str, params: dict) -> None:
        if method == "Network.webSocketCreated" and "/ws" in params.get("url", ""):
            self.socket = params["requestId"]
            q = parse_qs(urlparse(params["url"]).query)
            self.screen.resize(int(q.get("height", ["24"])[0]), int(q.get("width", ["80"])[0]))
        elif method == "Network.webSocketFrameReceived" and params.get("requestId") == self.socket:
            frame = params["response"]
            if frame.get("opcode") == 2:  # binary: the app's terminal output
                data = base64.b64decode(frame["payloadData"])
                self.received += len(data)
                self.stream.feed(data)
        elif method == "Network.webSocketClosed" and params.get("requestId") == self.socket:
            self.closed = True

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    async def wait_for(self, predicate: Any, timeout: float = 20, what: str = "") -> str:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            text = self.text()
            if predicate(text):
                return text
            if loop.time() > end:
                raise AssertionError(f"timed out waiting for {what or predicate}; the page shows:\n{text}")
            await asyncio.sleep(0.1)

    async def key(self, name: str) -> None:
        if name in KEYS:
            key, code, vk, text = KEYS[name]
        else:
            key, code, vk, text = name, f"Key{name.upper()}", ord(name.upper()), name
        down: dict[str, Any] = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk}
        if text:
            down["text"] = text
        await self.send("Input.dispatchKeyEvent", down)
        await self.send(
            "Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}
        )

    async def focus_terminal(self) -> None:
        await self.send("Runtime.evaluate", {"expression": "document.querySelector('.xterm-helper-textarea').focus()"})

    async def screenshot(self, path: Path) -> Path:
        data = (await self.send("Page.captureScreenshot", {"format": "png"}))["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    async def close(self) -> None:
        await self.browser.send("Target.closeTarget", {"targetId": self.target})
