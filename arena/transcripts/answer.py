"""What the model answered in one call, from the body the gateway kept: the assistant's
text, its reasoning (where an API shows it), its tool calls with their arguments, the
stop reason, an error, and notes on what could not be read.

Three APIs, each streamed (server-sent events, assembled here into the final message) or
not: OpenAI Chat Completions (``data:`` chunks with ``choices[].delta`` content and
``tool_calls`` whose arguments arrive in pieces), OpenAI Responses (``response.*`` events:
output items added, text and argument deltas, items done, ``response.completed`` with the
whole response) and Anthropic Messages (``message_start``, ``content_block_*`` with
``text_delta``/``input_json_delta``/``thinking_delta``, ``message_delta`` with the stop
reason). A body cut at the transcript's cap, an event that is not JSON, a stream that
ends early or a shape no API gives is decoded as far as it goes, with a note; nothing
here raises on what an upstream sent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from arena.transcripts import sse

CHAT, RESPONSES, MESSAGES = "chat", "responses", "messages"


@dataclass
class ToolCall:
    name: str
    arguments: str  # as the model wrote them (JSON text for function tools)
    id: str = ""


@dataclass
class Answer:
    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_reason: str | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "reasoning": self.reasoning,
            "tool_calls": [{"id": t.id, "name": t.name, "arguments": t.arguments} for t in self.tool_calls],
            "stop_reason": self.stop_reason,
            "error": self.error,
            "notes": list(self.notes),
        }


def api_of(endpoint: object, provider: object, request: object = None) -> str:
    """Which API a call spoke: from its endpoint, else its provider and body."""
    ep = endpoint if isinstance(endpoint, str) else ""
    if ep.endswith("/responses"):
        return RESPONSES
    if ep.endswith("/messages") or provider == "anthropic":
        return MESSAGES
    if isinstance(request, dict) and "input" in request and "messages" not in request:
        return RESPONSES
    return CHAT


def _s(v: object) -> str:
    return v if isinstance(v, str) else ""


def _d(v: object) -> dict:
    return v if isinstance(v, dict) else {}


def _args_text(v: object) -> str:
    if isinstance(v, str):
        return v
    if v is None:
        return ""
    return json.dumps(v, ensure_ascii=False)


def _error_text(obj: dict) -> str | None:
    err = obj.get("error")
    if isinstance(err, dict):
        kind = _s(err.get("type")) or _s(err.get("code"))
        msg = _s(err.get("message"))
        return ": ".join(x for x in (kind, msg) if x) or json.dumps(err)[:300]
    if isinstance(err, str) and err:
        return err
    return None


# -- OpenAI Chat Completions -------------------------------------------------------------
def _chat_message(a: Answer, msg: dict) -> None:
    content = msg.get("content")
    if isinstance(content, list):
        content = "".join(_s(p.get("text")) for p in content if isinstance(p, dict))
    a.text += _s(content)
    a.reasoning += _s(msg.get("reasoning_content")) or _s(msg.get("reasoning"))
    for tc in msg.get("tool_calls") or []:
        if isinstance(tc, dict):
            fn = _d(tc.get("function"))
            a.tool_calls.append(ToolCall(_s(fn.get("name")), _args_text(fn.get("arguments")), _s(tc.get("id"))))
    fc = msg.get("function_call")
    if isinstance(fc, dict):
        a.tool_calls.append(ToolCall(_s(fc.get("name")), _args_text(fc.get("arguments"))))


def _chat_body(a: Answer, obj: dict) -> None:
    for choice in (obj.get("choices") or [])[:1]:  # one choice is what agents ask for
        if isinstance(choice, dict):
            if isinstance(choice.get("message"), dict):
                _chat_message(a, choice["message"])
            a.stop_reason = _s(choice.get("finish_reason")) or a.stop_reason


def _chat_stream(a: Answer, evs: list[tuple[str, object]]) -> bool:
    calls: dict[object, ToolCall] = {}
    done = False
    for _name, data in evs:
        if data == "[DONE]":
            done = True
            continue
        if not isinstance(data, dict):
            continue
        if (err := _error_text(data)) is not None:
            a.error = err
        for choice in data.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                a.text += _s(delta.get("content"))
                a.reasoning += _s(delta.get("reasoning_content")) or _s(delta.get("reasoning"))
                for tc in delta.get("tool_calls") or []:
                    if not isinstance(tc, dict):
                        continue
                    key = tc.get("index", len(calls))
                    key = key if isinstance(key, (int, str)) else repr(key)
                    fn = _d(tc.get("function"))
                    call = calls.setdefault(key, ToolCall("", ""))
                    call.id = call.id or _s(tc.get("id"))
                    call.name = call.name or _s(fn.get("name"))
                    call.arguments += _args_text(fn.get("arguments"))
            if choice.get("finish_reason"):
                a.stop_reason = _s(choice.get("finish_reason"))
    a.tool_calls += list(calls.values())
    return done


# -- OpenAI Responses ------------------------------------------------------------------
def _resp_item(a: Answer, item: dict) -> None:
    kind = _s(item.get("type"))
    if kind == "message":
        for part in item.get("content") or []:
            if isinstance(part, dict):
                a.text += _s(part.get("text")) or _s(part.get("refusal"))
    elif kind == "reasoning":
        for part in (item.get("summary") or []) + (item.get("content") or []):
            if isinstance(part, dict) and part.get("text"):
                a.reasoning += ("\n" if a.reasoning else "") + _s(part.get("text"))
    elif kind in ("function_call", "custom_tool_call"):
        args = item.get("arguments") if kind == "function_call" else item.get("input")
        a.tool_calls.append(ToolCall(_s(item.get("name")), _args_text(args), _s(item.get("call_id"))))
    elif kind.endswith("_call"):  # local_shell_call, web_search_call, …
        detail = item.get("action") if "action" in item else {k: v for k, v in item.items() if k not in ("type",)}
        a.tool_calls.append(ToolCall(kind[: -len("_call")], _args_text(detail), _s(item.get("call_id"))))


def _resp_body(a: Answer, obj: dict) -> None:
    for item in obj.get("output") or []:
        if isinstance(item, dict):
            _resp_item(a, item)
    status = _s(obj.get("status"))
    why = obj.get("incomplete_details")
    if isinstance(why, dict) and why.get("reason"):
        status += f" ({_s(why.get('reason'))})"
    a.stop_reason = status or a.stop_reason
    if (err := _error_text(obj)) is not None:
        a.error = err


_RESP_ENDS = ("response.completed", "response.incomplete", "response.failed")


def _resp_stream(a: Answer, evs: list[tuple[str, object]]) -> bool:
    items: dict[object, dict] = {}  # output_index → the item as assembled so far
    final: dict | None = None
    for name, data in evs:
        if not isinstance(data, dict):
            continue
        kind = _s(data.get("type")) or name
        idx = data.get("output_index", data.get("item_id", len(items)))
        idx = idx if isinstance(idx, (int, str)) else repr(idx)
        if kind in ("response.output_item.added", "response.output_item.done") and isinstance(data.get("item"), dict):
            items[idx] = dict(data["item"]) if kind.endswith("done") else {**data["item"], **items.get(idx, {})}
        elif kind == "response.output_text.delta":
            it = items.setdefault(idx, {"type": "message"})
            it["_text"] = _s(it.get("_text")) + _s(data.get("delta"))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            it = items.setdefault(idx, {"type": "reasoning"})
            it["_text"] = _s(it.get("_text")) + _s(data.get("delta"))
        elif kind in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
            it = items.setdefault(idx, {"type": "function_call"})
            it["_args"] = _s(it.get("_args")) + _s(data.get("delta"))
        elif kind in _RESP_ENDS and isinstance(data.get("response"), dict):
            final = data["response"]
        elif kind == "error":
            a.error = _error_text(data) or _s(data.get("message")) or json.dumps(data)[:300]
    if final is not None and final.get("output"):
        _resp_body(a, final)
        return True
    for it in items.values():  # no final response with its output: what the events built
        if "content" not in it and "_text" in it and it.get("type") == "message":
            it["content"] = [{"type": "output_text", "text": it["_text"]}]
        if it.get("type") == "reasoning" and "_text" in it and not it.get("summary"):
            it["summary"] = [{"text": it["_text"]}]
        if "_args" in it and not it.get("arguments") and not it.get("input"):
            it["arguments" if it.get("type") == "function_call" else "input"] = it["_args"]
        _resp_item(a, it)
    if final is not None:
        _resp_body(a, {k: v for k, v in final.items() if k != "output"})
        return True
    return False


# -- Anthropic Messages ----------------------------------------------------------------
def _msg_blocks(a: Answer, blocks: list) -> None:
    for b in blocks:
        if not isinstance(b, dict):
            continue
        kind = _s(b.get("type"))
        if kind == "text":
            a.text += _s(b.get("text"))
        elif kind == "thinking":
            a.reasoning += _s(b.get("thinking"))
        elif kind == "redacted_thinking":
            a.reasoning += "[redacted thinking]"
        elif kind in ("tool_use", "server_tool_use"):
            raw = b.get("_json")
            args = raw if isinstance(raw, str) and raw else _args_text(b.get("input"))
            a.tool_calls.append(ToolCall(_s(b.get("name")), args, _s(b.get("id"))))


def _msg_body(a: Answer, obj: dict) -> None:
    _msg_blocks(a, obj.get("content") or [])
    a.stop_reason = _s(obj.get("stop_reason")) or a.stop_reason
    if (err := _error_text(obj)) is not None:
        a.error = err


def _msg_stream(a: Answer, evs: list[tuple[str, object]]) -> bool:
    blocks: dict[object, dict] = {}
    done = False
    for name, data in evs:
        if not isinstance(data, dict):
            continue
        kind = _s(data.get("type")) or name
        idx = data.get("index", len(blocks))
        idx = idx if isinstance(idx, (int, str)) else repr(idx)
        if kind == "content_block_start" and isinstance(data.get("content_block"), dict):
            blocks[idx] = dict(data["content_block"])
        elif kind == "content_block_delta" and isinstance(data.get("delta"), dict):
            d = data["delta"]
            b = blocks.setdefault(idx, {"type": "text"})
            dk = _s(d.get("type"))
            if dk == "text_delta":
                b["text"] = _s(b.get("text")) + _s(d.get("text"))
            elif dk == "input_json_delta":
                b["_json"] = _s(b.get("_json")) + _s(d.get("partial_json"))
            elif dk == "thinking_delta":
                b["thinking"] = _s(b.get("thinking")) + _s(d.get("thinking"))
        elif kind == "message_delta" and isinstance(data.get("delta"), dict):
            a.stop_reason = _s(data["delta"].get("stop_reason")) or a.stop_reason
        elif kind == "message_stop":
            done = True
        elif kind == "error":
            a.error = _error_text(data) or json.dumps(data)[:300]
    _msg_blocks(a, list(blocks.values()))
    return done


# -- one call's answer -----------------------------------------------------------------
def decode(api: str, response: object, *, stream: object = None) -> Answer:
    """The answer of one call. ``response`` as the transcript keeps it: the JSON body, the
    stream's text, ``{"truncated": true, "bytes", "head"}`` or None (not kept)."""
    a = Answer()
    try:
        _decode(a, api, response, stream)
    except Exception as exc:  # noqa: BLE001 - a shape no API gives: say so, keep what was read
        a.notes.append(f"could not decode the rest of the answer ({type(exc).__name__})")
    return a


def _decode(a: Answer, api: str, response: object, stream: object) -> None:
    if response is None:
        a.notes.append("no answer kept")
        return
    if isinstance(response, dict) and response.get("truncated") is True:
        head = response.get("head")
        size = response.get("bytes")
        a.notes.append(
            "answer cut at the transcript's cap"
            + (f" ({size:,} bytes, the first {len(_s(head).encode()):,} kept)" if isinstance(size, int) else "")
            + ", decoded as far as it goes"
        )
        response = _s(head)
        if not sse.looks_like_sse(response):
            a.text = _salvage(response)
            a.notes.append(
                "the cut JSON body cannot be parsed: "
                + ("the start of its text is shown" if a.text else "--raw shows its start")
            )
            return
    if isinstance(response, str):
        if sse.looks_like_sse(response):
            _stream(a, api, response)
            return
        text = response
        try:
            response = json.loads(text)
        except (ValueError, RecursionError):
            a.notes.append(f"answer is neither JSON nor a stream ({len(text):,} characters); --raw shows it")
            a.error = a.error or (text.strip().splitlines() or [""])[0][:200] or None
            return
    if not isinstance(response, dict):
        a.notes.append(f"answer is a JSON {type(response).__name__}, not an object")
        return
    if (err := _error_text(response)) is not None:
        a.error = err
    {CHAT: _chat_body, RESPONSES: _resp_body, MESSAGES: _msg_body}.get(api, _chat_body)(a, response)


_TEXT_KEY = re.compile(r'"(?:content|text)"\s*:\s*"')


def _salvage(head: str) -> str:
    """The start of the first text string in a JSON body cut short (the rest is lost)."""
    m = _TEXT_KEY.search(head)
    if m is None:
        return ""
    body = head[m.end() :]
    end = re.search(r'(?<!\\)(?:\\\\)*"', body)
    raw = body[: end.start() + len(end.group()) - 1] if end else body
    for _ in range(8):  # at most a cut escape sequence (\\uXXXX) to drop from the end
        try:
            return str(json.loads('"' + raw + '"'))
        except ValueError:
            raw = raw[:-1]
    return ""


def _stream(a: Answer, api: str, text: str) -> None:
    evs = list(sse.events(text))
    bad = sum(1 for name, _ in evs if name == "invalid")
    if bad:
        a.notes.append(f"{bad} event(s) of the stream were not JSON and were skipped")
    done = {CHAT: _chat_stream, RESPONSES: _resp_stream, MESSAGES: _msg_stream}.get(api, _chat_stream)(a, evs)
    if not done and not a.error:
        a.notes.append("the stream ends before its last event (cut off, or the call was cancelled)")
