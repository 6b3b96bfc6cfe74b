"""The provider preflight (issue 21): no key, a refused key and an unreachable base URL each
stop `gauntlet run` with exit 2 before an attempt is stored, naming the variable; a cost
limit on an unpriced model likewise; `gauntlet doctor` has a line per provider and per
built-in agent. Real CLI processes, a stand-in provider that checks keys."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arena.gateway.preflight import check_provider
from provider import FakeProvider

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-preflight-right-key"


def _env(**kw: str | None) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_")) and k != "GAUNTLET_PRICES"
    }
    env.update({k: v for k, v in kw.items() if v is not None})
    return env


def _run(tmp_path, *agent: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "run",
            "off-by-one",
            *agent,
            "--sandbox",
            "local",
            "--headless",
            "--store",
            str(tmp_path / "g.db"),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _attempts(tmp_path) -> int:
    db = tmp_path / "g.db"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as c:
        tables = {r[0] for r in c.execute("select name from sqlite_master where type='table'")}
        return c.execute("select count(*) from attempts").fetchone()[0] if "attempts" in tables else 0


@pytest.fixture
def fp():
    with FakeProvider([{"content": "x"}]) as p:
        p.key = KEY
        yield p


MINI = ("--agent", "mini-swe-agent", "--model", "openai/fake-model")


def test_no_key_exits_2_naming_the_variable_before_any_attempt(tmp_path, fp):
    r = _run(tmp_path, *MINI, env=_env(OPENAI_BASE_URL=fp.base_url))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "OPENAI_API_KEY is not set" in r.stderr and "Traceback" not in r.stderr
    assert _attempts(tmp_path) == 0 and not fp.requests


def test_a_refused_key_exits_2_naming_the_variable(tmp_path, fp):
    r = _run(tmp_path, *MINI, env=_env(OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY="sk-wrong"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "refused OPENAI_API_KEY (HTTP 401)" in r.stderr and f"OPENAI_BASE_URL={fp.base_url}" in r.stderr
    assert _attempts(tmp_path) == 0


def test_an_unreachable_base_url_exits_2_naming_the_variable(tmp_path):
    r = _run(tmp_path, *MINI, env=_env(OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY=KEY))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "OPENAI_BASE_URL=http://127.0.0.1:9/v1 does not answer" in r.stderr and "fix OPENAI_BASE_URL" in r.stderr
    assert _attempts(tmp_path) == 0


def test_a_cost_limit_on_an_unpriced_model_exits_2_before_any_attempt(tmp_path, fp):
    agent = tmp_path / "capped.yaml"
    agent.write_text(
        yaml.safe_dump(
            {"name": "capped", "adapter": "mini-swe-agent", "model": "openai/fake-model", "limits": {"cost_usd": 1.0}}
        )
    )
    r = _run(tmp_path, "--agent", str(agent), env=_env(OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=KEY))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "limits.cost_usd" in r.stderr and "has no price" in r.stderr
    assert _attempts(tmp_path) == 0


def test_the_checks_say_what_answers(fp):
    ok = check_provider("openai", {"OPENAI_BASE_URL": fp.base_url, "OPENAI_API_KEY": KEY})
    assert ok.ok and "1 model(s) listed" in ok.detail
    assert fp.requests == [] and fp.arrived.is_set() is False  # a GET: no model call
    missing = check_provider("anthropic", {})
    assert not missing.ok and missing.variable == "ANTHROPIC_API_KEY" and not missing.configured


def test_doctor_has_a_line_per_provider_and_per_agent(tmp_path, fp):
    r = subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", "doctor"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=_env(OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY="sk-wrong"),
        timeout=120,
    )
    lines = r.stdout.splitlines()
    openai = [ln for ln in lines if "provider openai" in ln]
    assert openai and openai[0].startswith("--") and "refused OPENAI_API_KEY (HTTP 401)" in openai[0], r.stdout
    assert any("provider anthropic" in ln and "ANTHROPIC_API_KEY is not set" in ln for ln in lines), r.stdout
    for name in ("mini-swe-agent", "aider"):
        assert any(ln.split()[1:3] == ["agent", name] for ln in lines), r.stdout
