"""What an agent sent in one call, from the request body the gateway kept: its system
prompt, the names of its tools and its messages, each message as a role and parts
(``text``, ``tool_call``, ``tool_result``, ``reasoning``, ``image``, ``other``), in one
shape for the three APIs. ``fingerprint`` hashes a message (or an answer) so calls can be
compared without keeping their text: a message that moved only its cache marker
(``cache_control``, which Claude Code moves to the newest message on every call) is the
same message."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from arena.transcripts.answer import MESSAGES, RESPONSES, Answer


@dataclass
class Part:
    kind: str  # text | tool_call | tool_result | reasoning | image | other
    text: str
    name: str = ""  # a tool's name, or the id of the call a result answers


@dataclass
class Message:
    role: str
    parts: list[Part] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"role": self.role, "parts": [{"kind": p.kind, "text": p.text, "name": p.name} for p in self.parts]}


@dataclass
class Request:
    system: str | None = None
    tools: list[str] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    raw_messages: list[object] = field(default_factory=list)  # as sent: what fingerprints hash
    raw_system: object = None
    raw_tools: object = None
    notes: list[str] = field(default_factory=list)


def _s(v: object) -> str:
    return v if isinstance(v, str) else ""


def _d(v: object) -> dict:
    return v if isinstance(v, dict) else {}


def _l(v: object) -> list:
    return v if isinstance(v, list) else []


def _json(v: object) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)


def _strip(v: object) -> object:
    """``v`` without cache markers, at any depth."""
    if isinstance(v, dict):
        return {k: _strip(x) for k, x in v.items() if k != "cache_control"}
    if isinstance(v, list):
        return [_strip(x) for x in v]
    return v


def fingerprint(v: object) -> str:
    try:
        text = json.dumps(_strip(v), sort_keys=True, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        text = repr(v)
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]


def answer_fingerprint(text: str, tools: list[tuple[str, str]]) -> str:
    """The same for an answer and for the assistant message that carries it back in the next
    call: its text (spaces folded) and its tool calls' names and arguments (parsed JSON
    when they parse, so spacing does not matter)."""
    norm = []
    for name, args in tools:
        try:
            norm.append([name, json.loads(args) if args else None])
        except (ValueError, RecursionError):
            norm.append([name, args])
    return fingerprint([" ".join(text.split()), norm])


def answer_print(a: Answer) -> str:
    return answer_fingerprint(a.text, [(t.name, t.arguments) for t in a.tool_calls])


def messages_answer_print(msgs: list[Message]) -> str:
    """The fingerprint of assistant messages that carry one answer back (one message in
    Chat Completions and Messages; a message and function-call items in Responses)."""
    parts = [p for m in msgs for p in m.parts]
    text = "".join(p.text for p in parts if p.kind == "text")
    return answer_fingerprint(text, [(p.name, p.text) for p in parts if p.kind == "tool_call"])


# -- content parts ---------------------------------------------------------------------
def _blocks(content: object) -> list[Part]:
    """Parts of a content value of any of the three APIs (a string or a list of blocks)."""
    if isinstance(content, str):
        return [Part("text", content)]
    if content is None:
        return []
    if not isinstance(content, list):
        return [Part("other", _json(content))]
    out: list[Part] = []
    for b in content:
        if isinstance(b, str):
            out.append(Part("text", b))
            continue
        if not isinstance(b, dict):
            out.append(Part("other", _json(b)))
            continue
        kind = _s(b.get("type"))
        if kind in ("text", "input_text", "output_text") or (not kind and "text" in b):
            out.append(Part("text", _s(b.get("text"))))
        elif kind in ("tool_use", "server_tool_use"):
            out.append(Part("tool_call", _json(b.get("input")), _s(b.get("name"))))
        elif kind == "tool_result":
            inner = _blocks(b.get("content"))
            text = "\n".join(p.text for p in inner)
            out.append(Part("tool_result", ("[error] " if b.get("is_error") else "") + text, _s(b.get("tool_use_id"))))
        elif kind == "thinking":
            out.append(Part("reasoning", _s(b.get("thinking"))))
        elif kind == "redacted_thinking":
            out.append(Part("reasoning", "[redacted thinking]"))
        elif kind in ("image", "image_url", "input_image", "document", "input_file"):
            out.append(Part("image", f"[{kind}]"))
        else:
            out.append(Part("other", _json(b)))
    return out


# -- the three APIs --------------------------------------------------------------------
def _chat(req: Request, body: dict) -> None:
    msgs = _l(body.get("messages"))
    lead = 0
    system: list[str] = []
    for m in msgs:  # leading system/developer messages are the system prompt
        if not (isinstance(m, dict) and m.get("role") in ("system", "developer")):
            break
        system.append("\n".join(p.text for p in _blocks(m.get("content"))))
        lead += 1
    req.system = "\n\n".join(system) if system else None
    req.raw_system = msgs[:lead] if lead else None
    req.raw_messages = msgs[lead:]
    for m in req.raw_messages:
        if not isinstance(m, dict):
            req.messages.append(Message("?", [Part("other", _json(m))]))
            continue
        role = _s(m.get("role")) or "?"
        parts = _blocks(m.get("content"))
        if role == "tool":
            parts = [Part("tool_result", "\n".join(p.text for p in parts), _s(m.get("tool_call_id")))]
        for tc in m.get("tool_calls") or []:
            if isinstance(tc, dict):
                fn = _d(tc.get("function"))
                parts.append(Part("tool_call", _json(fn.get("arguments")), _s(fn.get("name"))))
        req.messages.append(Message(role, parts))
    req.raw_tools = body.get("tools")
    for t in body.get("tools") or []:
        if isinstance(t, dict):
            fn = _d(t.get("function")) or t
            req.tools.append(_s(fn.get("name")) or _s(t.get("type")) or "?")


def _messages(req: Request, body: dict) -> None:
    system = body.get("system")
    req.raw_system = system
    if system is not None:
        req.system = system if isinstance(system, str) else "\n\n".join(p.text for p in _blocks(system))
    req.raw_messages = _l(body.get("messages"))
    for m in req.raw_messages:
        if isinstance(m, dict):
            req.messages.append(Message(_s(m.get("role")) or "?", _blocks(m.get("content"))))
        else:
            req.messages.append(Message("?", [Part("other", _json(m))]))
    req.raw_tools = body.get("tools")
    req.tools = [_s(t.get("name")) or _s(t.get("type")) or "?" for t in body.get("tools") or [] if isinstance(t, dict)]


def _item(it: object) -> Message:
    if not isinstance(it, dict):
        return Message("?", [Part("other", _json(it))])
    kind = _s(it.get("type")) or ("message" if "role" in it else "")
    if kind == "message":
        return Message(_s(it.get("role")) or "?", _blocks(it.get("content")))
    if kind in ("function_call", "custom_tool_call"):
        args = it.get("arguments") if kind == "function_call" else it.get("input")
        return Message("assistant", [Part("tool_call", _json(args), _s(it.get("name")))])
    if kind.endswith("_call_output"):
        out = it.get("output")
        text = "\n".join(p.text for p in _blocks(out)) if isinstance(out, list) else _s(out) or _json(out)
        return Message("tool", [Part("tool_result", text, _s(it.get("call_id")))])
    if kind == "reasoning":
        summary = [_s(p.get("text")) for p in it.get("summary") or [] if isinstance(p, dict)]
        return Message("assistant", [Part("reasoning", "\n".join(summary) or "[reasoning]")])
    if kind.endswith("_call"):  # local_shell_call …
        detail = it.get("action") if "action" in it else it
        return Message("assistant", [Part("tool_call", _json(detail), kind[: -len("_call")])])
    return Message("?", [Part("other", _json(it))])


def _responses(req: Request, body: dict) -> None:
    req.raw_system = body.get("instructions")
    if body.get("instructions") is not None:
        req.system = _s(body.get("instructions")) or _json(body.get("instructions"))
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    req.raw_messages = items if isinstance(items, list) else []
    req.messages = [_item(it) for it in req.raw_messages]
    req.raw_tools = body.get("tools")
    req.tools = [_s(t.get("name")) or _s(t.get("type")) or "?" for t in body.get("tools") or [] if isinstance(t, dict)]
    if body.get("previous_response_id"):
        req.notes.append(f"continues the stored response {_s(body.get('previous_response_id'))[:60]}")


def parse(api: str, body: object) -> Request:
    """The request of one call as the transcript keeps it (the JSON body, or a cut-off
    ``{"truncated": true, ...}``, or text that was not JSON)."""
    req = Request()
    if isinstance(body, dict) and body.get("truncated") is True:
        req.notes.append(
            f"request cut at the transcript's cap ({body.get('bytes', '?')} bytes): its messages are not known"
        )
        return req
    if not isinstance(body, dict):
        req.notes.append("no request kept" if body is None else "the request was not a JSON object")
        return req
    try:
        {MESSAGES: _messages, RESPONSES: _responses}.get(api, _chat)(req, body)
    except Exception as exc:  # noqa: BLE001 - an agent's body of any shape: keep what was read
        req.notes.append(f"could not read the rest of the request ({type(exc).__name__})")
    return req
