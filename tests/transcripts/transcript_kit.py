"""Stored attempts whose transcripts the REAL gateway wrote: a fake provider (tests/fakes)
answers, a scripted client speaks to the gateway as the agent would (Claude Code's
Anthropic stream with a side call and cache markers, Codex's Responses stream, a Chat
Completions agent), the gateway records every call, and the attempt's events (with the
gateway's own model.call events) are stored, so ``gauntlet show`` reads them back."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

import aiohttp
from anthropic_provider import AnthropicProvider
from eventkit import Attempt
from provider import FakeProvider
from responses_provider import ResponsesProvider
from scenarios import iteration

from arena.gateway import Gateway, UsageLimits
from arena.gateway.prices import Price, PriceTable
from store import Store

PRICES = PriceTable(
    {
        "anthropic/claude-sonnet-4-20250514": Price(3.0, 15.0),
        "openai/gpt-5-codex": Price(1.25, 10.0),
        "openai/gpt-4.1-mini": Price(0.40, 1.60),
    }
)
SYSTEM = "You are a coding agent in a timed arena.\n" + "\n".join(f"Rule {i}: be careful." for i in range(40))
TASK = "Fix the off-by-one in sorter.py so the tests pass."

# what each fake provider answers, in order (the client builds the next request from it)
CLAUDE_TURNS = [
    {"tool": "Bash", "input": {"command": "python -m pytest -q"}, "say": "Let me run the tests first."},
    {"tool": "Edit", "input": {"file_path": "sorter.py", "old_string": "n - 1", "new_string": "n"}},
    {"text": "Fixed the off-by-one in sorter.py; all tests pass."},
]
CODEX_TURNS = [
    {"call": "shell", "arguments": {"command": ["python", "-m", "pytest", "-q"]}},
    {"text": "All tests pass now: the loop bound was wrong."},
]
CHAT_TURNS = [
    {"content": "Let me look at the file.", "tool_calls": [{"name": "bash", "arguments": {"cmd": "cat sorter.py"}}]},
    {"content": "Done: the slice ends one early; fixed it."},
]


async def _post(url: str, path: str, body: dict, token: str, anthropic: bool = False) -> bytes:
    headers = {"x-api-key": token} if anthropic else {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession() as s:
        async with s.post(url + path, json=body, headers=headers) as r:
            assert r.status == 200, (r.status, await r.read())
            return await r.read()


async def _claude(url: str, token: str) -> None:
    system = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    tools = [{"name": n, "input_schema": {"type": "object"}} for n in ("Bash", "Edit", "Read")]
    # Claude Code's side call: no tools, its own system prompt (a title for the session)
    side = {"model": "claude", "max_tokens": 50, "stream": True, "system": "Write a title.", "messages": []}
    side["messages"] = [{"role": "user", "content": TASK}]
    await _post(url, "/v1/messages", side, token, anthropic=True)
    msgs: list[dict] = [{"role": "user", "content": [{"type": "text", "text": TASK}]}]
    for i, turn in enumerate(CLAUDE_TURNS):
        for m in msgs:  # the cache marker moves to the newest message, as Claude Code does
            for b in m["content"]:
                b.pop("cache_control", None)
        msgs[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        body = {"model": "claude", "max_tokens": 4096, "stream": True, "system": system, "tools": tools}
        await _post(url, "/v1/messages", {**body, "messages": msgs}, token, anthropic=True)
        if "tool" not in turn:
            return
        tid = f"toolu_{i + 1}"  # the fake's ids: toolu_<requests before this one>
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": turn.get("say", "Running it.")},
                    {"type": "tool_use", "id": tid, "name": turn["tool"], "input": turn["input"]},
                ],
            }
        )
        result = "1 failed, 9 passed" if i == 0 else "The file sorter.py has been updated."
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": result}]})


async def _codex(url: str, token: str) -> None:
    tools = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in ("shell", "apply_patch")]
    items: list[dict] = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": TASK}]}]
    for i, turn in enumerate(CODEX_TURNS):
        body = {"model": "gpt-5-codex", "instructions": SYSTEM, "tools": tools, "stream": True, "input": items}
        await _post(url, "/v1/responses", body, token)
        if "call" not in turn:
            return
        cid = f"call_{i}"
        items = items + [
            {"type": "function_call", "name": turn["call"], "arguments": json.dumps(turn["arguments"]), "call_id": cid},
            {"type": "function_call_output", "call_id": cid, "output": "10 passed"},
        ]


async def _chat(url: str, token: str) -> None:
    tools = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    msgs: list[dict] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    for i, turn in enumerate(CHAT_TURNS):
        body = {"model": "gpt-4.1-mini", "messages": msgs, "tools": tools, "stream": i == 0}
        await _post(url, "/v1/chat/completions", body, token)
        if not turn.get("tool_calls"):
            return
        calls = [
            {
                "id": f"call_{i}_{j}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for j, c in enumerate(turn["tool_calls"])
        ]
        msgs = msgs + [
            {"role": "assistant", "content": turn["content"], "tool_calls": calls},
            {"role": "tool", "tool_call_id": "call_0_0", "content": "def sort(xs):\n    return xs[: len(xs) - 1]"},
        ]


KINDS = {
    "claude-code": ("anthropic/claude-sonnet-4-20250514", lambda: AnthropicProvider(CLAUDE_TURNS), _claude),
    "codex": ("openai/gpt-5-codex", lambda: ResponsesProvider(CODEX_TURNS), _codex),
    "mini-swe-agent": ("openai/gpt-4.1-mini", lambda: FakeProvider(CHAT_TURNS), _chat),
}


async def _record(db: Path, attempt: str, kind: str) -> list[tuple[str, dict]]:
    model, make, client = KINDS[kind]
    fp = make().start()
    root = Path(tempfile.mkdtemp(prefix="gwt-", dir="/tmp"))
    env = {"OPENAI_BASE_URL": fp.base_url, "OPENAI_API_KEY": "sk-host", "ANTHROPIC_API_KEY": "sk-ant-host"}
    env["ANTHROPIC_BASE_URL"] = fp.base_url
    gw = Gateway(root=root, env=env, prices=PRICES, transcript_dir=db.with_name(db.name + ".d") / "transcripts")
    got: list[tuple[str, dict]] = []
    try:
        await gw.start()
        grant = gw.register(attempt, model=model, limits=UsageLimits(), emit=lambda k, d: got.append((k, d)))
        await client(grant.tcp_url, grant.token)
        await gw.unregister(attempt)  # flushes the transcript
    finally:
        await gw.aclose()
        fp.stop()
        shutil.rmtree(root, ignore_errors=True)
    return got


async def record_attempt(db: Path, kind: str, attempt: str = "a-tr00001") -> Path:
    """A finished attempt of agent ``kind`` in store ``db``, its transcript beside it."""
    got = await _record(db, attempt, kind)
    model = KINDS[kind][0]
    a = Attempt("standard", attempt=attempt, agent=f"{kind}@{model}", challenge="off-by-one")
    a.events[0].data.update(model=model)
    for k, d in got:
        if k in ("model.call", "model.tool_call"):
            a.wait(1).emit(k, **d)
    iteration(a, 80)
    st = await Store.open(db)
    try:
        for e in a.finish():
            st.append(e)
        await st.flush()
    finally:
        await st.close()
    return db


def stored_attempt(db: Path, kind: str, attempt: str = "a-tr00001") -> Path:
    return asyncio.run(record_attempt(db, kind, attempt))
