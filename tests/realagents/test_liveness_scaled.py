"""Issue 21, "Done means": the real mini-swe-agent at --time-scale 20 is not ended as hung
while its Python starts or while it waits on its model. The stand-in provider holds every
answer 4 real seconds: 80 attempt-seconds at x20, past the 60 s idle limit if that limit
were counted on the attempt clock (it is counted in real seconds for a real agent, and a
model call in flight holds the watchdog). Local backend, the real package, real gateway."""

from __future__ import annotations

import os

import pytest
from e2e_kit import SCRIPTS, run_agent

from provider import FakeProvider

HOST_KEY = "sk-host-liveness-20x"
DELAY_S = 4.0
pytestmark = pytest.mark.slow


def test_mini_swe_agent_at_x20_with_a_slow_model_is_not_hung(tmp_path):
    db = tmp_path / "g.db"
    with FakeProvider.from_yaml(SCRIPTS / "mini_swe_agent.yaml") as fp:
        fp.delay_s = DELAY_S
        env = dict(
            os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        _run, show = run_agent("mini-swe-agent", "openai/fake-model", "local", db, env, time_scale="20")
        served = len(fp.requests)
    events = show["events"]
    kinds = [e["kind"] for e in events]
    assert "agent.hung" not in kinds, [e for e in events if e["kind"] in ("agent.hung", "attempt.finished")]
    calls = [e for e in events if e["kind"] == "model.call"]
    assert served >= 3 and len(calls) == served, (served, len(calls))
    assert all(c["latency_ms"] >= DELAY_S * 1000 for c in calls), [c["latency_ms"] for c in calls]
    assert "submission.received" in kinds
    finished = [e for e in events if e["kind"] == "attempt.finished"][-1]
    assert "hung" not in str(finished.get("reason", "")) and "no activity" not in str(finished), finished
