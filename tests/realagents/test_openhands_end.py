"""Issue 34 item 8 with the real OpenHands (openhands-sdk 1.58 on the tree's Python 3.13), on
a real OpenAI model name: `gauntlet run off-by-one --agent openhands --model
openai/gpt-4.1-mini` against a stand-in provider whose every answer is the same terminal
call (tests/fakes/scripts/openhands_stuck.yaml). Left on auto, its SDK would send this name
to POST /v1/responses: every call is Chat Completions. Its own stuck detector stops it
(status STUCK, exit 0), and agent.exited says so (`end_reason: stuck`), not "exited
normally"; the attempt ends as the agent's own failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from e2e_kit import run_agent

from provider import FakeProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fakes" / "scripts" / "openhands_stuck.yaml"
pytestmark = pytest.mark.slow


def test_openhands_stuck_on_gpt_4_1_mini_is_recorded_as_stuck_over_chat_completions(tmp_path):
    with FakeProvider.from_yaml(SCRIPT, model="gpt-4.1-mini") as fp:
        env = dict(
            os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY="sk-host-oh-1", GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        run, show = run_agent("openhands", "openai/gpt-4.1-mini", "local", tmp_path / "g.db", env, time_scale=None)
        requests = list(fp.requests)
    posts = [r["path"] for r in requests]
    assert posts and set(posts) == {"/v1/chat/completions"}, posts  # never /v1/responses
    assert 4 <= len(posts) <= 8, len(posts)  # stopped by its detector, before the script ran out
    [exited] = [e for e in show["events"] if e["kind"] == "agent.exited"]
    assert exited["exit_code"] == 0 and exited["end_reason"] == "stuck", exited
    assert exited["detail"].startswith("openhands failed (stuck): ") and "normally" not in exited["detail"]
    [fin] = [e for e in show["events"] if e["kind"] == "attempt.finished"]
    assert fin["reason"].startswith("agent failed: openhands failed (stuck)"), fin
    assert "agent exited: openhands failed (stuck)" in run.stdout + run.stderr
