"""OpenHands end to end (issue 21): OpenHands' own agent loop (openhands-sdk 1.58 on the
tree's own Python 3.13) takes off-by-one through `gauntlet run --agent openhands --model
openai/...`, its LiteLLM speaking Chat Completions (streamed) to the gateway, against a
stand-in provider of the test's own replaying recorded answers
(tests/fakes/scripts/openhands.yaml): it looks for the host's key in the sandbox, reads the
code, runs the tests, edits, submits with `gauntlet-agent submit` and finishes. The store
holds one model.call per request with the stand-in's token counts, observed commands and a
judged submission."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from e2e_kit import BACKENDS, cli, run_agent
from steps_check import assert_steps

from provider import FakeProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fakes" / "scripts" / "openhands.yaml"
HOST_KEY = "sk-host-openhands-SECRET-55"  # the script's scan looks for exactly this
pytestmark = pytest.mark.slow


def _tool_text(msg: dict) -> str:
    c = msg.get("content")
    text = c if isinstance(c, str) else " ".join(p.get("text", "") for p in c or [] if isinstance(p, dict))
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)  # its pty's bracketed-paste marks


@pytest.mark.parametrize("sandbox", BACKENDS)
def test_openhands_takes_off_by_one_through_chat_completions(tmp_path, sandbox):
    db = tmp_path / "g.db"
    with FakeProvider(yaml.safe_load(SCRIPT.read_text())["turns"], strict=True) as fp:
        env = dict(
            os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        run, show = run_agent("openhands", "openai/fake-model", sandbox, db, env, time_scale=None)
        requests, answers = list(fp.requests), list(fp.answers)
        usages = [fp._usage(r["body"], a) for r, a in zip(requests, answers)]
    aid, events = show["attempt"], show["events"]
    # LiteLLM called Chat Completions on the gateway, streamed; the gateway forwarded with the host's key
    assert len(requests) >= 5, run.stdout[-2000:] + run.stderr[-2000:]
    assert all(r["path"] == "/v1/chat/completions" and r["body"]["stream"] for r in requests)
    assert all(r["headers"].get("Authorization") == f"Bearer {HOST_KEY}" for r in requests)
    # the host key is nowhere in the sandbox: the scan (first call) found no file, no environ
    scan = _tool_text([m for m in requests[1]["body"]["messages"] if m["role"] == "tool"][-1])
    assert "SCAN-DONE" in scan, scan
    found = scan.split("SCAN-DONE")[0].split()
    assert found[-1:] == ["0"] and not [w for w in found if w.startswith("/")], scan
    # one model.call per request, with the stand-in's own token counts
    calls = [e for e in events if e["kind"] == "model.call"]
    assert len(calls) == len(requests) >= 2
    assert [(c["input_tokens"], c["output_tokens"]) for c in calls] == [
        (u["prompt_tokens"], u["completion_tokens"]) for u in usages
    ]
    assert show["usage"]["calls"] == len(calls)
    assert show["usage"]["tokens"] == sum(u["total_tokens"] for u in usages)
    assert [e["name"] for e in events if e["kind"] == "model.tool_call"].count("terminal") >= 4
    # observed: its commands; it edited, submitted, got feedback and finished
    observed = [e for e in events if e["kind"] == "command.run" and e.get("observed")]
    assert any("pytest" in " ".join(e["argv"]) or e["argv"][:1] == ["sed"] for e in observed), observed
    kinds = [e["kind"] for e in events]
    assert "file.changed" in kinds and "submission.received" in kinds
    judged = [s for s in show["submissions"] if s["feedback"]]
    assert judged, show["submissions"]
    # its events as steps (issue 35): its commands, and the finish message as text
    assert_steps(events, ("text", "command"), (("command", "$ gauntlet-agent submit"),))
    assert answers[-1]["tool_calls"][0]["function"]["name"] == "finish"  # the feedback reached it
    transcript = cli("show", aid, "--transcript", "--store", str(db), env=env).stdout
    assert f"{len(calls)} model call(s)" in transcript and HOST_KEY not in transcript
    card = json.loads(cli("judge", aid, "--json", "--store", str(db), env=env).stdout)
    assert card["usage"]["calls"] == len(calls)
