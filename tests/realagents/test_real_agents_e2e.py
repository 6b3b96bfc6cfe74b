"""CONTRACT §8 end to end: the real mini-swe-agent and aider packages take off-by-one
through `gauntlet run --agent NAME --model openai/...`, on both backends, with a fake
OpenAI-compatible provider of the test's own replaying recorded answers. Their calls go
through the gateway (the provider sees the host's key, never the attempt's token), they run
commands, edit files, submit and read feedback; the store holds model.call events with
token counts and observed command.run / file.read events; the scorecard uses them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from e2e_kit import BACKENDS, cli, run_agent
from steps_check import assert_steps

from provider import FakeProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "fakes" / "scripts"
HOST_KEY = "sk-host-e2e-9f8e7d6c5b4a"
pytestmark = pytest.mark.slow
STEPS = {  # the steps each must make: kinds, and (kind, text) pairs
    "mini-swe-agent": (("text", "command"), (("command", "$ gauntlet-agent submit"),)),
    "aider": (("read", "text", "edit", "command"), (("edit", "sorter.py +1 −1"),)),
}


@pytest.mark.parametrize("sandbox", BACKENDS)
@pytest.mark.parametrize("agent,script", [("mini-swe-agent", "mini_swe_agent.yaml"), ("aider", "aider.yaml")])
def test_real_agent_takes_off_by_one_through_the_gateway(tmp_path, agent, script, sandbox):
    db = tmp_path / "g.db"
    with FakeProvider.from_yaml(SCRIPTS / script) as fp:
        env = dict(
            os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        run, show = run_agent(agent, "openai/fake-model", sandbox, db, env, time_scale=None)
        requests = list(fp.requests)
    aid, events = show["attempt"], show["events"]
    kinds = [e["kind"] for e in events]
    # the gateway forwarded every call with the host's key, never the attempt's token
    assert requests and all(r["headers"].get("Authorization") == f"Bearer {HOST_KEY}" for r in requests)
    calls = [e for e in events if e["kind"] == "model.call"]
    assert len(calls) == len(requests)
    assert all(c["status"] == 200 and c["input_tokens"] > 0 and c["provider"] == "openai" for c in calls)
    assert show["usage"]["calls"] == len(calls) and show["usage"]["tokens"] > 0
    # observed telemetry of the agent's own processes
    observed = [e for e in events if e["kind"] == "command.run" and e.get("observed")]
    assert any(e["argv"] and e["argv"][0] in ("cat", "sed", "python3", "/bin/sh") for e in observed), observed
    assert any(e["kind"] == "file.read" and e.get("observed") and e["path"] == "sorter.py" for e in events)
    # it edited, submitted and received feedback
    assert "file.changed" in kinds and "submission.received" in kinds
    assert [s for s in show["submissions"] if s["feedback"]], show["submissions"]
    # its output as a handful of steps (issue 35): mini-swe-agent's trajectory, aider's edits
    assert_steps(events, *STEPS[agent])
    # ... and the feedback reached the model (the provider saw it in a later request)
    later = json.dumps([r["body"]["messages"] for r in requests[1:]])
    assert "passed" in later and "tests" in later
    card = json.loads(cli("judge", aid, "--json", "--store", str(db), env=env).stdout)
    assert card["usage"]["calls"] == len(calls)
    assert not any(f["rule"] == "unsandboxed_agent" for f in card["flags"])
    transcript = cli("show", aid, "--transcript", "--store", str(db), env=env).stdout
    assert f"{len(calls)} model call(s)" in transcript and HOST_KEY not in transcript
