"""Issue 20, item 6: an agent's identity is its agent file's ``name``, adapter and model, not
the file's path. A copy of the file is the same agent for a published challenge's 24 h
cooldown and for the leaderboard; ``attempts``, ``judge`` and ``leaderboard`` show it.
Real `gauntlet run` subprocesses (local sandbox), a real SQLite store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone


from arena.agents.agent_file import agent_identity, identity_label, load_agent_file
from arena.pipeline.publish_records import lifecycle
from attempt_kit import make_package

AGENT = 'name: m41\ncommand: ["sh", "-c", "cp $GAUNTLET_WORKSPACE/calc.py /dev/null"]\nwhere: host\n'


def gauntlet(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def _file(path, text=AGENT):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_identity_is_name_adapter_model_not_path(tmp_path):
    a, b = _file(tmp_path / "one" / "agent.yaml"), _file(tmp_path / "two" / "copy.yaml")
    assert load_agent_file(a).identity == load_agent_file(b).identity == "m41"
    assert agent_identity(str(a)) == agent_identity(str(b)) == "m41"
    adapter = "name: m41\nadapter: mini-swe-agent\nmodel: openai/gpt-4.1-mini\n"
    other = "name: m41\nadapter: mini-swe-agent\nmodel: openai/gpt-4.1\n"
    c, d = _file(tmp_path / "c.yaml", adapter), _file(tmp_path / "d.yaml", other)
    assert agent_identity(str(c)) == "m41 (mini-swe-agent, openai/gpt-4.1-mini)"
    assert agent_identity(str(d)) != agent_identity(str(c))  # another model: another contestant
    assert agent_identity("scripted:elite") == "scripted:elite" and agent_identity("human") == "human"
    assert agent_identity("mini-swe-agent@openai/gpt-4.1-mini") == "mini-swe-agent@openai/gpt-4.1-mini"
    assert identity_label("x", "command", None) == "x"


def test_a_copied_agent_file_is_the_same_agent_for_the_store_leaderboard_and_cooldown(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    db = tmp_path / "g.db"
    first, copy = _file(tmp_path / "a" / "agent.yaml"), _file(tmp_path / "b" / "renamed.yaml")
    ids = []
    for f in (first, copy):
        out = gauntlet(
            "run", pkg, "--agent", f, "--time-scale", "120", "--sandbox", "local", "--store", db, "--headless"
        )
        assert out.returncode == 0, out.stdout + out.stderr
        ids.append(out.stdout.strip().splitlines()[-1])

    rows = json.loads(gauntlet("attempts", "--json", "--store", db).stdout)
    assert {r["attempt"]: r["agent"] for r in rows} == {ids[0]: "m41", ids[1]: "m41"}
    card = json.loads(gauntlet("judge", ids[1], "--json", "--store", db).stdout)
    assert card["agent"] == "m41"
    shown = json.loads(gauntlet("show", ids[0], "--json", "--store", db).stdout)
    started = next(e for e in shown["events"] if e["kind"] == "attempt.started")
    assert started["agent"] == "m41" and started["agent_spec"] == str(first)  # the path stays as the spec

    board = json.loads(gauntlet("leaderboard", "--json", "--store", db).stdout)
    assert [(r["agent"], r["games"]) for r in board["agents"]] == [("m41", 2)]
    assert str(first) not in json.dumps(board) and str(copy) not in json.dumps(board)

    # publish the package as live now: the copy is refused by the 24 h cooldown of m41's attempts
    entry = tmp_path / "g.db.d" / "published" / "kit-sprint" / "1"
    entry.mkdir(parents=True)
    (entry / "metadata.json").write_text("{}")
    (entry / "lifecycle.json").write_text(json.dumps(lifecycle(datetime.now(timezone.utc))))
    (entry / "monitors.json").write_text(json.dumps({"challenge": "kit-sprint", "version": 1, "monitors": []}))
    third = _file(tmp_path / "c" / "third-copy.yaml")
    out = gauntlet(
        "run", pkg, "--agent", third, "--time-scale", "120", "--sandbox", "local", "--store", db, "--headless"
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "agent m41 started attempt" in out.stderr and "rule lifecycle.cooldown_period_s" in out.stderr
    assert "Traceback" not in out.stderr
    # another agent (another name) is not held by m41's cooldown
    other = _file(tmp_path / "d" / "agent.yaml", AGENT.replace("m41", "m42"))
    out = gauntlet(
        "run", pkg, "--agent", other, "--time-scale", "120", "--sandbox", "local", "--store", db, "--headless"
    )
    assert out.returncode == 0, out.stdout + out.stderr
