"""`gauntlet judge`, `gauntlet report` and `gauntlet leaderboard` against a real SQLite store."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from scenarios import iteration
from eventkit import Attempt

from gauntlet_tui.cli import main
from store import Store


def _attempt(
    aid: str, scores: list[int], *, agent="scripted:elite", challenge="off-by-one", weight_class="lightweight"
) -> list:
    a = Attempt("standard", attempt=aid, agent=agent, challenge=challenge, weight_class=weight_class)
    for s in scores:
        iteration(a, s)
    return a.finish()


def _store(path, attempts: list[list]) -> None:
    async def go():
        st = await Store.open(path)
        try:
            for events in attempts:
                for e in events:
                    st.append(e)
            await st.flush()
        finally:
            await st.close()

    asyncio.run(go())


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "g.db"
    _store(path, [_attempt("a-00000001", [62, 84, 93]), _attempt("a-00000002", [40, 35, 60], agent="scripted:naive")])
    return path


def test_judge_json_is_contract_shape_and_stable(db, capsys):
    assert main(["judge", "a-00000001", "--json", "--store", str(db)]) == 0
    first = capsys.readouterr().out
    doc = json.loads(first)
    for key in (
        "attempt",
        "challenge",
        "agent",
        "format",
        "weight_class",
        "trajectory",
        "components",
        "weights",
        "total",
        "process_adjustments",
        "flags",
        "phases",
    ):
        assert key in doc
    assert doc["attempt"] == "a-00000001" and doc["trajectory"] == [62.0, 84.0, 93.0]
    assert set(doc["components"]) == {"objective", "process", "strategy", "integrity"}
    assert all({"rule", "points", "evidence"} <= set(a) for a in doc["process_adjustments"])
    assert main(["judge", "a-00000001", "--json", "--store", str(db)]) == 0
    assert capsys.readouterr().out == first  # byte-identical re-judging


def test_judge_text(db, capsys):
    assert main(["judge", "a-00000002", "--store", str(db)]) == 0
    out = capsys.readouterr().out
    assert "trajectory_regression" in out and "total" in out


def test_judge_unknown_attempt_exit_2(db, capsys):
    assert main(["judge", "a-deadbeef", "--store", str(db)]) == 2
    err = capsys.readouterr().err
    assert "a-deadbeef" in err and "not found" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_judge_missing_store_exit_2(tmp_path, capsys):
    assert main(["judge", "a-00000001", "--store", str(tmp_path / "nope.db")]) == 2
    assert "no store" in capsys.readouterr().err


def test_judge_as_real_process(db):
    p = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "judge", "a-00000001", "--json", "--store", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["total"] > 0
    p = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "judge", "a-ffffffff", "--store", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "a-ffffffff" in p.stderr and "Traceback" not in p.stderr


def test_report_html_has_svg_plots(db, tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", "a-00000001", "--out", str(out), "--store", str(db)]) == 0
    html = out.read_text()
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    svgs = html.count("<svg")
    assert svgs == 2
    # each SVG is well-formed XML with its data marks
    import re

    blocks = re.findall(r"<svg.*?</svg>", html, flags=re.S)
    trajectory, times = (ET.fromstring(b) for b in blocks)
    ns = "{http://www.w3.org/2000/svg}"
    assert len(trajectory.findall(f"{ns}circle")) == 3
    assert trajectory.find(f"{ns}polyline") is not None
    assert len(times.findall(f"{ns}rect[@class='bar']")) == 3
    assert "monotonic_improvement" in html and "Feedback documents" in html


def test_report_markdown(db, tmp_path):
    out = tmp_path / "r.md"
    assert main(["report", "a-00000002", "--out", str(out), "--store", str(db)]) == 0
    md = out.read_text()
    assert md.startswith("# off-by-one") and "## Score trajectory" in md and "█" in md
    assert "regression_blindness" in md and "### Submission 3" in md


def test_report_bad_suffix_exit_2(db, tmp_path, capsys):
    assert main(["report", "a-00000001", "--out", str(tmp_path / "r.pdf"), "--store", str(db)]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and ".html or .md" in err


def test_report_unknown_attempt_exit_2(db, tmp_path, capsys):
    assert main(["report", "a-12345678", "--out", str(tmp_path / "r.html"), "--store", str(db)]) == 2
    assert "a-12345678" in capsys.readouterr().err


def test_leaderboard_json_and_text(tmp_path, capsys):
    path = tmp_path / "lb.db"
    atts = []
    for i in range(3):
        atts.append(_attempt(f"a-1000000{i}", [80, 95], agent="scripted:elite", challenge=f"lw{i}"))
        atts.append(_attempt(f"a-2000000{i}", [20, 30], agent="scripted:naive", challenge=f"lw{i}"))
    _store(path, atts)
    assert main(["leaderboard", "--json", "--store", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    agents = {r["agent"]: r for r in doc["agents"]}
    assert [r["agent"] for r in doc["agents"]] == ["scripted:elite", "scripted:naive"]
    assert agents["scripted:elite"]["elo"] > agents["scripted:naive"]["elo"]
    assert agents["scripted:elite"]["games"] == 3
    assert {c["challenge"] for c in doc["challenges"]} == {"lw0", "lw1", "lw2"}
    assert main(["leaderboard", "--store", str(path)]) == 0
    text = capsys.readouterr().out
    assert "scripted:elite" in text and "ELO" in text

    async def stored():
        st = await Store.open(path)
        try:
            return await st.ratings("agents")
        finally:
            await st.close()

    rows = {r["name"]: r for r in asyncio.run(stored())}
    assert rows["scripted:elite"]["rating"] == agents["scripted:elite"]["elo"]


def test_leaderboard_empty_store(tmp_path, capsys):
    assert main(["leaderboard", "--store", str(tmp_path / "none.db")]) == 0
    assert "no judged attempts" in capsys.readouterr().out
