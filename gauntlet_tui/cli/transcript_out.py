"""``gauntlet show ATTEMPT --transcript [--call N] [--raw] [--json]`` (CONTRACT §11).

Readable by default: per model call the new messages sent, the assistant's text and tool
calls (streams assembled), stop reason, tokens, cost and latency, as ``arena.transcripts``
decodes them, every line printable and at most 400 characters. ``--call N`` prints call
N alone, in full (still bounded); ``--raw`` the stored request and answer bodies as the
gateway kept them; ``--json`` the decoded calls (with ``--raw``: the stored records).
The file is read one call at a time, never whole.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

from arena.errors import UsageError
from arena.text import printable
from arena.transcripts import Transcript
from arena.transcripts.records import iter_records, transcript_file
from arena.transcripts.render import BRIEF, FULL, call_lines


def _model_calls(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in doc.get("events") or [] if e.get("kind") == "model.call"]


def kept_calls(store: Path, attempt: str) -> int:
    """How many calls the attempt's transcript holds (read one at a time, not decoded)."""
    return sum(1 for _ in iter_records(transcript_file(store, attempt)))


def _raw_lines(n: int, rec: dict[str, Any]) -> Iterator[str]:
    """Today's dump of one call: its metadata, then the request and the answer as kept."""
    head = {
        k: rec.get(k)
        for k in ("provider", "model", "status", "input_tokens", "output_tokens", "latency_ms")
        if k in rec
    }
    yield f"\n--- call {n}: " + printable(json.dumps(head, default=str))
    for side in ("request", "response"):
        body = rec.get(side)
        text = body if isinstance(body, str) else json.dumps(body, indent=2, default=str)
        yield f"{side}:"
        yield printable(text or "")


def print_transcript(
    store: Path,
    doc: dict[str, Any],
    header: str,
    *,
    as_json: bool = False,
    raw: bool = False,
    call: int | None = None,
) -> int:
    """``header``: the first line (the attempt, its agent and its usage, the one count
    ``show`` gives); the calls follow."""
    t = Transcript.of(store, doc["attempt"], _model_calls(doc))
    out = sys.stdout
    if call is not None:
        count = kept_calls(store, doc["attempt"])
        if not 1 <= call <= count:
            held = f"holds {count} call(s): 1..{count}" if count else "holds no call"
            raise UsageError(f"--call {call}: the transcript of {doc['attempt']} {held}")
    if as_json:
        out.write(json.dumps({"attempt": doc["attempt"], "usage": doc["usage"]}, default=str)[:-1] + ', "calls": [')
        first = True
        for n, item in _items(t, raw, call):
            out.write(("" if first else ",") + "\n  " + json.dumps(item, default=str))
            first = False
        out.write("\n]}\n")
        return 0
    print(printable(header))
    if not t.exists():
        print(
            "no transcript: this attempt made no model calls through the gateway"
            if not doc["usage"]["calls"]
            else "no transcript kept for these calls"
        )
        return 0
    if raw:
        for n, item in _items(t, True, call):
            for line in _raw_lines(n, item):
                print(line)
        return 0
    if call is not None:
        print()
        for line in call_lines(t.call(call), FULL):
            print(line)
        return 0
    print("--call N: one call in full; --raw: the request and answer bodies as kept")
    for c in t.calls():
        print()
        for line in call_lines(c, BRIEF):
            print(line)
    return 0


def _items(t: Transcript, raw: bool, call: int | None) -> Iterator[tuple[int, dict[str, Any]]]:
    if raw:
        for n, rec in enumerate(t.raw(), 1):
            if call is None or n == call:
                yield n, rec
        return
    if call is not None:
        yield call, t.call(call).as_dict()
        return
    for c in t.calls():
        yield c.info.n, c.as_dict()
