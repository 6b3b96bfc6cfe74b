"""The model usage part of a shareable report (issue 21 item 7): how the attempt ended,
its usage as ``arena.usage`` counts it (the one count ``show``, ``judge`` and the TUI give)
and a summary of its transcript, one row per model call the gateway kept. Pure: the
scorecard, the events and the transcript's records (the command line reads them from the
store's transcripts directory) in, rows of plain text out."""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from arena import events as ev
from arena.usage import breakdown

EXCERPT = 120  # characters of each answer shown in the summary


def ended_text(finished: Mapping[str, Any] | None) -> str:
    """``interrupted (stopped by the operator)``: the status and reason of an attempt's
    ``attempt.finished`` data, or that it has not ended."""
    if finished is None:
        return "not yet (no attempt.finished recorded)"
    reason = finished.get("reason")
    return str(finished.get("status") or "finished") + (f" ({reason})" if reason else "")


def ended(events: Iterable[Any]) -> str:
    finished = [e.data for e in events if e.kind == ev.ATTEMPT_FINISHED]
    return ended_text(finished[-1] if finished else None)


def usage_line(u: Mapping[str, Any]) -> str:
    """``4 model call(s) (1 refused, 1 cancelled), 120 tokens, $0.0010`` of a usage dict."""
    brk = breakdown(u)
    cost = "no known price" if u.get("cost_usd") is None else f"${u['cost_usd']:.4f}"
    return f"{u['calls']} model call(s)" + (f" ({brk})" if brk else "") + f", {u['tokens']} tokens, {cost}"


def _answer(call: dict[str, Any]) -> str:
    body = call.get("response")
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    text = " ".join((text or "").split())
    return text[:EXCERPT] + ("…" if len(text) > EXCERPT else "")


def transcript_rows(calls: list[dict[str, Any]]) -> list[list[str]]:
    """call #, model, status, input tokens, output tokens, latency, the answer's start."""
    rows = []
    for i, c in enumerate(calls, 1):
        model = "/".join(str(c[k]) for k in ("provider", "model") if c.get(k))
        latency = f"{c['latency_ms']:.0f} ms" if isinstance(c.get("latency_ms"), (int, float)) else ""
        rows.append(
            [
                str(i),
                model,
                str(c.get("status", "")),
                str(c.get("input_tokens", "")),
                str(c.get("output_tokens", "")),
                latency,
                _answer(c),
            ]
        )
    return rows


HEADERS = ["call", "model", "status", "input", "output", "latency", "answer (start)"]
