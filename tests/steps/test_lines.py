"""The model call's preview (the gateway's model.call ``text``/``tools``) for the three
APIs, streamed and not, and how steps and model calls read in the view's readable lines."""

from __future__ import annotations

import json

from arena import events as K
from arena.events import Event
from arena.steps.preview import preview, tools_field
from arena.view import AttemptView


def _sse(events: list[tuple[str | None, dict]]) -> bytes:
    return "".join((f"event: {k}\n" if k else "") + f"data: {json.dumps(d)}\n\n" for k, d in events).encode()


def test_preview_of_an_anthropic_stream():
    body = _sse([
        ("message_start", {"type": "message_start", "message": {"content": [], "usage": {"input_tokens": 3}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "I read the "}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "code.\nThen I fix it."}}),
        ("message_stop", {"type": "message_stop"}),
    ])  # fmt: skip
    assert preview("/v1/messages", "anthropic", body, True) == {"text": "I read the code. …"}


def test_preview_of_chat_completions_and_responses():
    chat = _sse([(None, {"choices": [{"index": 0, "delta": {"content": "\x1b[31mHello"}}]}), (None, {"choices": []})])
    assert preview("/v1/chat/completions", "openai", chat, True) == {"text": "\\x1b[31mHello"}
    plain = json.dumps({"choices": [{"message": {"role": "assistant", "content": "Done [@click=app.quit]"}}]}).encode()
    assert preview("/v1/chat/completions", "openai", plain, False) == {"text": "Done [@click=app.quit]"}
    resp = _sse([("response.output_text.delta", {"type": "response.output_text.delta", "delta": "All tests pass."})])
    assert preview("/v1/responses", "openai", resp, True) == {"text": "All tests pass."}
    assert preview("/v1/responses", "openai", b"\xff" * 10_000_000, True) == {}  # nothing readable: no text
    assert tools_field(["Bash"] * 20) == {"tools": ["Bash"] * 8} and tools_field([]) == {}


def test_readable_lines_of_steps_and_model_calls():
    view = AttemptView()
    evs = [
        (K.AGENT_OUTPUT, {"stream": "stdout", "text": '{"type":"assistant"}'}),
        (K.AGENT_STEP, {"step": "command", "text": "$ python -m pytest -q"}),
        (K.MODEL_TOOL_CALL, {"name": "Bash"}),
        (K.MODEL_CALL, {"model": "m", "input_tokens": 2900, "output_tokens": 60, "latency_ms": 9, "status": 200}),
        (
            K.MODEL_CALL,
            {"model": "m", "input_tokens": 1, "output_tokens": 1, "latency_ms": 9, "status": 200, "text": "Hi"},
        ),
        (K.AGENT_STEP, {"step": "bogus", "text": "x\x1b[2J"}),
    ]
    for i, (kind, data) in enumerate(evs):
        view.apply(Event(attempt="a-1", t=float(i), kind=kind, data=data))
    assert [a.text for a in view.readable] == [
        "▸ $ python -m pytest -q",
        "model → Bash (2.9k/60 tok, 9 ms)",
        'model "Hi" (1/1 tok, 9 ms)',
        "▸ x\\x1b[2J",
    ]
    assert [a.kind for a in view.readable][0] == "step.command"
    assert view.activity_total == 6 and view.readable_total == 4  # the raw ring keeps everything
    assert any(a.text == "tool call Bash" for a in view.activity)
