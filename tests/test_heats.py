"""Heats (issue 34, CONTRACT §11): each `gauntlet arena`/`run` command is a heat; its
attempts carry its id; `attempts|leaderboard --heat`; `arena --headless` ends with the heat's
standings; a hung or infra-error attempt is listed, flagged and never a rated game;
`gauntlet attempts rm` removes attempts and their files, never a running one.

Real commands as subprocesses, on the local backend, real SQLite stores. The hung contestant
is a real host process (an agent file) that prints one line and then sleeps: the watchdog
ends it after the package's hang limit (3 real seconds for an agent file)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from arena.challenge import resolve_challenge

SCALE = 120


def gauntlet(*args, timeout=240):
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def as_json(*args):
    out = gauntlet(*args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def standings_block(stdout: str) -> tuple[list[str], str, list[str]]:
    """(lines before the Standings line, that line, the lines after it)."""
    lines = stdout.strip().splitlines()
    i = next(i for i, line in enumerate(lines) if "Standings" in line)
    return lines[:i], lines[i], lines[i + 1 :]


def judged_total(db: Path, attempt: str) -> float:
    """The scorecard total `gauntlet judge` gives (the same function, in this process)."""
    from arena.scoring import judge_attempt
    from arena.scoring.load import attempt_events

    _, events = asyncio.run(attempt_events(db, attempt))
    return judge_attempt(events).total


def query(db: Path, sql: str, *params: object) -> list[tuple]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql, params).fetchall()


@pytest.fixture
def heat_plan(tmp_path: Path) -> Path:
    """off-by-one twice: bundled (for two scripted agents) and a copy, same id, whose hang
    limit is 3 s (for the sleeper), so all three play the same challenge."""
    pkg = tmp_path / "pkg"
    shutil.copytree(resolve_challenge("off-by-one"), pkg)
    manifest = pkg / "challenge.yaml"
    manifest.write_text(manifest.read_text() + "\nhang_limit: 3\n")
    (tmp_path / "sleeper.yaml").write_text(
        yaml.safe_dump({"name": "sleeper", "command": ["sh", "-c", "echo looking around; exec sleep 600"]})
    )
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "schema": "gauntlet.plan/v1",
                "parallel": 3,
                "time_scale": SCALE,
                "sandbox": "local",
                "attempts": [
                    {"challenge": "off-by-one", "agents": ["scripted:naive", "scripted:elite"]},
                    {"challenge": "pkg", "agents": ["sleeper.yaml"]},
                ],
            }
        )
    )
    return plan


def test_heats_standings_leaderboard_and_rm(tmp_path: Path, heat_plan: Path) -> None:
    db = tmp_path / "g.db"
    arena = gauntlet("arena", heat_plan, "--headless", "--store", db)
    assert arena.returncode == 0, arena.stderr[-3000:]
    before, head, rows = standings_block(arena.stdout)
    ids = before[-3:]  # the attempt ids alone, then the standings: the last lines
    assert all(i.startswith("a-") and " " not in i for i in ids)
    listed = as_json("attempts", "--json", "--store", db)
    heats = {r["heat"] for r in listed}
    assert len(heats) == 1 and None not in heats
    (heat,) = heats
    assert head == f"Standings — heat {heat}: 3 contestants"
    assert len(rows) == 3 and sorted(r.split()[1] for r in rows) == sorted(ids)  # one line each, this heat only
    by_id = {r.split()[1]: r for r in rows}
    agents = {r["attempt"]: r["agent"] for r in listed}
    hung = next(a for a, name in agents.items() if name == "sleeper")
    assert by_id[hung].split()[0] == "-" and "total -" in by_id[hung] and by_id[hung].endswith("hung")
    assert query(db, "SELECT status, reason FROM attempts WHERE id = ?", hung) == [("finished", "agent hung")]
    for aid in set(ids) - {hung}:  # each total as `gauntlet judge` gives it; the better one first
        assert f"total {judged_total(db, aid):g}" in by_id[aid].split("  ")
    ranked = [r.split()[1] for r in rows if r.split()[0] != "-"]
    assert [agents[a] for a in ranked] == ["scripted:elite", "scripted:naive"]

    # a second heat: `run` keeps its attempt id alone on the last line, its standings before it
    run = gauntlet(
        "run", "off-by-one", "--agent", "scripted:elite", "--time-scale", SCALE, "--sandbox", "local",
        "--headless", "--store", db,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    solo = run.stdout.strip().splitlines()[-1]
    _, run_head, run_rows = standings_block(run.stdout)
    assert run_rows[:-1] and len(run_rows[:-1]) == 1 and solo in run_rows[0] and run_rows[-1] == solo
    listed = as_json("attempts", "--json", "--store", db)
    assert len(listed) == 4 and listed[0]["attempt"] == solo and listed[0]["heat"] not in heats
    assert listed[0]["heat"] in run_head
    assert sorted(r["attempt"] for r in as_json("attempts", "--heat", heat, "--json", "--store", db)) == sorted(ids)
    plain = gauntlet("attempts", "--heat", listed[0]["heat"], "--store", db)
    assert plain.returncode == 0 and solo in plain.stdout and not any(i in plain.stdout for i in ids)
    for cmd in (("attempts", "--heat", "r-nope"), ("leaderboard", "--heat", "r-nope")):
        bad = gauntlet(*cmd, "--store", db)
        assert bad.returncode == 2 and "--heat r-nope: unknown heat" in bad.stderr and "Traceback" not in bad.stderr

    # games: two attempts of different agents on one challenge; the hung one is none
    board = as_json("leaderboard", "--json", "--store", db)
    games = {r["agent"]: r["games"] for c in board["classes"] for r in c["agents"]}
    assert games == {"scripted:elite": 2, "scripted:naive": 2}  # both elites met the naive
    assert [(u["attempt"], u["flag"], u["rated"]) for u in board["unrated"]] == [(hung, "hung", False)]
    mine = as_json("leaderboard", "--heat", heat, "--json", "--store", db)
    assert mine["heat"] == heat
    assert {r["agent"]: r["games"] for c in mine["classes"] for r in c["agents"]} == {
        "scripted:elite": 1,
        "scripted:naive": 1,
    }
    assert [u["attempt"] for u in mine["unrated"]] == [hung]

    # an infrastructure error is unrated too (injected: the attempt's status as the arena sets it)
    naive = next(a for a in ids if agents[a] == "scripted:naive")
    asyncio.run(_set_status(db, naive, "infra_error", "sandbox: injected by the test"))
    mine = as_json("leaderboard", "--heat", heat, "--json", "--store", db)
    assert {u["attempt"]: u["flag"] for u in mine["unrated"]} == {hung: "hung", naive: "infra_error"}
    assert [(r["agent"], r["rated"]) for r in mine["agents"]] == [("scripted:elite", False)]  # no opponent left
    text = gauntlet("leaderboard", "--heat", heat, "--store", db).stdout
    assert f"{naive}  scripted:naive  off-by-one  infra_error" in text and f"{hung}  sleeper  off-by-one  hung" in text

    # rm: all or nothing, files too
    workspace = db.with_name("g.db.d") / "workspaces" / hung
    assert workspace.is_dir()
    bad = gauntlet("attempts", "rm", hung, "a-00000000", "--store", db)
    assert bad.returncode == 2 and "unknown attempt(s) a-00000000" in bad.stderr and "nothing removed" in bad.stderr
    assert workspace.is_dir()
    gone = gauntlet("attempts", "rm", hung, naive, "--store", db)
    assert gone.returncode == 0 and f"removed 2 attempt(s): {hung}, {naive}" in gone.stdout, gone.stderr
    assert not workspace.exists()
    assert {r for (r,) in query(db, "SELECT id FROM attempts")} == set(ids) - {hung, naive} | {solo}
    with sqlite3.connect(db) as conn:
        for table, col in (("events", "attempt"), ("submissions", "attempt"), ("feedback", "attempt")):
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE {col} IN (?, ?)", (hung, naive)).fetchone() == (0,)
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):  # the log is append-only again
            conn.execute("DELETE FROM events WHERE attempt = ?", (solo,))


async def _set_status(db: Path, attempt: str, status: str, reason: str) -> None:
    from store import Store

    async with await Store.open(db) as st:
        await st.set_status(attempt, status, reason)


def test_rm_refuses_a_running_attempt(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gauntlet_tui", "run", "off-by-one", "--agent", "scripted:elite",
         "--sandbox", "local", "--headless", "--store", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        aid = None
        deadline = time.monotonic() + 120
        while aid is None and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)  # a real process starting: nothing to inject a clock into
            aid = _started(db)
        assert aid is not None, proc.stderr.read() if proc.poll() is not None else "no attempt.started"
        refused = gauntlet("attempts", "rm", aid, "--store", db)
        assert refused.returncode == 2 and f"still running: {aid} (pid {proc.pid})" in refused.stderr
        assert "nothing removed" in refused.stderr
    finally:
        proc.send_signal(signal.SIGTERM)  # ends the attempt as interrupted, as Ctrl-C does
        proc.communicate(timeout=120)
    assert as_json("attempts", "--json", "--store", db)[0]["status"] == "interrupted"
    removed = gauntlet("attempts", "rm", aid, "--store", db)
    assert removed.returncode == 0 and aid in removed.stdout
    assert as_json("attempts", "--json", "--store", db) == []


def _started(db: Path) -> str | None:
    if not db.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT attempt FROM events WHERE kind = 'attempt.started'").fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else str(row[0])
