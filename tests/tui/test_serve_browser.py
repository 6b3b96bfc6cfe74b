"""`gauntlet serve` in a real browser (issue 25): headless Chromium, driven by its DevTools
protocol (tests/tui/cdp.py), loads the served page over loopback while a real `gauntlet
run` (another process) writes a live attempt into the store. Two watchers' pages see the
attempt's row and its clock advance, open it by key, and are refused a stop; a wrong token
is refused; a page that closes ends its own session process and nothing else; the
operator's page (the token printed at start) stops the attempt that the other process
runs (through that arena's control channel) and both remaining pages see it end
interrupted; stopping the server leaves no session behind.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from cdp import Browser, chromium_path  # tests/tui/cdp.py (tests/tui is on sys.path)
from serve_kit import alive, serve, until
from store import Store

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    chromium_path() is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)"
)


CLOCK = re.compile(r"The Off-By-One\s+scripted:elite\s+\S*\s*(\d\d:\d\d)")


def _clock(text: str) -> str | None:
    m = CLOCK.search(text)
    return m.group(1) if m else None


async def test_served_arena_in_headless_chromium(tmp_path):
    db = tmp_path / "g.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_CONFIG_DIR": str(tmp_path / "cfg")}
    run = subprocess.Popen(  # the operator's run: a live attempt in another process
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            "off-by-one",
            "--agent",
            "scripted:elite",
            "--headless",
            "--sandbox",
            "local",
            "--time-scale",
            "2",
            "--store",
            str(db),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = browser = None
    sessions_seen: set[int] = set()
    try:
        server = await serve(db, cwd=tmp_path, env=env)
        token, base = server.token, server.base
        async with aiohttp.ClientSession() as http:
            async with http.get(base + "?token=wrong") as r:
                assert r.status == 403 and "wrong operator token" in await r.text()
            async with http.get(f"ws://127.0.0.1:{server.port}/ws/operator/wrong") as r:
                assert r.status == 403

        browser = await Browser.start(width=1400, height=900)
        one = await browser.new_page(base)
        two = await browser.new_page(base)
        for page in (one, two):
            text = await page.wait_for(lambda t: _clock(t) and "running" in t, 30, "the running attempt's row")
            assert "Gauntlet — watching (read-only)" in text
        sessions = await until(
            lambda: len(server.sessions()) == 2 and server.sessions(), 10, "one session process per page"
        )
        # Both pages see the same attempt advance: its clock moves on each.
        first = {id(p): _clock(p.text()) for p in (one, two)}
        for page in (one, two):
            await page.wait_for(lambda t, p=page: _clock(t) not in (None, first[id(p)]), 15, "the clock to move")

        # A watcher is refused a stop; it opens the attempt by key.
        await one.focus_terminal()
        await one.key("x")
        await one.wait_for(lambda t: "Read-only: a watcher cannot stop an attempt" in t, 10, "the refusal")
        assert "Stop attempt" not in one.text()  # no confirmation was asked
        await one.key("enter")
        text = await one.wait_for(lambda t: "left of 15:00" in t and "Briefing" in t, 10, "the attempt view")
        assert "The Off-By-One · scripted:elite" in text
        await one.screenshot(tmp_path / "watcher.png")
        shot = os.environ.get("GAUNTLET_SCREENSHOT")
        if shot:
            (Path(shot)).write_bytes((tmp_path / "watcher.png").read_bytes())
        assert (tmp_path / "watcher.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

        # The operator's page: the same row, and its stop is asked, not refused as read-only.
        op = await browser.new_page(f"{base}?token={token}")
        await op.wait_for(lambda t: "Gauntlet — operator" in t and _clock(t), 30, "the operator's dashboard")

        # A page that closes ends its session process, and only it.
        all_three = server.sessions()
        sessions_seen |= all_three
        assert len(all_three) == 3 and sessions < all_three
        await two.close()
        await until(lambda: len(server.sessions()) == 2, 10, "the closed page's session to end")
        assert server.sessions() < all_three
        await one.wait_for(lambda t: "left of 15:00" in t, 5, "the other watcher still live")
        assert not one.closed and not op.closed
        assert run.poll() is None  # the attempt still runs in the other process

        # The operator stops the attempt that the other process runs (its arena's control
        # channel, arena/attempt/control.py): it ends interrupted, seen on both pages.
        await op.focus_terminal()
        await op.key("x")
        await op.wait_for(lambda t: "Stop attempt a-" in t, 10, "the operator's stop confirmation")
        await op.key("y")
        text = await op.wait_for(lambda t: f"(asked its arena, pid {run.pid})" in t, 10, "the operator's stop answer")
        assert "Read-only" not in text and "not stopped" not in text
        assert await asyncio.to_thread(run.wait, 30) == 0  # the run ends: its attempt is over
        text = await op.wait_for(lambda t: "interrupted" in t, 15, "the stopped attempt on the operator's page")
        await op.screenshot(tmp_path / "operator.png")
        text = await one.wait_for(
            lambda t: "attempt interrupted: stopped by the operator" in t,
            15,
            "the stopped attempt on the watcher's page",
        )
        await one.screenshot(tmp_path / "watcher-ended.png")
        if shot:
            for name in ("operator.png", "watcher-ended.png"):
                (Path(shot).with_name(name)).write_bytes((tmp_path / name).read_bytes())
        async with await Store.open(db) as st:
            (row,) = await st.list_attempts(5)
            (end,) = await st.events(row["id"], kinds=["attempt.finished"])
        assert row["status"] == "interrupted" and end.data["reason"] == "stopped by the operator"
    finally:
        if browser is not None:
            await browser.close()
        try:
            status = server.stop() if server is not None else None
        finally:
            run.kill()
            run.wait()
    assert status == 0
    # A session ends when its page's connection closes, as the server closes them: give
    # the last ones a few seconds to exit (seen under load: one still exiting at the check).
    for _ in range(100):
        if not alive(sessions_seen):
            break
        await asyncio.sleep(0.1)
    left = alive(sessions_seen)
    assert not left, f"session processes left behind by the server: {left}"
