"""Shareable reports of a judged attempt: self-contained HTML (inline SVG plots, inline
CSS, no scripts) or Markdown (plots as text bars). Pure: scorecard + events → text."""

from __future__ import annotations

import json
from html import escape

from arena.text import printable
from typing import TYPE_CHECKING, Any, Iterable

from arena.scoring.history import AttemptHistory
from arena.scoring.report_usage import (
    HEADERS,
    decoded,
    ended,
    md_inline,
    transcript_html,
    transcript_markdown,
    transcript_rows,
    usage_line,
)
from arena.scoring.scorecard import Scorecard
from arena.scoring.svg import ascii_bars, bar_plot, line_plot
from arena import events as ev

if TYPE_CHECKING:
    from arena.transcripts import Transcript

CSS = """
body{font-family:system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#1f2328}
h1{font-size:1.6em;margin-bottom:.2em} .sub{color:#59636e;margin-top:0}
table{border-collapse:collapse;margin:.6em 0 1.2em} th,td{border:1px solid #d1d9e0;padding:.3em .6em;
text-align:left;vertical-align:top} th{background:#f6f8fa} td.num{text-align:right}
td:first-child,td.num{white-space:nowrap} td:last-child:not(.num){overflow-wrap:anywhere}
.total{font-size:2.4em;font-weight:700} .plots{display:flex;flex-wrap:wrap;gap:1em}
.pos{color:#1a7f37} .neg{color:#cf222e} pre{background:#f6f8fa;padding:.8em;overflow:auto;font-size:.85em}
details{margin:.4em 0} details.call{border:1px solid #d1d9e0;border-radius:6px;padding:.2em .6em}
details.call summary{cursor:pointer;font-size:.9em} details.call pre{white-space:pre-wrap;overflow-wrap:anywhere}
"""


def feedback_docs(events: Iterable[Any]) -> list[dict]:
    h = AttemptHistory.from_events(events)
    return [e.data for e in h.events if e.kind == ev.FEEDBACK_DELIVERED]


def _labels(card: Scorecard) -> list[str]:
    return [f"#{it['submission']}" for it in card.iterations]


def _durations(card: Scorecard) -> list[float]:
    return [float(it["duration_seconds"]) for it in card.iterations]


def _sign(p: float) -> str:
    return "pos" if p > 0 else "neg" if p < 0 else ""


def render_html(card: Scorecard, events: Iterable[Any], calls: list[dict[str, Any]] | Transcript | None = None) -> str:
    """``calls``: the attempt's transcript records (``arena.gateway.read_transcript``), or
    a ``Transcript`` over its file."""
    events = list(events)
    transcript = decoded(calls, events)
    docs = feedback_docs(events)
    e = escape
    parts = [
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Gauntlet report {e(card.attempt)}</title><style>{CSS}</style></head><body>",
        f"<h1>{e(card.challenge)} — {e(card.agent)}</h1>",
        f'<p class="sub">attempt {e(card.attempt)} · {e(card.format)} · {e(card.weight_class)} · '
        f"status {e(str(card.status))} · scored submission {card.scored_submission}</p>",
        f'<p><span class="total">{card.total:g}</span> / 100</p>',
        "<h2>Components</h2><table><tr><th>component</th><th>score</th><th>weight</th></tr>",
    ]
    for k, v in card.components.items():
        parts.append(f'<tr><td>{e(k)}</td><td class="num">{v:g}</td><td class="num">{card.weights[k]:g}</td></tr>')
    parts.append("</table>")
    parts.append('<div class="plots">')
    parts.append(line_plot(card.trajectory, _labels(card), "Score trajectory", "objective score"))
    parts.append(bar_plot(_durations(card), _labels(card), "Time per iteration", "seconds"))
    parts.append("</div>")
    if card.phases:
        parts.append("<h2>Phases</h2><table><tr><th>phase</th><th>objective</th></tr>")
        parts += [f'<tr><td>{e(p.id)}</td><td class="num">{p.objective:g}</td></tr>' for p in card.phases]
        parts.append("</table>")
    for title, rows in (
        ("Process adjustments", card.process_adjustments),
        ("Strategy adjustments", card.strategy_adjustments),
    ):
        parts.append(f"<h2>{title}</h2>")
        if not rows:
            parts.append("<p>none</p>")
            continue
        parts.append("<table><tr><th>rule</th><th>points</th><th>evidence</th></tr>")
        parts += [
            f'<tr><td>{e(a.rule)}</td><td class="num {_sign(a.points)}">{a.points:+g}</td><td>{e(a.evidence)}</td></tr>'
            for a in rows
        ]
        parts.append("</table>")
    if card.components:
        parts.append(
            f"<p>Process raw total {card.process_raw:+g} (clamped to -30..+20, mapped to "
            f"{card.components['process']:g}/100).</p>"
        )
    parts.append("<h2>Integrity flags</h2>")
    if card.flags:
        parts.append("<table><tr><th>flag</th><th>points</th><th>detail</th></tr>")
        parts += [
            f'<tr><td>{e(f.rule)}</td><td class="num neg">{f.points:+g}</td><td>{e(f.detail)}</td></tr>'
            for f in card.flags
        ]
        parts.append("</table>")
    else:
        parts.append("<p>none</p>")
    parts.append("<h2>Model usage</h2>")
    parts.append(f"<p>ended: {e(ended(events))}<br>usage: {e(usage_line(card.usage))}</p>")
    call_rows = transcript_rows(transcript)
    if call_rows:
        parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in HEADERS) + "</tr>")
        parts += ["<tr>" + "".join(f"<td>{e(v)}</td>" for v in r) + "</tr>" for r in call_rows]
        parts.append("</table>")
    else:
        parts.append("<p>no transcript: no model call was kept for this attempt</p>")
    parts += transcript_html(transcript, e)
    parts.append("<h2>Feedback documents</h2>")
    if not docs:
        parts.append("<p>none delivered</p>")
    for d in docs:
        body = json.dumps(d.get("feedback", {}), indent=2, sort_keys=True, ensure_ascii=False)
        parts.append(
            f"<details open><summary>submission {e(str(d.get('submission')))}</summary><pre>{e(body)}</pre></details>"
        )
    parts.append("</body></html>\n")
    return printable("\n".join(parts))  # agent text never reaches a terminal raw


def render_markdown(
    card: Scorecard, events: Iterable[Any], calls: list[dict[str, Any]] | Transcript | None = None
) -> str:
    events = list(events)
    transcript = decoded(calls, events)
    docs = feedback_docs(events)
    out = [
        f"# {card.challenge} — {card.agent}",
        "",
        f"attempt `{card.attempt}` · {card.format} · {card.weight_class} · status {card.status} · "
        f"scored submission {card.scored_submission}",
        "",
        f"**Total: {card.total:g} / 100**",
        "",
        "| component | score | weight |",
        "|---|---:|---:|",
    ]
    out += [f"| {k} | {v:g} | {card.weights[k]:g} |" for k, v in card.components.items()]
    out += [
        "",
        "## Score trajectory",
        "",
        ascii_bars(card.trajectory, _labels(card), y_max=100.0),
        "",
        "## Time per iteration",
        "",
        ascii_bars(_durations(card), _labels(card), unit="s"),
        "",
    ]
    if card.phases:
        out += ["## Phases", "", "| phase | objective |", "|---|---:|"]
        out += [f"| {p.id} | {p.objective:g} |" for p in card.phases]
        out.append("")
    for title, rows in (
        ("Process adjustments", card.process_adjustments),
        ("Strategy adjustments", card.strategy_adjustments),
    ):
        out += [f"## {title}", ""]
        if rows:
            out += ["| rule | points | evidence |", "|---|---:|---|"]
            out += [f"| {a.rule} | {a.points:+g} | {_md(a.evidence)} |" for a in rows]
        else:
            out.append("none")
        out.append("")
    out += [
        f"Process raw total {card.process_raw:+g} (clamped to -30..+20, mapped to "
        f"{card.components.get('process', 0):g}/100).",
        "",
        "## Integrity flags",
        "",
    ]
    if card.flags:
        out += ["| flag | points | detail |", "|---|---:|---|"]
        out += [f"| {f.rule} | {f.points:+g} | {_md(f.detail)} |" for f in card.flags]
    else:
        out.append("none")
    out += ["", "## Model usage", "", f"ended: {ended(events)}", "", f"usage: {usage_line(card.usage)}", ""]
    call_rows = transcript_rows(transcript)
    if call_rows:
        out += ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        out += ["| " + " | ".join(_md(v) for v in r) + " |" for r in call_rows]
    else:
        out.append("no transcript: no model call was kept for this attempt")
    out.append("")
    out += transcript_markdown(transcript)
    out += ["## Feedback documents", ""]
    for d in docs:
        body = json.dumps(d.get("feedback", {}), indent=2, sort_keys=True, ensure_ascii=False)
        out += [f"### Submission {d.get('submission')}", "", "```json", body, "```", ""]
    if not docs:
        out.append("none delivered")
    return printable("\n".join(out) + "\n")


def _md(text: str) -> str:
    return md_inline(text)
