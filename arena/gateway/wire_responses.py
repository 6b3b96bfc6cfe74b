"""What the gateway reads from OpenAI Responses API answers (``POST /v1/responses``).

Usage: ``usage.input_tokens`` / ``output_tokens``, with ``input_tokens_details.cached_tokens``
and ``output_tokens_details.reasoning_tokens`` (both already inside the two totals, so
they are reported beside them, never added). Tool calls are output items of type
``function_call`` / ``custom_tool_call`` (their ``name``), ``local_shell_call``,
``web_search_call`` … (their type). Streamed, ``response.output_item.added`` announces
each item and ``response.completed`` (or ``.incomplete`` / ``.failed``) carries the
whole response with its usage.
"""

from __future__ import annotations

from typing import Any

from arena.gateway.wire import Meter, _int

# An event is parsed only if it may carry usage or announce an output item.
STREAM_KEYS = (b'"usage"', b"response.output_item.added")
_ENDS = ("response.completed", "response.incomplete", "response.failed")


class ResponsesMeter(Meter):
    """A ``Meter`` for the Responses API; ``details`` holds the cached and reasoning tokens."""

    stream_keys = STREAM_KEYS

    def __init__(self, on_tool) -> None:  # type: ignore[no-untyped-def]  # Meter's callback
        super().__init__(on_tool)
        self.details: dict[str, Any] = {}

    def usage(self, usage: object) -> None:
        if not isinstance(usage, dict):
            return
        self.input = _int(usage.get("input_tokens"))
        self.output = _int(usage.get("output_tokens"))
        inp = usage.get("input_tokens_details")
        out = usage.get("output_tokens_details")
        if isinstance(inp, dict) and "cached_tokens" in inp:
            self.details["cached_input_tokens"] = _int(inp.get("cached_tokens"))
        if isinstance(out, dict) and "reasoning_tokens" in out:
            self.details["reasoning_tokens"] = _int(out.get("reasoning_tokens"))

    def item(self, key: object, item: object) -> None:
        if not isinstance(item, dict):
            return
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call"):
            self.tool(key, item.get("name"))
        elif isinstance(kind, str) and kind.endswith("_call"):
            self.tool(key, kind[: -len("_call")])  # local_shell, web_search, …

    def body(self, obj: object) -> None:
        if not isinstance(obj, dict):
            return
        self.usage(obj.get("usage"))
        for i, item in enumerate(obj.get("output") or []):
            self.item(item.get("id", i) if isinstance(item, dict) else i, item)

    def stream_event(self, obj: object) -> None:
        if not isinstance(obj, dict):
            return
        kind = obj.get("type")
        if kind == "response.output_item.added":
            item = obj.get("item")
            key = item.get("id") if isinstance(item, dict) and item.get("id") else obj.get("output_index")
            self.item(key, item)
        elif kind in _ENDS and isinstance(obj.get("response"), dict):
            self.body(obj["response"])
