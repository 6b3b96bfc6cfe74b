"""One submission's feedback document, rendered exactly as delivered.

Every field the format disclosed is drawn; a field the format withheld is absent from
the document and so absent here — nothing is inferred or filled in. Fields this pane
does not know are still drawn, as ``key: value``, so nothing disclosed is ever hidden.
Colours are theme variables (``$success``, ``$error``...) via content markup.
"""
from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.widgets import Static

# The CONTRACT §4 fields, in the order they are drawn.
KNOWN = (
    "submission", "iteration", "at", "elapsed_s", "build", "tests", "hidden", "adversarial",
    "lint", "coverage", "diff", "regressions", "phase", "score_preview", "trajectory", "notices",
)


def _failures(items: list[dict[str, Any]]) -> list[str]:
    out = []
    for f in items:
        line = f"    [$error]✗[/] {escape(str(f.get('name', '?')))}"
        if f.get("category"):
            line += f" [$text-muted]({escape(str(f['category']))})[/]"
        out.append(line)
        if f.get("message"):
            for msg_line in str(f["message"]).splitlines()[:4]:
                out.append(f"        [$text-muted]{escape(msg_line)}[/]")
    return out


def _counts(label: str, d: dict[str, Any]) -> str:
    total, passed = d.get("total", 0), d.get("passed", 0)
    colour = "$success" if total and passed == total else ("$error" if total else "$text-muted")
    extra = "".join(
        f", {d[k]} {k}" for k in ("failed", "skipped") if k in d
    )
    return f"[b]{label}[/] [{colour}]{passed}/{total} passed[/]{extra}"


def render_feedback(doc: dict[str, Any]) -> str:
    """Content markup for a feedback document (pure: tested without an app)."""
    lines: list[str] = []
    head = f"[b]Submission {doc.get('submission', '?')}[/]"
    if "iteration" in doc:
        head += f"  iteration {doc['iteration']}"
    if "elapsed_s" in doc:
        head += f"  at {float(doc['elapsed_s']):.0f}s"
    if "at" in doc:
        head += f"  [$text-muted]{escape(str(doc['at']))}[/]"
    lines.append(head)
    if "build" in doc:
        b = doc["build"] or {}
        ok = b.get("status") == "success"
        lines.append(f"[b]Build[/] [{'$success' if ok else '$error'}]{escape(str(b.get('status', '?')))}[/]")
        lines += [f"    [$error]{escape(str(e))}[/]" for e in b.get("errors", [])]
        lines += [f"    [$warning]{escape(str(w))}[/]" for w in b.get("warnings", [])]
    if "tests" in doc:
        t = doc["tests"] or {}
        lines.append(_counts("Tests", t))
        if "results" in t:  # each static test's name with pass/fail (and category)
            for r in t["results"]:
                outcome = str(r.get("outcome", "?"))
                mark = {"passed": "[$success]✓[/]", "skipped": "[$text-muted]-[/]"}.get(outcome, "[$error]✗[/]")
                cat = f" [$text-muted]({escape(str(r['category']))})[/]" if r.get("category") else ""
                lines.append(f"    {mark} {escape(str(r.get('name', '?')))}{cat}")
            with_messages = [f for f in t.get("failures", []) if f.get("message")]
            if with_messages:
                lines.append("  [b]failure messages[/]")
                lines += _failures(with_messages)
        else:
            lines += _failures(t.get("failures", []))
    if "hidden" in doc:
        lines.append(_counts("Hidden", doc["hidden"] or {}))
    if "adversarial" in doc:
        a = doc["adversarial"] or {}
        lines.append(_counts("Adversarial", a))
        lines += _failures(a.get("failures", []))
    if "lint" in doc:
        li = doc["lint"] or {}
        lines.append(f"[b]Lint[/] {li.get('errors', 0)} errors, {li.get('warnings', 0)} warnings")
        lines += [f"    {escape(str(i))}" for i in li.get("issues", [])[:10]]
    if "coverage" in doc:
        c = doc["coverage"] or {}
        parts = [f"{k.split('_')[0]} {c[k]:.1f}%" for k in ("line_percent", "branch_percent") if c.get(k) is not None]
        lines.append(f"[b]Coverage[/] {', '.join(parts) or 'n/a'}")
        if c.get("uncovered_files"):
            lines.append(f"    uncovered: {escape(', '.join(map(str, c['uncovered_files'])))}")
    if "diff" in doc:
        d = doc["diff"] or {}
        lines.append(
            f"[b]Diff[/] {d.get('files_changed', 0)} files, "
            f"[$success]+{d.get('lines_added', 0)}[/] [$error]-{d.get('lines_removed', 0)}[/]"
        )
    if "regressions" in doc:
        regs = doc["regressions"] or []
        colour = "$error" if regs else "$success"
        lines.append(f"[b]Regressions[/] [{colour}]{escape(', '.join(map(str, regs))) if regs else 'none'}[/]")
    if "phase" in doc:
        p = doc["phase"] or {}
        done = ", ".join(map(str, p.get("completed", []))) or "none"
        lines.append(f"[b]Phase[/] {p.get('current', '?')} (completed: {done})")
        if p.get("hint"):
            lines.append(f"    hint: {escape(str(p['hint']))}")
    if "score_preview" in doc:
        sp = doc["score_preview"] or {}
        lines.append("[b]Score preview[/] " + ", ".join(f"{k} {float(v):.1f}" for k, v in sp.items()))
    if "trajectory" in doc:
        lines.append("[b]Trajectory[/] " + " → ".join(f"{float(v):.1f}" for v in doc["trajectory"] or []))
    if "notices" in doc:
        lines += [f"[$warning]⚠ {escape(str(n))}[/]" for n in doc["notices"] or []]
    for key in doc:
        if key not in KNOWN:
            lines.append(f"[b]{escape(str(key))}[/] {escape(str(doc[key]))}")
    return "\n".join(lines)


class FeedbackPane(VerticalScroll):
    DEFAULT_CSS = """
    FeedbackPane { height: 1fr; padding: 0 1; }
    """

    def __init__(self, doc: dict[str, Any], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.doc = doc

    def compose(self) -> ComposeResult:
        yield Static(render_feedback(self.doc), classes="feedback-body")
