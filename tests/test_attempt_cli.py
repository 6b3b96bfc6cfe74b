"""The commands: run, arena, attempts, show (CONTRACT §5) as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from arena.attempt.plan import load_plan
from arena.errors import UsageError
from attempt_kit import make_package


def gauntlet(*args, env=None, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def pkg(tmp_path):
    return make_package(
        tmp_path / "pkg",
        fmt="sprint",
        agents={
            "two": [
                {"wait": "30s"},
                {"overlay": "agents/half"},
                "submit",
                {"wait": "60s"},
                {"overlay": "agents/fixed"},
                "submit",
            ]
        },
    )


def test_run_headless_then_attempts_and_show(tmp_path, pkg):
    db = tmp_path / "g.db"
    out = gauntlet(
        "run", pkg, "--agent", "scripted:two", "--time-scale", "120", "--sandbox", "local", "--store", db, "--headless"
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    attempt = lines[-1]
    assert attempt.startswith("a-") and len(attempt) == 10 and " " not in attempt
    text = "\n".join(lines[:-1])
    assert "submission #1 received" in text and "submission #2 judged: score 100.0" in text
    assert "finished: finished" in text

    listed = gauntlet("attempts", "--json", "--store", db)
    assert listed.returncode == 0
    rows = json.loads(listed.stdout)
    assert rows[0]["attempt"] == attempt and rows[0]["status"] == "finished"
    assert {"attempt", "challenge", "agent", "format", "status", "start"} <= set(rows[0])
    table = gauntlet("attempts", "--store", db)
    assert attempt in table.stdout and "scripted:two" in table.stdout

    shown = gauntlet("show", attempt, "--json", "--store", db)
    assert shown.returncode == 0
    doc = json.loads(shown.stdout)
    assert set(doc) == {
        "attempt",
        "challenge",
        "agent",
        "format",
        "status",
        "submissions",
        "events",
        "usage",
        "node",
    }  # CONTRACT §8 usage, §9 node
    assert (doc["attempt"], doc["challenge"], doc["agent"], doc["format"], doc["status"]) == (
        attempt,
        "kit-sprint",
        "scripted:two",
        "sprint",
        "finished",
    )
    assert [s["submission"] for s in doc["submissions"]] == [1, 2]
    assert all(set(s) == {"submission", "at", "feedback"} for s in doc["submissions"])
    assert doc["submissions"][1]["feedback"]["tests"]["passed"] == 4
    kinds = [e["kind"] for e in doc["events"]]
    assert kinds[0] == "attempt.started" and kinds[-1] == "attempt.finished"
    assert all(isinstance(e["t"], (int, float)) for e in doc["events"])
    for needed in ("submission.received", "feedback.delivered", "file.changed"):
        assert needed in kinds
    human = gauntlet("show", attempt, "--store", db)
    assert human.returncode == 0 and "submission #2" in human.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["run", "/nonexistent/pkg", "--agent", "scripted:x", "--headless"], "no such challenge"),
        (["run", "{pkg}", "--agent", "scripted:nobody", "--headless"], "nobody"),
        (["run", "{pkg}", "--agent", "nothing.yaml", "--headless"], "expected scripted:<name>, human"),
        (["run", "{pkg}", "--agent", "nothing.yaml", "--headless"], "codex, mini-swe-agent, openhands"),
        (
            ["run", "{pkg}", "--agent", "mini-swe-agnet", "--model", "openai/m", "--headless"],
            "no built-in adapter of that name (did you mean mini-swe-agent?)",
        ),
        (["run", "{pkg}", "--agent", "human", "--time-scale", "0", "--headless"], "--time-scale"),
        (["run", "{pkg}", "--agent", "human", "--time-scale", "-3", "--headless"], "--time-scale"),
        (["show", "a-00000000"], "unknown attempt"),
        (["arena", "/nonexistent/plan.yaml", "--headless"], "cannot read"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, pkg, args, needle):
    args = [a.replace("{pkg}", str(pkg)) for a in args]
    out = gauntlet(*args, "--store", tmp_path / "g.db")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert needle in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_arena_plan_runs_matrix_concurrently(tmp_path, pkg):
    agent_file = tmp_path / "fixer.yaml"
    agent_file.write_text(
        yaml.safe_dump(
            {
                "name": "fixer",
                "command": [
                    "sh",
                    "-c",
                    f'cp {pkg}/agents/fixed/calc.py "$GAUNTLET_WORKSPACE"/calc.py && gauntlet agent submit',
                ],
            }
        )
    )
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "schema": "gauntlet.plan/v1",
                "parallel": 3,
                "time_scale": 120,
                "sandbox": "local",
                "attempts": [{"challenge": "pkg", "agents": ["scripted:two", "fixer.yaml"], "repeat": 2}],
            }
        )
    )
    db = tmp_path / "g.db"
    out = gauntlet("arena", plan, "--headless", "--store", db)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    standings = next(i for i, line in enumerate(lines) if "Standings" in line)  # the heat's, last (issue 34)
    ids = lines[standings - 4 : standings]
    assert len(lines) == standings + 5  # one line per contestant
    assert len(set(ids)) == 4 and all(i.startswith("a-") and " " not in i for i in ids)
    rows = json.loads(gauntlet("attempts", "--json", "--store", db).stdout)
    assert sorted(r["attempt"] for r in rows) == sorted(ids)
    assert all(r["status"] == "finished" for r in rows)
    assert sorted(r["agent"] for r in rows).count("scripted:two") == 2


@pytest.mark.parametrize(
    "plan,needle",
    [
        ({"schema": "gauntlet.plan/v2", "attempts": []}, "key 'schema'"),
        ({"schema": "gauntlet.plan/v1", "paralel": 3, "attempts": []}, "key 'paralel'"),
        ({"schema": "gauntlet.plan/v1", "parallel": 0, "attempts": [{}]}, "key 'parallel'"),
        ({"schema": "gauntlet.plan/v1", "attempts": []}, "key 'attempts'"),
        ({"schema": "gauntlet.plan/v1", "attempts": [{"challenge": "pkg", "agents": []}]}, "key 'attempts[0].agents'"),
        (
            {"schema": "gauntlet.plan/v1", "attempts": [{"challenge": "nope", "agents": ["human"]}]},
            "key 'attempts[0].challenge'",
        ),
        (
            {"schema": "gauntlet.plan/v1", "attempts": [{"challenge": "pkg", "agents": ["x.yaml"]}]},
            "key 'attempts[0].agents[0]'",
        ),
        (
            {"schema": "gauntlet.plan/v1", "attempts": [{"challenge": "pkg", "agents": ["human"], "repeat": "2"}]},
            "key 'attempts[0].repeat'",
        ),
        (
            {"schema": "gauntlet.plan/v1", "sandbox": "vm", "attempts": [{"challenge": "pkg", "agents": ["human"]}]},
            "key 'sandbox'",
        ),
    ],
)
def test_plan_errors_name_the_key(tmp_path, pkg, plan, needle):
    p = tmp_path / "plan.yaml"
    p.write_text(yaml.safe_dump(plan))
    with pytest.raises(UsageError, match=needle.replace("[", r"\[").replace("]", r"\]")) as info:
        load_plan(p)
    assert str(p) in str(info.value)


def test_plan_repeat_and_bundled_ids(tmp_path, pkg):
    p = tmp_path / "plan.yaml"
    p.write_text(
        yaml.safe_dump(
            {
                "schema": "gauntlet.plan/v1",
                "time_scale": 60,
                "attempts": [
                    {"challenge": "pkg", "agents": ["scripted:two", "human"], "repeat": 3},
                    {"challenge": "off-by-one", "agents": "scripted:elite"},
                ],
            }
        )
    )
    plan = load_plan(p)
    assert len(plan.attempts) == 7 and plan.parallel == 4 and plan.time_scale == 60
    assert plan.attempts[-1].challenge.name == "off-by-one"


def test_agent_command_without_socket_is_usage_error():
    env = {k: v for k, v in os.environ.items() if k != "GAUNTLET_SOCKET"}
    out = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "agent", "status"], capture_output=True, text=True, env=env
    )
    assert out.returncode == 2 and "GAUNTLET_SOCKET" in out.stderr


def test_sigterm_closes_running_attempts_as_interrupted(tmp_path, pkg):
    import signal
    import sqlite3
    import time

    db = tmp_path / "g.db"
    socks = tmp_path / "socks"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            str(pkg),
            "--agent",
            "human",
            "--sandbox",
            "local",
            "--store",
            str(db),
            "--headless",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GAUNTLET_SOCKETS": str(socks)},
    )
    deadline = time.monotonic() + 30
    while not list(socks.glob("a-*/agent.sock")):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "closed as interrupted" in err
    con = sqlite3.connect(db)
    rows = con.execute("SELECT status, reason FROM attempts").fetchall()
    con.close()
    assert rows == [("interrupted", "stopped by the operator")]
    assert not list(socks.glob("a-*"))
