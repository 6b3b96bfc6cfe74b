"""Real time for real agents (issue 34; it was issue 21's "mini-swe-agent at x20 is not
hung"): the real mini-swe-agent at --time-scale 20 is now refused (exit 2, nothing
stored: a model's latency is real time). At x1, with a stand-in provider holding every
answer 4 real seconds, it runs to the end: not ended as hung while its Python starts
(its start-up, bounded by the adapter's start-up limit) or while it waits on its model,
and its first model call comes within that limit. Local backend, the real package, the
real gateway; the first call's instant is printed (docs/gateway.md quotes it)."""

from __future__ import annotations

import os

import pytest
from e2e_kit import SCRIPTS, cli, run_agent

from provider import FakeProvider

HOST_KEY = "sk-host-liveness-x1"
DELAY_S = 4.0
pytestmark = pytest.mark.slow


def test_mini_swe_agent_is_refused_x20_and_at_x1_with_a_slow_model_is_not_hung(tmp_path):
    db = tmp_path / "g.db"
    with FakeProvider.from_yaml(SCRIPTS / "mini_swe_agent.yaml") as fp:
        fp.delay_s = DELAY_S
        env = dict(
            os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        refused = cli(
            "run", "off-by-one", "--agent", "mini-swe-agent", "--model", "openai/fake-model", "--sandbox", "local",
            "--time-scale", "20", "--headless", "--store", str(db), env=env,
        )  # fmt: skip
        assert refused.returncode == 2 and "--time-scale 20" in refused.stderr, refused.stderr
        assert not db.exists() and not fp.requests
        _run, show = run_agent("mini-swe-agent", "openai/fake-model", "local", db, env)
        served = len(fp.requests)
    events = show["events"]
    kinds = [e["kind"] for e in events]
    assert "agent.hung" not in kinds, [e for e in events if e["kind"] in ("agent.hung", "attempt.finished")]
    started = next(e for e in events if e["kind"] == "attempt.started")
    assert started["time_scale"] == 1.0 and started["startup_limit_s"] == 180.0
    calls = [e for e in events if e["kind"] == "model.call"]
    assert served >= 3 and len(calls) == served, (served, len(calls))
    assert all(c["latency_ms"] >= DELAY_S * 1000 for c in calls), [c["latency_ms"] for c in calls]
    first_call = calls[0]["t"] - calls[0]["latency_ms"] / 1000
    print(f"mini-swe-agent: first model call sent {first_call:.1f} s after the clock started")
    assert first_call < started["startup_limit_s"]
    assert "submission.received" in kinds
    finished = [e for e in events if e["kind"] == "attempt.finished"][-1]
    assert "hung" not in str(finished.get("reason", "")) and "no activity" not in str(finished), finished
