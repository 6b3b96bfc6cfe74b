"""Issue 26 item 8: names are data in the ``--headless`` output (escape sequences shown
escaped, never sent to the terminal), no host upstream URL in the gateway's 502 to the
agent, a deeply nested JSON body is a clean 400 (no traceback on the operator's terminal),
and no ``gw-<pid>/`` directory is left in the sockets directory after an arena run."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import socket
import sys
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # attempt_kit
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gateway"))  # gw_kit

from arena import events as ev  # noqa: E402
from arena import paths  # noqa: E402
from arena.attempt.progress import printer  # noqa: E402
from arena.challenge import load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from arena.gateway import Gateway, UsageLimits  # noqa: E402
from attempt_kit import drive, make_package, open_arena  # noqa: E402
from gw_kit import PRICES, Events, register  # noqa: E402

EVIL = "\x1b]0;owned\x07\x1b[2J\x1b[31mred"  # set the title, clear the screen, colour: 3 ESC, 1 BEL


async def test_headless_output_shows_escape_sequences_escaped(tmp_path):
    steps = [{"overlay": "agents/fixed"}, "submit"]
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"ok": steps})
    (pkg / "agents" / f"{EVIL}.yaml").write_text((pkg / "agents" / "ok.yaml").read_text())  # a name, as data
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    out = io.StringIO()
    unsub = arena.bus.subscribe(printer(out))
    try:
        a = arena.attempt(load_challenge(pkg), f"scripted:{EVIL}")
        await asyncio.wait_for(drive(arena, [a], clock, step=5.0), 120)
        await arena.store.flush()
    finally:
        unsub()
        await arena.close()
    # and an infrastructure detail carrying a file name the agent chose
    on = printer(out)
    on(ev.Event(attempt="a", t=1.0, kind=ev.INFRA_ERROR, data={"source": "x", "detail": f"open {EVIL}\nnext"}))
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text, repr(text)
    assert "\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mred" in text  # shown, escaped
    assert "started kit-sprint" in text and "finished: finished" in text
    assert "\\x0anext" in text and len(text.splitlines()) >= 4  # one line per event, still


async def _gateway(tmp_path, env):
    gw = Gateway(root=tmp_path / "gw", env=env, prices=PRICES)
    await gw.start()
    return gw


async def test_the_502_to_the_agent_names_no_host_upstream(tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there: unreachable
    gw = await _gateway(
        tmp_path,
        {
            "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "OPENAI_API_KEY": "k",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": "k",
        },
    )
    events = Events()
    try:
        g = register(gw, events)
        ga = register(gw, events, attempt="a2", model="anthropic/claude-sonnet-4-20250514")
        async with aiohttp.ClientSession() as c:
            bodies = []
            for url, tok, path in (
                (g.tcp_url, g.token, "/v1/chat/completions"),
                (g.tcp_url, g.token, "/v1/responses"),
                (ga.tcp_url, ga.token, "/v1/messages/count_tokens"),
            ):
                async with c.post(
                    url + path,
                    json={"model": "m", "messages": []},
                    headers={"Authorization": f"Bearer {tok}", "x-api-key": tok},
                ) as r:
                    assert r.status == 502, path
                    bodies.append(await r.text())
    finally:
        await gw.aclose()
    for b in bodies:
        assert str(port) not in b and "127.0.0.1" not in b and "http" not in b, b
        assert "could not be reached" in b
    infra = events.of("infra.error")
    assert infra and all(str(port) in e["detail"] for e in infra)  # the operator still learns where


async def test_a_deeply_nested_json_body_is_a_clean_400(tmp_path, caplog):
    gw = await _gateway(tmp_path, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"})
    events = Events()
    nested = b"[" * 200_000 + b"]" * 200_000  # 400 kB: within the body bound, past any parser depth
    caplog.set_level(logging.ERROR)
    try:
        g = register(gw, events)
        async with aiohttp.ClientSession() as c:
            for path in ("/v1/chat/completions", "/v1/responses"):
                async with c.post(
                    g.tcp_url + path,
                    data=nested,
                    headers={"Authorization": f"Bearer {g.token}", "Content-Type": "application/json"},
                ) as r:
                    assert r.status == 400, (path, r.status)
                    assert "not a JSON object" in await r.text()
        await asyncio.sleep(0)  # the transcript writer has its turn
    finally:
        await gw.aclose()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage()[:200] for r in caplog.records]
    assert [c["status"] for c in events.of("model.call")] == [400, 400]


async def test_an_arena_run_leaves_no_gateway_directory_behind(tmp_path):
    arena = await open_arena(tmp_path, ManualTime())
    try:
        gw = await arena.shared.gateway()
        g = gw.register("a1", model="openai/gpt-4.1-mini", limits=UsageLimits(), emit=lambda k, d: None)
        root = paths.sockets_root(arena.shared.store_path)
        assert (root / f"gw-{os.getpid()}").is_dir() and g.socket_path.exists()
    finally:
        await arena.close()
    assert not (root / f"gw-{os.getpid()}").exists()  # (the directory is shared: other runs' are theirs)
