"""The gateway's transcript file read one call at a time.

``arena.gateway.read_transcript`` reads the whole file (up to 16 MB of bodies) into one
list; a viewer needs one call at a time. ``iter_records`` walks the file's gzip members
(one per call, ``arena/gateway/transcript.py``) reading it in chunks and yields each call
with the byte offset of its member, so ``read_record(path, offset)`` can come back to one
call without reading the others. A member cut short by a crash ends the walk, as it does
for ``read_transcript``; a member that is not one JSON object is yielded as a record
saying so (``{"unreadable": ...}``), never raised.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator

CHUNK = 64 * 1024
MEMBER_CAP = 4 * 1024 * 1024  # no writer's member decompresses past this (two 256 KB sides, escaped)

Record = dict[str, object]


def transcript_file(store: Path, attempt: str) -> Path:
    """Where the gateway keeps ``attempt``'s transcript for the store ``store``
    (``arena.gateway.transcript.transcript_path``'s rule: this package sits below the
    gateway, which reads answers with it, so it does not import the gateway's module)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", attempt) or "_"
    return store.with_name(store.name + ".d") / "transcripts" / f"{safe}.jsonl.gz"


def _parse(text: bytes) -> list[Record]:
    out: list[Record] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError) as exc:
            out.append({"unreadable": f"not a JSON line: {exc}"[:200]})
            continue
        out.append(rec if isinstance(rec, dict) else {"unreadable": f"a JSON {type(rec).__name__}, not an object"})
    return out


def _member(f: BinaryIO, offset: int) -> tuple[bytes, int] | None:
    """The decompressed member starting at ``offset`` and its compressed length; None at
    the end of the file or for a member cut short."""
    f.seek(offset)
    d = zlib.decompressobj(wbits=31)
    out = bytearray()
    used = 0
    while not d.eof:
        chunk = f.read(CHUNK)
        if not chunk:
            return None
        try:
            out += d.decompress(chunk, MEMBER_CAP + 1 - len(out))
        except zlib.error:
            return None
        if len(out) > MEMBER_CAP:
            return None  # not a member this gateway writes: stop rather than fill memory
        used += len(chunk)
        while d.unconsumed_tail and not d.eof:  # past the cap's window: keep going only to its end
            try:
                out += d.decompress(d.unconsumed_tail, MEMBER_CAP + 1 - len(out))
            except zlib.error:
                return None
            if len(out) > MEMBER_CAP:
                return None
    return bytes(out), used - len(d.unused_data)


def iter_records(path: Path, start: int = 0) -> Iterator[tuple[int, Record]]:
    """``(offset, record)`` for every call kept in ``path`` from byte ``start`` (a member's
    offset), in order; nothing when the file does not exist."""
    if not path.is_file():
        return
    with open(path, "rb") as f:
        offset = start
        while True:
            got = _member(f, offset)
            if got is None:
                return
            text, size = got
            for rec in _parse(text):
                yield offset, rec
            if size <= 0:
                return
            offset += size


def read_record(path: Path, offset: int) -> Record | None:
    """The call whose member starts at ``offset`` (from ``iter_records``)."""
    with open(path, "rb") as f:
        got = _member(f, offset)
    if got is None:
        return None
    recs = _parse(got[0])
    return recs[0] if recs else None
