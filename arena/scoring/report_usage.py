"""The model usage part of a shareable report (issue 21 item 7): how the attempt ended,
its usage as ``arena.usage`` counts it (the one count ``show``, ``judge`` and the TUI give)
and a summary of its transcript, one row per model call the gateway kept, with what the
model said or called decoded (``arena.transcripts``); and the report's "Transcript"
section (issue 35): each call's new messages and answer. Pure: the scorecard, the events
and the transcript's records (the command line reads them from the store's transcripts
directory) in, rows and lines of plain text out."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from arena import events as ev
from arena.usage import breakdown

if TYPE_CHECKING:  # imported where used: `show` and `judge` import this module for two lines
    from arena.transcripts import Transcript

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


def decoded(calls: "list[dict[str, Any]] | Transcript | None", events: Iterable[Any] = ()) -> Transcript:
    """The attempt's transcript for a report: ``calls`` are the records as read
    (``arena.gateway.read_transcript``) or a ``Transcript`` over the file; costs come
    from the records or the ``model.call`` events."""
    from arena.transcripts import Transcript  # noqa: PLC0415

    if isinstance(calls, Transcript):
        return calls
    model_calls = [e.data for e in events if e.kind == ev.MODEL_CALL]
    return Transcript(None, model_calls, records=list(calls or []))


def transcript_rows(calls: "list[dict[str, Any]] | Transcript | None", events: Iterable[Any] = ()) -> list[list[str]]:
    """call #, model, status, input tokens, output tokens, cost, latency, and what the
    model said or called (decoded: its text's first line, else its tool calls)."""
    from arena.transcripts.render import cost_text, latency_text  # noqa: PLC0415

    rows = []
    for info in decoded(calls, events).index():
        rows.append(
            [
                str(info.n),
                info.label,
                str(info.status if info.status is not None else ""),
                "" if info.input_tokens is None else str(info.input_tokens),
                "" if info.output_tokens is None else str(info.output_tokens),
                cost_text(info.cost_usd),
                latency_text(info.latency_ms),
                info.headline[:EXCERPT] + ("…" if len(info.headline) > EXCERPT else ""),
            ]
        )
    return rows


HEADERS = ["call", "model", "status", "input", "output", "cost", "latency", "answer"]


def transcript_html(t: Transcript, e: Callable[[str], str]) -> list[str]:
    """The report's Transcript section: one collapsed ``<details>`` per call, its summary
    the call's line, its body the decoded call (``arena.transcripts.render``)."""
    from arena.transcripts.render import BRIEF, call_lines, cost_text, latency_text  # noqa: PLC0415

    parts = ["<h2>Transcript</h2>"]
    n = 0
    for call in t.calls():
        n += 1
        i = call.info
        summary = f"call {i.n} · {i.label} · {i.status} · {i.input_tokens or 0}/{i.output_tokens or 0} tok"
        summary += "".join(f" · {x}" for x in (cost_text(i.cost_usd), latency_text(i.latency_ms)) if x)
        parts.append(
            f'<details class="call"><summary>{e(summary)} — <i>{e(i.headline)}</i></summary>'
            f"<pre>{e(chr(10).join(call_lines(call, BRIEF)[1:]))}</pre></details>"
        )
    if not n:
        parts.append("<p>no transcript: no model call was kept for this attempt</p>")
    return parts


def md_inline(text: str) -> str:
    """``text`` inside a Markdown table cell or heading: one line, and no character that
    Markdown (or the HTML it may hold) would read as syntax."""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", " ".join(text.split()))


def transcript_markdown(t: Transcript) -> list[str]:
    from arena.transcripts.render import BRIEF, call_lines  # noqa: PLC0415

    out = ["## Transcript", ""]
    n = 0
    for call in t.calls():
        n += 1
        lines = call_lines(call, BRIEF)
        longest = max((len(m) for ln in lines for m in re.findall(r"`+", ln)), default=0)
        fence = "`" * max(3, longest + 1)
        out += [f"### Call {call.info.n}: {md_inline(call.info.headline)}", "", fence + "text", *lines, fence, ""]
    if not n:
        out += ["no transcript: no model call was kept for this attempt", ""]
    return out
