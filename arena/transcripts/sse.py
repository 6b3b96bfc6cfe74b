"""Server-sent events as the gateway kept them: the raw text of a streamed answer, maybe
cut off at the transcript's cap. ``events(text)`` gives each event's name (its ``event:``
line, or the ``type`` of its data) and its data decoded from JSON; an event whose data is
not JSON comes back as ``("invalid", text)``; a last event cut mid-way is dropped by the
caller's marker (``looks_like_sse`` tells a stream from a JSON body)."""

from __future__ import annotations

import json
import re
from typing import Iterator

_FIELD = re.compile(r"^(event|data)\s*:", re.M)


def looks_like_sse(text: str) -> bool:
    return bool(_FIELD.search(text[:4096]))


def events(text: str) -> Iterator[tuple[str, object]]:
    """``(name, data)`` of each event of ``text``; ``data`` parsed from JSON, ``"[DONE]"``
    kept as a string, data that does not parse as ``("invalid", raw text)``."""
    for block in re.split(r"\r?\n\r?\n", text):
        name = ""
        data: list[str] = []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
        if not data:
            continue
        raw = "\n".join(data)
        if raw.strip() == "[DONE]":
            yield name or "done", "[DONE]"
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            yield "invalid", raw
            continue
        if not name and isinstance(obj, dict) and isinstance(obj.get("type"), str):
            name = obj["type"]
        yield name, obj
