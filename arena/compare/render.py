"""A comparison as plain text (two columns), Markdown or self-contained HTML (the two
timelines side by side, the scorecard table, the diff coloured +/-). Pure: text out.
Every string from an agent was made printable when the comparison was built; HTML
escapes it again, Markdown tables escape ``|``."""

from __future__ import annotations

from html import escape

from arena.compare.build import Comparison
from arena.compare.timeline import Line
from arena.scoring.report import CSS
from arena.text import printable

COMPARE_CSS = """
body{max-width:1280px} table.tl{width:100%;table-layout:fixed;font-size:.85em}
table.tl td{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
table.tl .t{width:6em;text-align:right;color:#59636e} .agent{color:#59636e}
.k-submit,.k-score{font-weight:600;color:#0969da} .k-warning,.k-refused,.k-fault{color:#9a6700}
.k-finish{font-weight:600} pre.diff{white-space:pre-wrap;overflow-wrap:anywhere}
pre.diff .add{color:#1a7f37;background:#dafbe1;display:block} pre.diff .del{color:#cf222e;background:#ffebe9;display:block}
pre.diff .hunk{color:#8250df;display:block} .note{background:#fff8c5;padding:.4em .8em}
"""


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def _diff(v: float | None) -> str:
    return "-" if v is None else f"{v:+g}" if v else "0"


def _cell(line: Line | None) -> str:
    if line is None:
        return ""
    return ("> " if line.source == "agent" else "") + line.text


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _title(c: Comparison, side: str) -> str:
    h = (c.a if side == "A" else c.b).head()
    return f"{side}: {h['attempt']}  {h['challenge']}  {h['agent']}  total {h['total']:g}"


def render_text(c: Comparison, width: int = 160) -> str:
    """Plain text: heads, notes, the scorecards table, the aligned timeline, the diff."""
    col = max(20, (width - 12) // 2)
    out = [_title(c, "A"), _title(c, "B")]
    out += [f"note: {n}" for n in c.notes]
    out += ["", "scorecards (B - A)", f"  {'component':<10} {'A':>7} {'B':>7} {'B-A':>7}"]
    for r in c.components():
        out.append(f"  {r['component']:<10} {_num(r['a']):>7} {_num(r['b']):>7} {_diff(r['diff']):>7}")
    out += [
        "",
        "timeline (attempt clock; '>' lines are the agent's own account)",
        f"{'t':>8}  {'A ' + c.a.attempt:<{col}} | B {c.b.attempt}",
    ]
    for row in c.rows:
        out.append(f"{row.t:7.1f}s  {_cut(_cell(row.a), col):<{col}} | {_cut(_cell(row.b), col)}".rstrip())
    out += ["", *diff_lines(c)]
    return printable("\n".join(out) + "\n")


def diff_lines(c: Comparison) -> list[str]:
    d = c.diff
    sa, sb = c.a.card.scored_submission, c.b.card.scored_submission
    out = [f"diff of the scored submissions: A #{sa or '-'} -> B #{sb or '-'}"]
    out += [f"note: {n}" for n in d.notes]
    if d.identical:
        out.append("the two submissions are identical")
    for f in d.files:
        head = {"only_a": " (only in A)", "only_b": " (only in B)"}.get(f.status, "")
        out.append(f"--- A/{f.path}{head}")
        out.append(f"+++ B/{f.path}  +{f.added} -{f.removed}" + (f"  [{f.note}]" if f.note else ""))
        out += f.lines
    if d.truncated:
        out.append(f"... diff cut: {d.truncated} more lines not shown")
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def render_markdown(c: Comparison) -> str:
    out = [f"# Compare {c.a.attempt} and {c.b.attempt}", "", f"- {_title(c, 'A')}", f"- {_title(c, 'B')}", ""]
    out += [f"> **note:** {n}" for n in c.notes] + ([""] if c.notes else [])
    out += ["## Scorecards", "", "| component | A | B | B - A |", "|---|---:|---:|---:|"]
    out += [f"| {r['component']} | {_num(r['a'])} | {_num(r['b'])} | {_diff(r['diff'])} |" for r in c.components()]
    out += ["", "## Timeline", "", f"| t (s) | A {c.a.attempt} | B {c.b.attempt} |", "|---:|---|---|"]
    out += [f"| {r.t:.1f} | {_md(_cell(r.a))} | {_md(_cell(r.b))} |" for r in c.rows]
    out += ["", "## Diff of the scored submissions", "", "```diff", *diff_lines(c), "```"]
    return printable("\n".join(out) + "\n")


def _td(line: Line | None) -> str:
    if line is None:
        return "<td></td>"
    kind = line.kind.split(":")[0]
    who = ' <span class="agent">(agent)</span>' if line.source == "agent" else ""
    return f'<td class="k-{escape(kind)}">{escape(line.text)}{who}</td>'


def render_html(c: Comparison) -> str:
    e = escape
    p = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Gauntlet compare {e(c.a.attempt)} {e(c.b.attempt)}</title>"
        f"<style>{CSS}{COMPARE_CSS}</style></head><body>",
        f"<h1>Compare {e(c.a.attempt)} and {e(c.b.attempt)}</h1>",
        f'<p class="sub">{e(_title(c, "A"))}<br>{e(_title(c, "B"))}</p>',
    ]
    p += [f'<p class="note">{e(n)}</p>' for n in c.notes]
    p.append("<h2>Scorecards</h2><table><tr><th>component</th><th>A</th><th>B</th><th>B - A</th></tr>")
    for r in c.components():
        sign = "" if not r["diff"] else "pos" if r["diff"] > 0 else "neg"
        p.append(
            f"<tr><td>{e(r['component'])}</td><td class='num'>{_num(r['a'])}</td>"
            f"<td class='num'>{_num(r['b'])}</td><td class='num {sign}'>{_diff(r['diff'])}</td></tr>"
        )
    p.append("</table>")
    p.append("<h2>Timeline</h2>")
    p.append(
        f'<table class="tl"><tr><th class="t">t (s)</th><th>A {e(c.a.attempt)} · {e(str(c.a.head()["agent"]))}</th>'
        f"<th>B {e(c.b.attempt)} · {e(str(c.b.head()['agent']))}</th></tr>"
    )
    p += [f'<tr><td class="t">{r.t:.1f}</td>{_td(r.a)}{_td(r.b)}</tr>' for r in c.rows]
    p.append("</table>")
    p.append("<h2>Diff of the scored submissions</h2>")
    p.append('<pre class="diff">' + "".join(_diff_html(x) for x in diff_lines(c)) + "</pre>")
    p.append("</body></html>\n")
    return printable("\n".join(p))


def _diff_html(line: str) -> str:
    if line.startswith("+++") or line.startswith("---"):
        return f"<b>{escape(line)}</b>\n"
    cls = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1])
    if cls:
        return f'<span class="{cls}">{escape(line)}</span>'
    return escape(line) + "\n"
