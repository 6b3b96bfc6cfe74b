"""Errors the user causes stay the user's (issue 34, CONTRACT §11): an agent that calls a
model at a time scale other than 1, an adapter given another provider's model, an unknown
model prefix, a missing key, and the plan's own bad input (a display name given to two
agents, an unknown adapter, a heat over the machine's memory) each exit 2 naming the
flag or the plan's key, before anything is stored: no store file is created. The two
cases of "Done means" run as real subprocesses, the others through the same ``main``
in-process (no interpreter start each); a plan entry's display name reaches attempt.started."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from arena.attempt.plan import check_capacity, load_plan
from arena.errors import UsageError
from attempt_kit import make_package, open_arena

NO_KEYS = {"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "OPENAI_BASE_URL": "", "ANTHROPIC_BASE_URL": ""}
KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}


def gauntlet(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def cli(monkeypatch, capsys, *args, env=None) -> tuple[int, str]:
    """``gauntlet ARGS`` in this process: (exit code, stderr)."""
    from gauntlet_tui.cli import main

    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    capsys.readouterr()
    rc = main([str(a) for a in args])
    return rc, capsys.readouterr().err


@pytest.fixture
def pkg(tmp_path):
    return make_package(tmp_path / "pkg", fmt="sprint", agents={"naive": [{"wait": "30s"}, "submit"]})


def _nothing_stored(db) -> None:
    assert not db.exists() and not db.with_name(db.name + ".d").exists(), sorted(db.parent.iterdir())


@pytest.mark.parametrize(
    "args, said",
    [
        (["--agent", "codex", "--model", "openai/x", "--time-scale", "5"], ["--time-scale 5", "real time"]),
        (["--agent", "codex", "--model", "anthropic/x"], ["--model", "codex adapter", "openai/MODEL"]),
    ],
    ids=["sped-up", "codex-anthropic"],
)
def test_a_usage_error_of_run_exits_2_and_stores_nothing(tmp_path, pkg, args, said):
    db = tmp_path / "g.db"
    out = gauntlet("run", pkg, *args, "--sandbox", "local", "--store", db, "--headless", env=KEYS)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert all(s in out.stderr for s in said) and "Traceback" not in out.stderr, out.stderr
    _nothing_stored(db)


@pytest.mark.parametrize(
    "args, env, said",
    [
        (["--agent", "claude-code", "--model", "openai/x"], KEYS, ["--model", "claude-code adapter"]),
        (["--agent", "mini-swe-agent", "--model", "mistral/x"], KEYS, ["--model", "openai, anthropic"]),
        (["--agent", "codex", "--model", "openai/x"], NO_KEYS, ["OPENAI_API_KEY is not set"]),
    ],
    ids=["claude-openai", "unknown-prefix", "missing-key"],
)
def test_more_usage_errors_of_run(tmp_path, pkg, monkeypatch, capsys, args, env, said):
    db = tmp_path / "g.db"
    rc, err = cli(monkeypatch, capsys, "run", pkg, *args, "--sandbox", "local", "--store", db, "--headless", env=env)
    assert rc == 2 and all(s in err for s in said), err
    _nothing_stored(db)


def test_an_agent_file_with_a_model_is_refused_a_sped_up_clock_and_one_without_keeps_it(
    tmp_path, pkg, monkeypatch, capsys
):
    with_model = tmp_path / "m.yaml"
    with_model.write_text(yaml.safe_dump({"name": "m", "command": ["true"], "model": "openai/x"}))
    db = tmp_path / "g.db"
    rc, err = cli(monkeypatch, capsys, "run", pkg, "--agent", with_model, "--time-scale", "3", "--store", db, env=KEYS)
    assert rc == 2 and "--time-scale 3" in err and "openai/x" in err, err
    _nothing_stored(db)
    from arena.agents.agent_file import require_real_time

    plain = tmp_path / "p.yaml"
    plain.write_text(yaml.safe_dump({"name": "p", "command": ["true"]}))
    require_real_time(str(plain), 60, "--time-scale")  # a command agent without a model: allowed
    require_real_time("scripted:naive", 60, "--time-scale")


def _plan(tmp_path, doc: dict) -> object:
    p = tmp_path / "plan.yaml"
    p.write_text(yaml.safe_dump({"schema": "gauntlet.plan/v1", "sandbox": "local", **doc}))
    return p


@pytest.mark.parametrize(
    "doc, said",
    [
        (
            {"time_scale": 60, "attempts": [{"challenge": "pkg", "agents": ["scripted:naive", "codex@openai/x"]}]},
            ["key 'time_scale'", "attempts[0].agents", "real time"],
        ),
        (
            {"attempts": [{"challenge": "pkg", "agents": ["mini-swe-agent"], "model": "openai/x", "time_scale": 5}]},
            ["key 'attempts[0].time_scale'", "real time"],
        ),
        (
            {"attempts": [{"challenge": "pkg", "agents": ["codex@anthropic/x"]}]},
            ["key 'attempts[0].agents[0]'", "codex adapter"],
        ),
        (
            {"attempts": [{"challenge": "pkg", "agents": ["codx@openai/x"]}]},
            ["key 'attempts[0].agents[0]'", "no built-in adapter 'codx' (did you mean codex?)"],
        ),
        (
            {
                "attempts": [
                    {"challenge": "pkg", "agents": ["scripted:naive"], "name": "Nick"},
                    {"challenge": "pkg", "agents": ["codex@openai/x"], "name": "nick"},
                ]
            },
            ["key 'attempts[1].name'", "'nick' is already attempts[0]'s"],
        ),
        (
            {"attempts": [{"challenge": "pkg", "agents": ["scripted:naive", "scripted:naive"], "name": "Two"}]},
            ["key 'attempts[0].name'", "one contestant"],
        ),
        (
            {"parallel": 64, "attempts": [{"challenge": "pkg", "agents": ["scripted:naive"], "repeat": 64}]},
            ["key 'parallel'", "64 attempts at once need", "MiB"],
        ),
    ],
    ids=["scale-top", "scale-entry", "provider", "unknown-adapter", "duplicate-name", "name-two-agents", "capacity"],
)
def test_a_bad_plan_exits_2_naming_the_plan_and_entry_and_stores_nothing(tmp_path, pkg, monkeypatch, capsys, doc, said):
    plan = _plan(tmp_path, doc)
    db = tmp_path / "g.db"
    rc, err = cli(monkeypatch, capsys, "arena", plan, "--store", db, "--headless", env=KEYS)
    assert rc == 2 and str(plan) in err and all(s in err for s in said), err
    _nothing_stored(db)


def test_plan_rules_that_pass(tmp_path, pkg):
    plan = _plan(
        tmp_path,
        {
            "time_scale": 60,  # the scripted agent keeps it; the model agent's entry says 1
            "attempts": [
                {"challenge": "pkg", "agents": ["scripted:naive"], "name": "Nick"},
                {"challenge": "pkg", "agents": ["codex@openai/x"], "time_scale": 1, "name": "Codex"},
                {"challenge": str(pkg), "agents": ["scripted:naive"], "name": "Nick"},  # the same contestant again
            ],
        },
    )
    got = load_plan(plan)
    assert [(p.agent, p.time_scale, p.name) for p in got.attempts] == [
        ("scripted:naive", 60.0, "Nick"),
        ("codex@openai/x", 1.0, "Codex"),
        ("scripted:naive", 60.0, "Nick"),
    ]
    check_capacity(plan, [("attempts[0]", 1088.0)] * 4, parallel=2, total_mb=4096)  # 2 at once fit
    with pytest.raises(UsageError, match="key 'parallel': 3 attempts at once need 3264 MiB"):
        check_capacity(plan, [("attempts[0]", 1088.0)] * 4, parallel=3, total_mb=4096)


async def test_a_display_name_is_recorded_as_the_contestant(tmp_path, pkg):
    plan = _plan(tmp_path, {"attempts": [{"challenge": "pkg", "agents": ["scripted:naive"], "name": "Naive Nick"}]})
    [pa] = load_plan(plan).attempts
    from arena.challenge import load_challenge

    arena = await open_arena(tmp_path)
    try:
        named = arena.attempt(load_challenge(pkg), pa.spec)
        plain = arena.attempt(load_challenge(pkg), "scripted:naive")
        assert named.contestant == "Naive Nick" and plain.contestant is None
        assert named.started_data()["contestant"] == "Naive Nick" and "contestant" not in plain.started_data()
    finally:
        await arena.close()
