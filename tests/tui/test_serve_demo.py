"""`gauntlet serve` of the live demo (issue 25's first "done"): on a store that does not exist
yet, the server starts; the operator runs the real `gauntlet demo --sandbox local` (the TUI,
on a pseudo-terminal, as on the projector); two watchers' headless Chromium pages show the
three bundled challenges' rows and each sees the same attempt's clock advance. The operator
quits the demo (q, then y to stop the running attempts), the server stops, and no session
process is left behind.
"""

from __future__ import annotations

import asyncio
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
from fcntl import ioctl
from pathlib import Path

import pytest

from cdp import Browser, chromium_path  # tests/tui/cdp.py (tests/tui is on sys.path)
from serve_kit import alive, children, serve, until

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    chromium_path() is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)"
)

# arena/bundled/*/challenge.yaml's titles
TITLES = ("The Off-By-One", "Rate Limiter with Teeth", "The Evolving Task Store")
ROW = re.compile(r"^ ?(\S.*?)…?\s+scripted:(elite|naive)\s", re.M)
CLOCK = re.compile(r"The Off-By-One\s+scripted:elite\s+\S*\s*(\d\d:\d\d)")


def _rows(text: str) -> set[str]:
    """The titles that have a row in the dashboard's table: its Challenge cell is the title,
    or its start where the column is narrower (the detail pane, right of ▏, is left out)."""
    cells = {m.group(1).strip() for m in ROW.finditer("\n".join(line.split("▏")[0] for line in text.splitlines()))}
    return {t for t in TITLES if any(len(c) >= 12 and t.startswith(c) for c in cells)}


def _clock(text: str) -> str | None:
    m = CLOCK.search(text)
    return m.group(1) if m else None


def _descendants(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        kids = children(todo.pop())
        out |= kids
        todo += kids
    return out


class Terminal:
    """A process on a pseudo-terminal of ``cols`` x ``rows``; its output drained (and kept)."""

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str], cols: int = 160, rows: int = 48) -> None:
        self.master, slave = pty.openpty()
        ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {**env, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
        )
        os.close(slave)
        self.size = (cols, rows)
        self.output = bytearray()
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: the process closed its side
                return
            if not data:
                return
            self.output += data

    def screen(self) -> str:
        """What the terminal shows now (its output replayed through pyte)."""
        import pyte

        screen = pyte.Screen(*self.size)
        pyte.ByteStream(screen).feed(bytes(self.output))
        return "\n".join(line.rstrip() for line in screen.display)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._drain.join(5)
        os.close(self.master)


async def test_served_demo_in_two_headless_chromium_pages(tmp_path):
    db = tmp_path / "g.db"  # a fresh machine: no store yet
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_CONFIG_DIR": str(tmp_path / "cfg")}
    server = demo = browser = None
    sessions: set[int] = set()
    try:
        server = await serve(db, cwd=tmp_path, env=env)
        demo = Terminal(
            [sys.executable, "-m", "gauntlet_tui", "demo", "--store", str(db), "--sandbox", "local"],
            cwd=tmp_path,
            env=env,
        )
        browser = await Browser.start(width=1400, height=900)
        one = await browser.new_page(server.base)
        two = await browser.new_page(server.base)
        sessions = await until(lambda: len(server.sessions()) == 2 and server.sessions(), 20, "a session per page")
        # The demo prepares its sandboxes (no clock yet), then starts every attempt.
        for page in (one, two):
            try:
                text = await page.wait_for(
                    lambda t: _clock(t) and len(_rows(t)) == 3, 90, "the rows of the demo's three challenges"
                )
            except AssertionError as exc:
                raise AssertionError(f"{exc}\nthe demo's terminal shows:\n{demo.screen()}") from None
            assert "Gauntlet — watching (read-only)" in text
        assert demo.proc.poll() is None
        first = {id(p): _clock(p.text()) for p in (one, two)}
        for page in (one, two):
            await page.wait_for(lambda t, p=page: _clock(t) not in (None, first[id(p)]), 20, "the clock to move")
        await one.screenshot(tmp_path / "watcher.png")
        shot = os.environ.get("GAUNTLET_SCREENSHOT")
        if shot:
            Path(shot).write_bytes((tmp_path / "watcher.png").read_bytes())

        # The operator quits the demo: q asks (attempts run), y stops them and quits.
        arena = _descendants(demo.proc.pid)  # its sandboxes, agents, judge runs, reaper
        assert arena
        mark = len(demo.output)
        demo.type("q")
        await until(lambda: b"still running" in demo.output[mark:], 10, "the demo's quit confirmation")
        demo.type("y")
        assert await asyncio.to_thread(demo.proc.wait, 60) == 0
        await until(lambda: not alive(arena), 30, "the demo's processes (sandboxes, agents, reaper) to end")
    finally:
        if browser is not None:
            await browser.close()
        try:
            status = server.stop() if server is not None else None
        finally:
            if demo is not None:
                demo.close()
    assert status == 0
    left = alive(sessions)
    assert not left, f"session processes left behind by the server: {left}"
