"""One model-call count for one attempt (issue 21): ``show --json``, ``judge --json``, the
TUI's reducer and the ``show --transcript`` header all read ``arena.usage``, so an attempt
with an answered call, a call refused over a usage limit (HTTP 429) and a call cancelled by
the attempt's end (HTTP 499) counts 3 calls everywhere (before: 1 in ``show`` and the TUI,
3 in ``judge``, 2 in the transcript header)."""

from __future__ import annotations

import asyncio
import json

from eventkit import Attempt
from scenarios import iteration

from arena.gateway.transcript import TranscriptWriter
from arena.usage import usage_from_events
from arena.view import usage_line, view_of
from gauntlet_tui.cli import main
from store import Store

AID = "a-usage001"
MODEL = "openai/gpt-4.1-mini"


def _call(status: int, inp: int = 0, out: int = 0, **extra) -> dict:
    """A ``model.call`` as the gateway records it (arena/gateway/forward.py ``_call_event``)."""
    return {
        "provider": "openai",
        "model": "gpt-4.1-mini",
        "input_tokens": inp,
        "output_tokens": out,
        "latency_ms": 12.5,
        "status": status,
        "stream": False,
        **extra,
    }


def _events() -> list:
    a = Attempt("standard", attempt=AID, agent="mini-swe-agent@" + MODEL, challenge="off-by-one")
    a.events[0].data.update(model=MODEL, limits={"tokens": 100})
    iteration(a, 80)
    # an answered call crosses the tokens limit while a second call (admitted before) streams
    a.wait(5).emit("model.call", **_call(200, 120, 30, cost_usd=0.0012))
    a.emit("model.tool_call", name="bash")
    a.emit("limit.reached", limit="tokens", used=150, allowed=100)
    # a third call is refused before the upstream (arena/gateway/forward.py)
    a.wait(1).emit("model.call", **_call(429, limit="tokens"))
    # the attempt ends: the streaming call is cancelled, nothing received (arena/gateway/inflight.py)
    a.wait(1).emit(
        "model.call",
        **_call(499, latency_ms=None, cancelled=True, endpoint="/v1/chat/completions", detail="the attempt ended"),
    )
    return a.finish()


def _store(path) -> None:
    async def go():
        st = await Store.open(path)
        try:
            for e in _events():
                st.append(e)
            await st.flush()
        finally:
            await st.close()

    asyncio.run(go())
    # the transcript the gateway keeps beside the store: the answered and the refused call
    # (a call cancelled before any answer leaves none)
    w = TranscriptWriter(path.with_name(path.name + ".d") / "transcripts", AID)
    meta = {"provider": "openai", "model": "gpt-4.1-mini", "endpoint": "/v1/chat/completions"}
    w.record({**meta, "status": 200, "latency_ms": 12.5}, b'{"messages": []}', b'{"choices": []}')
    w.record({**meta, "status": 429, "latency_ms": 0}, b'{"messages": []}', b'{"error": {"type": "usage_limit"}}')


def _stored_events(path) -> list:
    async def go():
        st = await Store.open(path)
        try:
            return await st.events(AID)
        finally:
            await st.close()

    return asyncio.run(go())


def test_show_judge_tui_and_transcript_count_the_same_calls(tmp_path, capsys):
    db = tmp_path / "g.db"
    _store(db)

    assert main(["show", AID, "--json", "--store", str(db)]) == 0
    shown = json.loads(capsys.readouterr().out)["usage"]
    assert main(["judge", AID, "--json", "--store", str(db)]) == 0
    judged = json.loads(capsys.readouterr().out)["usage"]
    view = view_of(_stored_events(db))
    assert main(["show", AID, "--transcript", "--store", str(db)]) == 0
    header = capsys.readouterr().out.splitlines()[0]

    # the rule: every model.call the gateway recorded counts, refused and cancelled ones too
    assert shown == judged == usage_from_events(_stored_events(db))
    assert shown["calls"] == judged["calls"] == view.calls == 3
    assert (shown["calls_ok"], shown["calls_refused"], shown["calls_cancelled"], shown["calls_failed"]) == (1, 1, 1, 0)
    assert {"tokens", "calls", "cost_usd"} <= set(shown)  # CONTRACT §8's fields kept
    assert shown["tokens"] == judged["tokens"] == view.tokens == 150
    assert shown["cost_usd"] == judged["cost_usd"] == 0.0012
    assert header.startswith(f"{AID}  mini-swe-agent@{MODEL}: 3 model call(s) (1 refused, 1 cancelled), 150 tokens")
    assert header.endswith("; 2 in the transcript")
    # the TUI's header line (gauntlet_tui/screens/attempt.py): the same count, and why
    assert usage_line(view) == "150/100 tok · 3 calls (1 refused, 1 cancelled) · $0.00"

    assert main(["show", AID, "--transcript", "--json", "--store", str(db)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["usage"] == shown and len(doc["calls"]) == 2


def test_an_attempt_without_model_calls_counts_none(tmp_path, capsys):
    a = Attempt("standard", attempt=AID, challenge="off-by-one")
    iteration(a, 50)
    events = a.finish()
    u = usage_from_events(events)
    assert u == {
        "tokens": 0,
        "calls": 0,
        "cost_usd": None,
        "calls_ok": 0,
        "calls_refused": 0,
        "calls_cancelled": 0,
        "calls_failed": 0,
    }
    assert view_of(events).calls == 0 and usage_line(view_of(events)) == ""


def test_plain_show_judge_and_reports_say_the_usage_and_how_it_ended(tmp_path, capsys):
    """Issue 21 item 7: plain `show` and plain `judge` print the end and the usage (the
    same count), and the HTML and Markdown reports carry them with the transcript summary."""
    db = tmp_path / "g.db"
    _store(db)
    want = "usage: 3 model call(s) (1 refused, 1 cancelled), 150 tokens, $0.0012"
    assert main(["show", AID, "--store", str(db)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert main(["judge", AID, "--store", str(db)]) == 0
    judged = capsys.readouterr().out.splitlines()
    for lines in (shown, judged):
        assert "ended: finished (done)" in lines and want in lines, lines[:6]
    for suffix in ("html", "md"):
        out = tmp_path / f"r.{suffix}"
        assert main(["report", AID, "--out", str(out), "--store", str(db)]) == 0
        text = out.read_text()
        assert "Model usage" in text and "ended: finished" in text
        assert "3 model call(s) (1 refused, 1 cancelled), 150 tokens" in text
        assert text.count("openai/gpt-4.1-mini") >= 2  # one transcript row per kept call
        assert "usage_limit" in text  # the refused call's answer, summarised
