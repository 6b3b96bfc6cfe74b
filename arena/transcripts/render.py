"""A decoded call as lines of plain text, for ``gauntlet show --transcript``, the reports
and the TUI's transcript screen. Every line is printable (``arena.text.printable``: no
control sequence of the model's or the agent's survives) and at most ``width`` columns
plus its indent (never over ``MAX_LINE``): a long line is wrapped, continuation rows
starting with ``↪``; a line past ``Limits.line_chars`` is cut, and a text past its line
budget is cut, each with a marker saying how much was left out."""

from __future__ import annotations

import json
from dataclasses import dataclass

from arena.text import printable
from arena.transcripts.calls import Call, CallInfo
from arena.transcripts.sent import Message, Part

MAX_LINE = 400


@dataclass(frozen=True)
class Limits:
    system_lines: int
    part_lines: int  # per message part sent
    answer_lines: int
    width: int = 160
    line_chars: int = 2000  # a longer logical line is cut
    total_lines: int = 20_000  # of one call, all parts together


BRIEF = Limits(system_lines=3, part_lines=12, answer_lines=60)
FULL = Limits(system_lines=2000, part_lines=400, answer_lines=2000)
SCREEN = Limits(system_lines=200, part_lines=200, answer_lines=500, width=200, total_lines=3000)


def _n(v: int | None) -> str:
    return "?" if v is None else f"{v:,}"


def cost_text(c: float | None) -> str:
    return "" if c is None else f"${c:.4f}"


def latency_text(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms / 1000:.1f} s" if ms >= 10_000 else f"{ms:.0f} ms"


def clean(text: str) -> str:
    """One row: tabs as spaces, nothing a terminal would obey."""
    return printable(text.expandtabs(4), newlines=False)


def wrap(text: str, indent: str, limits: Limits, max_lines: int) -> list[str]:
    """``text`` as rows of at most ``limits.width`` characters after ``indent``."""
    width = max(20, min(limits.width, MAX_LINE - len(indent) - 2))
    out: list[str] = []
    lines = text.splitlines() or [""]
    for i, line in enumerate(lines):
        cut = ""
        if len(line) > limits.line_chars:
            cut = f" … [cut: {len(line) - limits.line_chars:,} more characters on this line]"
            line = line[: limits.line_chars]
        row = clean(line)
        rows = [row[j : j + width] for j in range(0, len(row), width)] or [""]
        out += [indent + r if k == 0 else indent + "↪ " + r for k, r in enumerate(rows)]
        if cut:
            out[-1] += cut
        if len(out) >= max_lines and i + 1 < len(lines):
            rest = len(lines) - i - 1
            out = out[:max_lines]
            out.append(f"{indent}… [{rest:,} more line(s), {sum(len(x) + 1 for x in lines[i + 1 :]):,} characters]")
            return out
    if len(out) > max_lines:
        extra = len(out) - max_lines
        out = out[:max_lines] + [f"{indent}… [{extra:,} more row(s)]"]
    return out


def head(info: CallInfo) -> str:
    """``call 3 · anthropic/claude-sonnet-4 · 200 · streamed · 1,234 in / 56 out · $0.0012 · 812 ms``"""
    bits = [f"call {info.n}", info.label or "?", info.endpoint or info.api, f"status {info.status}"]
    if info.stream:
        bits.append("streamed")
    bits.append(f"{_n(info.input_tokens)} in / {_n(info.output_tokens)} out tokens")
    bits += [x for x in (cost_text(info.cost_usd), latency_text(info.latency_ms)) if x]
    return clean(" · ".join(bits))[:MAX_LINE]


def index_line(info: CallInfo) -> str:
    """One call in a list: number, status, tokens, latency, and what it said or called."""
    tok = f"{_n(info.input_tokens)}/{_n(info.output_tokens)} tok"
    text = f"{info.n:>4}  {str(info.status):>3}  {tok:>16}  {latency_text(info.latency_ms):>8}  {info.headline}"
    return clean(text)[: MAX_LINE - 1]


def _args(arguments: str, indent: str, limits: Limits) -> list[str]:
    try:
        obj = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return wrap(arguments, indent, limits, limits.part_lines)
    if not isinstance(obj, dict):
        return wrap(json.dumps(obj, ensure_ascii=False), indent, limits, limits.part_lines)
    out: list[str] = []
    for k, v in obj.items():
        if isinstance(v, str) and "\n" in v:
            out.append(clean(f"{indent}{k}:"))
            out += wrap(v, indent + "  ", limits, limits.part_lines)
        else:
            text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            out += wrap(f"{k}: {text}", indent, limits, limits.part_lines)
    return out or [indent + "(no arguments)"]


def _part(p: Part, indent: str, limits: Limits) -> list[str]:
    if p.kind == "tool_call":
        return [clean(f"{indent}tool call {p.name or '?'}")[:MAX_LINE]] + _args(p.text, indent + "    ", limits)
    if p.kind == "tool_result":
        label = f"{indent}tool result" + (f" ({p.name})" if p.name else "") + f", {len(p.text):,} characters:"
        return [clean(label)[:MAX_LINE]] + wrap(p.text, indent + "    ", limits, limits.part_lines)
    if p.kind == "text" and "\n" not in p.text and len(p.text) <= limits.width:
        return [clean(indent + p.text)]
    label = {"text": "", "reasoning": "reasoning:", "image": "", "other": "other:"}.get(p.kind, p.kind + ":")
    return ([indent + label] if label else []) + wrap(
        p.text, indent + ("    " if label else ""), limits, limits.part_lines
    )


def message_lines(m: Message, limits: Limits, echo: int | None = None) -> list[str]:
    role = clean(m.role)[:40]
    if echo is not None:
        what = ", ".join(p.name or "?" for p in m.parts if p.kind == "tool_call")
        return [clean(f"  {role}: call {echo}'s answer, sent back" + (f" ({what})" if what else ""))[:MAX_LINE]]
    if len(m.parts) == 1 and m.parts[0].kind == "text" and "\n" not in m.parts[0].text:
        return wrap(f"{role}: {m.parts[0].text}", "  ", limits, limits.part_lines)
    if m.parts and all(p.kind == "tool_result" for p in m.parts):  # the result says what it is
        return [line for p in m.parts for line in _part(p, "  ", limits)]
    out = [f"  {role}:"]
    for p in m.parts:
        out += _part(p, "      ", limits)
    if not m.parts:
        out[-1] += " (empty)"
    return out


def call_lines(call: Call, limits: Limits = BRIEF) -> list[str]:
    """The whole call: head, system, tools, the new messages, the answer, notes."""
    i, req, a = call.info, call.request, call.answer
    out = [head(i)]
    if call.system_same_as:
        out.append(f"system: same as call {call.system_same_as}")
    elif req.system is not None:
        out.append(f"system ({len(req.system):,} characters):")
        out += wrap(req.system, "    ", limits, limits.system_lines)
    if call.tools_same_as:
        out.append(f"tools: same as call {call.tools_same_as}")
    elif req.tools:
        out += wrap(f"tools ({len(req.tools)}): " + ", ".join(req.tools), "", limits, 4)
    if not i.omitted and (req.raw_messages or req.messages):
        total = len(req.messages)
        if call.continues:
            lead = f"messages: {total}, the first {call.earlier} as in call {call.continues}; {len(call.new)} new"
        else:
            lead = f"messages: {total}" + (", all new" if total else "")
        out.append(lead + (":" if call.new else ""))
        for k, m in enumerate(call.new):
            echo = call.echoes.get(k)
            if echo is not None and k and call.echoes.get(k - 1) == echo:
                continue  # one answer sent back as several items (Responses): said once
            if echo is None:
                out += message_lines(m, limits)
                continue
            end = k
            while end < len(call.new) and call.echoes.get(end) == echo:
                end += 1
            parts = [p for x in call.new[k:end] for p in x.parts]
            out += message_lines(Message(m.role, parts), limits, echo)
    stop = f" (stop: {clean(a.stop_reason)[:80]})" if a.stop_reason else ""
    if not i.omitted:
        out.append("answer" + stop + ":")
        if a.reasoning:
            out.append("  reasoning:")
            out += wrap(a.reasoning, "      ", limits, limits.part_lines)
        if a.text:
            out.append("  text:")
            out += wrap(a.text, "      ", limits, limits.answer_lines)
        for t in a.tool_calls:
            label = f"  tool call {t.name or '?'}" + (f" ({t.id})" if t.id else "")
            out.append(clean(label)[:MAX_LINE])
            out += _args(t.arguments, "      ", limits)
        if a.error:
            out += wrap("error: " + a.error, "  ", limits, limits.part_lines)
        if not (a.text or a.tool_calls or a.error or a.reasoning):
            out.append("  (nothing)")
    for note in call.notes + a.notes:
        out += wrap("note: " + note, "", limits, 4)
    if len(out) > limits.total_lines:
        rest = len(out) - limits.total_lines
        out = out[: limits.total_lines] + [
            f"… [{rest:,} more line(s) of this call: `gauntlet show --transcript --call {i.n}`]"
        ]
    return [line[:MAX_LINE] for line in out]
