"""``gauntlet compare A B`` (CONTRACT §11) on a real store: two real scripted attempts of
the bundled off-by-one challenge (naive and elite, local backend, manual clock), compared
by the engine (arena.compare) and through the command line (plain, --json, --out html|md,
unknown attempt). The diff's bounds are checked on hostile snapshot trees."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from arena.challenge import load_challenge, resolve_challenge
from arena.clock import ManualTime
from arena.compare import compare
from arena.compare import diff as D
from arena.compare.render import render_html, render_markdown, render_text
from arena.compare.timeline import align, timeline
from arena.events import Event
from arena.scoring import judge_attempt
from arena.scoring.load import NotFound, attempt_events
from attempt_kit import drive, open_arena
from gauntlet_tui.cli import main


async def _two_attempts(tmp: Path) -> tuple[Path, str, str]:
    clock = ManualTime()
    arena = await open_arena(tmp, clock, parallel=2)
    try:
        ch = load_challenge(resolve_challenge("off-by-one"))
        attempts = [arena.attempt(ch, "scripted:naive"), arena.attempt(ch, "scripted:elite")]
        assert await drive(arena, attempts, clock, step=20.0) == ["finished", "finished"]
        await arena.store.flush()
    finally:
        await arena.close()
    return tmp / "g.db", attempts[0].id, attempts[1].id


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[Path, str, str]:
    return asyncio.run(_two_attempts(tmp_path_factory.mktemp("compare")))


def test_comparison_of_two_real_attempts(pair):
    db, a, b = pair
    c = asyncio.run(compare(db, a, b))
    # the scorecards are judge_attempt's, component by component, with B - A
    for side, aid in ((c.a, a), (c.b, b)):
        _, events = asyncio.run(attempt_events(db, aid))
        assert side.card == judge_attempt(events)
    comps = {r["component"]: r for r in c.components()}
    assert list(comps) == ["objective", "process", "strategy", "integrity", "total"]
    assert comps["total"]["a"] == c.a.card.total and comps["total"]["b"] == c.b.card.total
    assert comps["objective"]["diff"] == round(c.b.card.components["objective"] - c.a.card.components["objective"], 1)
    assert c.b.card.total > c.a.card.total  # elite beats naive
    assert c.same_challenge and not c.notes
    # timelines: both attempts' submissions and scores, in attempt-clock order
    ts = [r.t for r in c.rows]
    assert ts == sorted(ts)
    for side in ("a", "b"):
        lines = [getattr(r, side) for r in c.rows if getattr(r, side) is not None]
        kinds = [x.kind for x in lines]
        assert "submit" in kinds and "score" in kinds and kinds[-1] == "finish"
        assert "command" in kinds and "edit" in kinds
        scores = [x.text for x in lines if x.kind == "score"]
        card = c.a.card if side == "a" else c.b.card
        assert [float(s.split("scored ")[1].split()[0]) for s in scores][-1] == card.trajectory[-1]
    # the diff of the scored submissions: sorter.py differs, lines are unified +/- lines
    files = {f.path: f for f in c.diff.files}
    assert "sorter.py" in files and files["sorter.py"].status == "changed"
    body = files["sorter.py"].lines
    assert body[0].startswith("@@") and any(x.startswith("-") for x in body) and any(x.startswith("+") for x in body)
    assert c.diff.a and c.diff.b and not c.diff.identical
    # the same attempt against itself: no diff, said so
    same = asyncio.run(compare(db, a, a))
    assert same.diff.identical and "same attempt" in same.notes[0]
    assert all(r["diff"] == 0 for r in same.components())
    with pytest.raises(NotFound, match="nope"):
        asyncio.run(compare(db, a, "nope"))


def test_cli_plain_json_and_reports(pair, tmp_path, capsys):
    db, a, b = pair
    assert main(["compare", a, b, "--store", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"A: {a}" in out and f"B: {b}" in out and "scripted:naive" in out and "scripted:elite" in out
    assert "objective" in out and "total" in out and "B-A" in out
    assert " | " in out and "submission #1" in out  # two columns
    assert "--- A/sorter.py" in out and "+++ B/sorter.py" in out
    assert main(["compare", a, b, "--store", str(db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["a"]["attempt"] == a and doc["b"]["attempt"] == b and doc["same_challenge"] is True
    assert [r["component"] for r in doc["components"]][-1] == "total"
    assert doc["scorecards"]["b"]["total"] == doc["b"]["total"]
    assert any(r["a"] and r["b"] for r in doc["timeline"]) or len(doc["timeline"]) > 5
    assert any(f["path"] == "sorter.py" for f in doc["diff"]["files"])
    html = tmp_path / "c.html"
    assert main(["compare", a, b, "--store", str(db), "--out", str(html)]) == 0
    text = html.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<script" not in text
    assert '<table class="tl">' in text and 'class="add"' in text and 'class="del"' in text
    md = tmp_path / "c.md"
    assert main(["compare", a, b, "--store", str(db), "--out", str(md)]) == 0
    assert "| component | A | B | B - A |" in md.read_text() and "```diff" in md.read_text()
    capsys.readouterr()
    assert main(["compare", a, "a-nosuch", "--store", str(db)]) == 2
    assert "a-nosuch" in capsys.readouterr().err
    assert main(["compare", a, b, "--store", str(db), "--out", str(tmp_path / "c.txt")]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["compare", a, b, "--store", str(tmp_path / "none.db")]) == 2


def _ev(t: float, kind: str, **data) -> Event:
    return Event(attempt="a-x", t=t, kind=kind, data=data)


def test_timeline_is_bounded_literal_and_aligned():
    hostile = "\x1b[31mred\x1b]0;title\x07 [b]markup[/b] " + "x" * 10_000
    evs = [_ev(float(i), "agent.output", text=hostile) for i in range(1000)]
    evs.append(_ev(500.0, "submission.judged", submission=1, score=50.0, result={}))
    lines = timeline(evs, max_activity=100)
    assert len(lines) == 102  # 100 output lines, the score, the marker
    assert all(len(x.text) <= 200 and "\x1b" not in x.text and "\x07" not in x.text for x in lines)
    assert any(x.kind == "score" for x in lines) and "900 more" in [x for x in lines if x.kind == "marker"][0].text
    # steps, once there, replace the raw output on the timeline
    stepped = timeline([_ev(1.0, "agent.output", text="raw"), _ev(1.0, "agent.step", step="command", text="$ ls")])
    assert [(x.kind, x.text) for x in stepped] == [("step:command", "$ ls")]
    rows = align(timeline([_ev(1.2, "file.read", path="a")]), timeline([_ev(1.7, "file.read", path="b")]))
    assert len(rows) == 1 and rows[0].a.text == "read a" and rows[0].b.text == "read b"


def test_diff_is_bounded_on_hostile_trees(tmp_path):
    ra, rb = tmp_path / "a", tmp_path / "b"
    ra.mkdir()
    rb.mkdir()
    # repeated lines (difflib's worst case), a binary, a huge file, a file on one side only
    (ra / "rep.py").write_text("".join(f"l{i % 95}\n" for i in range(40_000)))
    (rb / "rep.py").write_text("".join(f"l{(i * 7) % 95}\n" for i in range(40_000)))
    (ra / "bin").write_bytes(b"\0\1\2")
    (rb / "bin").write_bytes(b"\0\1\3")
    (ra / "big.txt").write_bytes(b"a\n" * (D.MAX_FILE_BYTES // 2 + 1))
    (rb / "big.txt").write_bytes(b"b\n")
    (rb / "new.py").write_text("".join(f"print({i})  # \x1b[2J\n" for i in range(3000)))
    t0 = time.perf_counter()
    res = D.submission_diff(tmp_path, "a", "b")
    assert time.perf_counter() - t0 < 5
    files = {f.path: f for f in res.files}
    assert files["rep.py"].note == "too many lines to show the diff" and files["rep.py"].added > 0
    assert files["bin"].status == "binary" and files["big.txt"].status == "too_large"
    assert files["new.py"].status == "only_b"
    shown = sum(len(f.lines) for f in res.files)
    assert shown == D.MAX_LINES and res.truncated == 3001 - D.MAX_LINES  # one hunk header + 3000 lines
    assert not any("\x1b" in x for f in res.files for x in f.lines)
    missing = D.submission_diff(tmp_path, None, "nosuch")
    assert len(missing.notes) == 2 and not missing.files


def test_different_challenges_are_compared_and_said(pair):
    db, a, _ = pair

    async def add_other() -> None:  # another challenge's attempt, stored as the arena stores it
        from store import Store

        st = await Store.open(db)
        try:
            data = {"challenge": "rate-limiter", "agent": "scripted:naive", "format": "standard"}
            st.append(Event(attempt="a-other", t=0.0, kind="attempt.started", data=data, seq=1))
            await st.flush()
        finally:
            await st.close()

    asyncio.run(add_other())
    c = asyncio.run(compare(db, a, "a-other"))
    assert c.notes and "different challenges" in c.notes[0] and not c.same_challenge
    assert any("no scored submission" in n for n in c.diff.notes)
    for text in (render_text(c), render_markdown(c), render_html(c)):
        assert "different challenges" in text
