"""Each real agent package, run for real from its built tree with Debian's python (as in
the local sandbox), against the fake provider, on a copy of the off-by-one starter."""

from __future__ import annotations

import pytest

from arena.adapters import ensure_agent_tree, get_adapter
from harness import STARTER, TOKEN, describe, run_agent

pytestmark = pytest.mark.slow


def _common(run, min_calls: int) -> None:
    assert run.proc.returncode == 0, describe(run)
    reqs = run.provider.requests
    assert len(reqs) >= min_calls, describe(run)
    for r in reqs:
        auth = {k.lower(): v for k, v in r["headers"].items()}["authorization"]
        assert auth == f"Bearer {TOKEN}"
        assert r["path"] == "/v1/chat/completions"
        assert r["body"]["model"] == "fake-model"  # litellm strips the openai/ prefix
    fixed = (run.workspace / "sorter.py").read_text()
    assert fixed != (STARTER / "sorter.py").read_text()
    assert "    while start < n:\n" in fixed and "if keys[end] < keys[start]:" in fixed
    assert [c["argv"] for c in run.stub_calls if c["argv"][:1] == ["submit"]], describe(run)
    assert all(c["cwd"] == str(run.workspace) for c in run.stub_calls)
    leftovers = sorted(p.name for p in run.workspace.iterdir())
    assert leftovers == ["sorter.py", "test_sorter.py"], leftovers  # no .git, no histories


def test_mini_swe_agent_runs_edits_submits_and_reads_feedback(tmp_path):
    ad = get_adapter("mini-swe-agent")
    run = run_agent(ad, ensure_agent_tree(ad.name), "mini_swe_agent.yaml", tmp_path)
    _common(run, min_calls=5)
    verbs = [c["argv"] for c in run.stub_calls]
    assert verbs == [["submit"], ["feedback", "1"], ["submit"]], verbs
    # the tool results went back to the model: the last call saw the passing feedback
    last = run.provider.requests[-1]["body"]["messages"][-1]
    assert last["role"] == "tool" and "passed: 9" in last["content"]
    assert run.provider.requests[0]["body"]["tools"][0]["function"]["name"] == "bash"
    assert "Saved trajectory" in run.proc.stdout


def test_aider_runs_edits_submits_and_retries_on_feedback(tmp_path):
    ad = get_adapter("aider")
    run = run_agent(ad, ensure_agent_tree(ad.name), "aider.yaml", tmp_path)
    _common(run, min_calls=2)
    assert [c["argv"] for c in run.stub_calls] == [["submit"], ["submit"]]
    streamed = [r for r in run.provider.requests if r["body"].get("stream")]
    assert len(streamed) >= 2  # the task, then the failing feedback handed back
    second = streamed[1]["body"]["messages"][-1]["content"]
    assert "failed: 1" in second and "Not all tests pass" in second
    assert "All reported tests pass" in run.proc.stdout
