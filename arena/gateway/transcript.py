"""An attempt's model transcript: every call's request and response, capped, gzipped.

One file per attempt, ``<dir>/<attempt>.jsonl.gz``: each call appends one gzip member
holding one JSON line ``{seq, provider, model, endpoint, status, latency_ms, request,
response}``. ``request`` is the agent's JSON body (never the headers, so never a key);
``response`` the upstream's JSON body, or the raw server-sent-event text of a streamed
answer. A side larger than ``CALL_CAP`` is kept as ``{"truncated": true, "bytes": N,
"head": "..."}``; once ``ATTEMPT_CAP`` bytes of bodies are written for an attempt, later
calls keep only their metadata (``"omitted": "attempt cap"``).
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Any

CALL_CAP = 256 * 1024  # bytes per side of one call
ATTEMPT_CAP = 16 * 1024 * 1024  # bytes of bodies per attempt


def transcript_path(directory: Path, attempt: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", attempt) or "_"
    return Path(directory) / f"{safe}.jsonl.gz"


def _side(raw: bytes, cap: int, total: int | None = None) -> tuple[Any, int]:
    """``raw`` as kept: parsed JSON when small and valid, else text; plus its cost.
    ``total``: the side's real size when ``raw`` is already a cut-off head of it."""
    total = len(raw) if total is None else total
    if total > cap or len(raw) > cap:
        head = raw[:cap].decode("utf-8", "replace")
        return {"truncated": True, "bytes": total, "head": head}, cap
    try:
        return json.loads(raw), len(raw)
    except (ValueError, RecursionError):  # kept as text: nested past the parser's depth
        return raw.decode("utf-8", "replace"), len(raw)


class TranscriptWriter:
    """Appends one attempt's calls. Not thread-safe: the gateway writes each attempt's
    records from one single-thread executor, in order."""

    def __init__(
        self, directory: Path, attempt: str, *, call_cap: int = CALL_CAP, attempt_cap: int = ATTEMPT_CAP
    ) -> None:
        self.path = transcript_path(directory, attempt)
        self.call_cap, self.attempt_cap = call_cap, attempt_cap
        self.written = 0
        self.seq = 0

    def record(self, meta: dict[str, Any], request: bytes, response: bytes, response_len: int | None = None) -> None:
        self.seq += 1
        rec: dict[str, Any] = {"seq": self.seq, **meta}
        if self.written + min(len(request), self.call_cap) + min(len(response), self.call_cap) > self.attempt_cap:
            rec["omitted"] = "attempt cap"
            rec["request_bytes"] = len(request)
            rec["response_bytes"] = len(response) if response_len is None else response_len
        else:
            rec["request"], n_req = _side(request, self.call_cap)
            rec["response"], n_resp = _side(response, self.call_cap, response_len)
            self.written += n_req + n_resp
        # a lone surrogate (a body's "\udcff" escape) is written back as its JSON escape
        line = json.dumps(rec, ensure_ascii=False).encode("utf-8", "backslashreplace") + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as f:
            f.write(gzip.compress(line, compresslevel=6))


def read_transcript(directory: Path, attempt: str) -> list[dict[str, Any]]:
    """The attempt's calls in order; [] when it made none. A last member cut short by a
    crash is dropped, never an error."""
    path = transcript_path(directory, attempt)
    if not path.is_file():
        return []
    data = path.read_bytes()
    out: list[dict[str, Any]] = []
    while data:
        d = zlib.decompressobj(wbits=31)  # one gzip member
        try:
            text = d.decompress(data)
        except zlib.error:
            break
        if not d.eof:
            break
        data = d.unused_data
        for line in text.splitlines():
            if line.strip():
                out.append(json.loads(line))
    return out
