"""The adapter registry, their argv/env/task text, the tree key, and the fake provider."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fakes"))
from provider import FakeProvider  # noqa: E402

from arena.adapters import get_adapter, names  # noqa: E402
from arena.adapters.build import tree_key  # noqa: E402
from arena.errors import UsageError  # noqa: E402


def test_registry_names_and_unknown():
    assert names() == ["aider", "claude-code", "codex", "mini-swe-agent", "openhands"]
    with pytest.raises(
        UsageError, match="unknown adapter 'opendevin'.*aider, claude-code, codex, mini-swe-agent, openhands"
    ):
        get_adapter("opendevin")


@pytest.mark.parametrize("bad", ["gpt-4.1", "azure/gpt", "openai/", ""])
def test_model_must_be_provider_slash_model(bad):
    with pytest.raises(UsageError, match="--model"):
        get_adapter("aider").command(bad, "/tmp/t", "/workspace")


def test_mini_command_is_unattended():
    argv = get_adapter("mini-swe-agent").command("openai/gpt-4.1-mini", "/tmp/task.md", "/workspace")
    assert argv[0] == "/opt/gauntlet/agents/mini-swe-agent/bin/gauntlet-mini"
    for flag in ("--yolo", "--exit-immediately", "--task-file"):
        assert flag in argv
    assert argv[argv.index("--model") + 1] == "openai/gpt-4.1-mini"
    assert "environment.timeout=900" in argv and "environment.cwd=/workspace" in argv


def test_aider_command_is_unattended():
    argv = get_adapter("aider").command("openai/x", "/tmp/task.md", "/workspace")
    for flag in (
        "--yes-always",
        "--no-git",
        "--no-check-update",
        "--analytics-disable",
        "--auto-test",
        "--no-show-model-warnings",
    ):
        assert flag in argv
    assert argv[argv.index("--edit-format") + 1] == "diff"
    assert argv[argv.index("--test-cmd") + 1] == "/opt/gauntlet/agents/aider/bin/gauntlet-submit-check"
    assert argv[argv.index("--message-file") + 1] == "/tmp/task.md"


@pytest.mark.parametrize("name", ["aider", "mini-swe-agent"])
def test_env_is_non_secret_and_under_tmp(name):
    env = get_adapter(name).env("openai/x")
    assert not any(k.endswith(("_KEY", "_TOKEN", "_BASE_URL", "_API_BASE")) for k in env)
    for k in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        assert env[k].startswith("/tmp")
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_task_text_says_how_to_submit():
    text = get_adapter("aider").task_text("# The Brief\nFix it.", "/workspace")
    assert text.startswith("# The Brief\nFix it.")
    for verb in ("gauntlet-agent submit", "gauntlet-agent feedback [N]", "gauntlet-agent status"):
        assert verb in text


def test_pins_match_versions_and_tree_key_is_stable():
    for name in names():
        ad = get_adapter(name)
        assert ad.pins()[ad.package] == ad.version
        assert all("--hash=sha256:" in ln for ln in ad.lock_text().splitlines() if ln and not ln.startswith("#"))
        assert tree_key(ad) == tree_key(ad)
    assert tree_key(get_adapter("aider")) != tree_key(get_adapter("mini-swe-agent"))


def _post(url: str, body: dict, key: str = "k1") -> tuple[str, bytes]:
    req = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers["Content-Type"], r.read()


def test_fake_provider_replays_plain_streamed_and_matched():
    turns = [
        {"content": "first"},
        {"when": "feedback", "content": "matched"},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]},
    ]
    with FakeProvider(turns) as fp:
        _, raw = _post(fp.base_url, {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        a = json.loads(raw)
        assert a["choices"][0]["message"]["content"] == "first"
        assert a["usage"]["prompt_tokens"] == 1 and a["usage"]["total_tokens"] == 2
        _, raw = _post(fp.base_url, {"model": "m", "messages": [{"role": "user", "content": "here is the feedback"}]})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "matched"
        ctype, raw = _post(
            fp.base_url,
            {
                "model": "m",
                "stream": True,
                "stream_options": {"include_usage": True},
                "messages": [{"role": "user", "content": "go"}],
            },
            key="k2",
        )
        assert ctype == "text/event-stream"
        events = [ln[6:] for ln in raw.decode().splitlines() if ln.startswith("data: ")]
        assert events[-1] == "[DONE]"
        chunks = [json.loads(e) for e in events[:-1]]
        calls = [c for ch in chunks for ch_ in ch["choices"] for c in ch_["delta"].get("tool_calls", [])]
        assert json.loads(calls[0]["function"]["arguments"]) == {"command": "ls"}
        assert chunks[-1]["usage"]["completion_tokens"] >= 1
        _, raw = _post(fp.base_url, {"model": "m", "messages": [{"role": "user", "content": "x"}]})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "I am done."  # spent
    auth = [r["headers"]["Authorization"] for r in fp.requests]
    assert auth == ["Bearer k1", "Bearer k1", "Bearer k2", "Bearer k1"]
    assert fp.requests[2]["body"]["stream"] is True
