"""A model call's answer in one line, for its ``model.call`` event (``text``, ``tools``):
what a screen shows of the call besides its tokens. Decoded from the answer body the
gateway kept (arena/transcripts: Chat Completions, Responses, Anthropic Messages, streamed
or not); only the first ``HEAD`` bytes are read, so a long answer costs no more than a
short one. Never raises."""

from __future__ import annotations

import json
from typing import Any

from arena.steps.base import one_line

HEAD = 64 * 1024  # bytes of an answer read for its preview
PREVIEW_CAP = 160  # characters of the preview
TOOLS_CAP = 8  # tool names kept


def preview(endpoint: object, provider: object, body: bytes, stream: bool) -> dict[str, Any]:
    """``{"text": first line of the assistant's text}`` when it said something; ``{}``
    when nothing could be read."""
    try:
        from arena.transcripts.answer import api_of, decode  # noqa: PLC0415 - imports the gateway's transcript

        head = body[:HEAD].decode("utf-8", "replace")
        response: object = head
        if not stream:
            try:
                response = json.loads(head)
            except ValueError:
                response = {"truncated": True, "bytes": len(body), "head": head}
        answer = decode(api_of(endpoint, provider), response, stream=stream)
        text = one_line(answer.text, PREVIEW_CAP) if answer.text.strip() else ""
        return {"text": text} if text else {}
    except Exception:  # noqa: BLE001 - a preview never fails a call
        return {}


def tools_field(names: object) -> dict[str, Any]:
    """``{"tools": [names]}`` (the call's tool calls, at most TOOLS_CAP), or ``{}``."""
    if not isinstance(names, list) or not names:
        return {}
    return {"tools": [str(n)[:80] for n in names[:TOOLS_CAP]]}
