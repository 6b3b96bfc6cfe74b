"""What the gateway reads from the two APIs' answers: token usage and tool calls.

OpenAI Chat Completions: ``usage.prompt_tokens`` / ``completion_tokens``; tool calls in
``choices[].message.tool_calls`` or, streamed, in ``choices[].delta.tool_calls`` (a call's
name comes in the first delta of its index); a streamed answer carries usage only in a
last chunk with no choices when asked for with ``stream_options.include_usage``.
Anthropic Messages: ``usage.input_tokens`` (+ cache tokens) / ``output_tokens``; tool
calls are ``tool_use`` content blocks; streamed, ``message_start`` carries the input usage,
``message_delta`` the cumulative output usage, ``content_block_start`` each block.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from arena.gateway.guard import BYTES_PER_TOKEN


def _int(v: object) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0


class Meter:
    """Usage and tool calls seen in one answer. ``input``/``output`` stay None when the
    upstream reported no usage at all."""

    def __init__(self, on_tool: Callable[[str], None]) -> None:
        self.input: int | None = None
        self.output: int | None = None
        self.on_tool = on_tool
        self._seen: set[object] = set()
        self.malformed = False  # part of the answer had a shape no API gives (see read())

    def read(self, fn: Callable[[object], None], obj: object) -> None:
        """``fn(obj)`` (one of the readers below), never raising: an answer of a shape
        no API gives (a tool call's index a list, tool_calls a number ...) is relayed to the
        agent as it came, metered as far as it could be read and marked ``malformed``
        (issue 26: it used to be a 500 with a traceback, the call never metered)."""
        try:
            fn(obj)
        except Exception:  # noqa: BLE001 - any shape at all reaches here from the upstream
            self.malformed = True

    def estimate(self, raw_len: int, deltas: int) -> dict[str, Any]:
        """Fill in the usage of a call cut before its provider reported it (a hang-up, a
        broken upstream, the attempt's end; issue 36): the input, when none was reported,
        from the request's ``raw_len`` bytes as the reservation guessed it; the output at
        least one token per delta event received. Returns the ``model.call`` marks."""
        marks: dict[str, Any] = {"partial": True}
        if not self.input:
            self.input = raw_len // BYTES_PER_TOKEN + 1
            marks["input_estimated"] = True
        if (self.output or 0) < deltas:
            self.output = deltas
            marks["output_estimated"] = True
        self.output = self.output or 0
        return marks

    stream_keys: tuple[bytes, ...] = ()  # a further API's metered stream events (wire_responses.py)

    def stream_event(self, obj: object) -> None:
        """One event of a further API's stream (overridden by its meter)."""

    def tool(self, key: object, name: object) -> None:
        try:
            hash(key)
        except TypeError:  # an index the upstream gave as a list or an object
            key, self.malformed = repr(key), True
        if isinstance(name, str) and name and key not in self._seen:
            self._seen.add(key)
            self.on_tool(name)

    # -- OpenAI -----------------------------------------------------------------------
    def openai_usage(self, usage: object) -> None:
        if isinstance(usage, dict):
            self.input = _int(usage.get("prompt_tokens"))
            self.output = _int(usage.get("completion_tokens"))

    def openai_body(self, obj: object) -> None:
        if not isinstance(obj, dict):
            return
        self.openai_usage(obj.get("usage"))
        for ci, choice in enumerate(obj.get("choices") or []):
            msg = choice.get("message") if isinstance(choice, dict) else None
            if not isinstance(msg, dict):
                continue
            for ti, tc in enumerate(msg.get("tool_calls") or []):
                if isinstance(tc, dict) and isinstance(tc.get("function"), dict):
                    self.tool((ci, ti), tc["function"].get("name"))
            fc = msg.get("function_call")  # the legacy single function call
            if isinstance(fc, dict):
                self.tool((ci, "fc"), fc.get("name"))

    def openai_chunk(self, obj: object) -> None:
        if not isinstance(obj, dict):
            return
        if obj.get("usage"):
            self.openai_usage(obj["usage"])
        for choice in obj.get("choices") or []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                continue
            ci = choice.get("index", 0)
            for tc in delta.get("tool_calls") or []:
                if isinstance(tc, dict) and isinstance(tc.get("function"), dict):
                    self.tool((ci, tc.get("index", 0)), tc["function"].get("name"))
            fc = delta.get("function_call")
            if isinstance(fc, dict):
                self.tool((ci, "fc"), fc.get("name"))

    # -- Anthropic ----------------------------------------------------------------------
    def anthropic_usage(self, usage: object) -> None:
        if not isinstance(usage, dict):
            return
        if any(k in usage for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")):
            n = sum(
                _int(usage.get(k)) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
            )
            self.input = max(self.input or 0, n)
        if "output_tokens" in usage:
            self.output = max(self.output or 0, _int(usage.get("output_tokens")))

    def anthropic_body(self, obj: object) -> None:
        if not isinstance(obj, dict):
            return
        self.anthropic_usage(obj.get("usage"))
        for i, block in enumerate(obj.get("content") or []):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                self.tool(i, block.get("name"))

    def anthropic_event(self, obj: object) -> None:
        if not isinstance(obj, dict):
            return
        kind = obj.get("type")
        if kind == "message_start" and isinstance(obj.get("message"), dict):
            self.anthropic_usage(obj["message"].get("usage"))
        elif kind == "message_delta":
            self.anthropic_usage(obj.get("usage"))
        elif kind == "content_block_start":
            block = obj.get("content_block")
            if isinstance(block, dict) and block.get("type") == "tool_use":
                self.tool(obj.get("index"), block.get("name"))


class SSESplitter:
    """Cuts a server-sent-event byte stream into whole events (bytes kept exactly, the
    blank line included) and gives each event's joined ``data:`` text."""

    def __init__(self) -> None:
        self.buf = b""
        self.lines: list[bytes] = []

    def feed(self, chunk: bytes) -> list[tuple[bytes, str | None]]:
        self.buf += chunk
        out = []
        start = 0
        while True:
            nl = self.buf.find(b"\n", start)
            if nl < 0:
                break
            line = self.buf[start : nl + 1]
            start = nl + 1
            self.lines.append(line)
            if line in (b"\n", b"\r\n"):
                out.append(self._event())
        self.buf = self.buf[start:]
        return out

    def flush(self) -> list[tuple[bytes, str | None]]:
        if self.buf:
            self.lines.append(self.buf)
            self.buf = b""
        return [self._event()] if self.lines else []

    def _event(self) -> tuple[bytes, str | None]:
        raw = b"".join(self.lines)
        data = [ln.rstrip(b"\r\n")[5:] for ln in self.lines if ln.startswith(b"data:")]
        self.lines = []
        if not data:
            return raw, None
        text = b"\n".join(d[1:] if d.startswith(b" ") else d for d in data)
        return raw, text.decode("utf-8", "replace")


def parse_data(text: str | None) -> object:
    if text is None or text == "[DONE]":
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # nested past the parser's depth
        return None
