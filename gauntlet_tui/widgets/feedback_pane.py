"""One submission's feedback document, rendered exactly as delivered.

Every field the format disclosed is drawn; a field the format withheld is absent from
the document and so absent here — nothing is inferred or filled in. Fields this pane
does not know are still drawn, as ``key: value``, so nothing disclosed is ever hidden.
Colours are theme variables (``$success``, ``$error``...). Document text is never parsed
as markup (a failure message may hold ``[...]``): it is assembled as plain ``Content``.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from arena.judge.verdict.verifier_output import TAIL_HEADING
from gauntlet_tui.text import line, lines

# The CONTRACT §4 fields, in the order they are drawn.
KNOWN = (
    "submission",
    "iteration",
    "at",
    "elapsed_s",
    "build",
    "tests",
    "hidden",
    "adversarial",
    "lint",
    "coverage",
    "diff",
    "regressions",
    "phase",
    "score_preview",
    "trajectory",
    "notices",
)


def _failures(items: list[dict[str, Any]]) -> list[Content]:
    out = []
    for f in items:
        parts: list = ["    ", ("✗", "$error"), " ", str(f.get("name", "?"))]
        if f.get("category"):
            parts += ["  ", (f"({f['category']})", "$text-muted")]
        out.append(line(*parts))
        lines = str(f.get("message") or "").splitlines()
        if len(lines) > 4 and lines[1] == TAIL_HEADING:  # a verifier's output: its last lines say why
            lines = [lines[0], f"{TAIL_HEADING} ...", *lines[-2:]]
        for msg_line in lines[:4]:
            out.append(line("        ", (msg_line, "$text-muted")))
    return out


def _counts(label: str, d: dict[str, Any]) -> Content:
    total, passed = d.get("total", 0), d.get("passed", 0)
    colour = "$success" if total and passed == total else ("$error" if total else "$text-muted")
    extra = "".join(f", {d[k]} {k}" for k in ("failed", "skipped") if k in d)
    return line((label, "b"), " ", (f"{passed}/{total} passed", colour), extra)


def render_feedback(doc: dict[str, Any]) -> Content:
    """The styled text of a feedback document (pure: tested without an app)."""
    out: list[Content] = []
    head: list = [(f"Submission {doc.get('submission', '?')}", "b")]
    if "iteration" in doc:
        head.append(f"  iteration {doc['iteration']}")
    if "elapsed_s" in doc:
        head.append(f"  at {float(doc['elapsed_s']):.0f}s")
    if "at" in doc:
        head += ["  ", (str(doc["at"]), "$text-muted")]
    out.append(line(*head))
    if "build" in doc:
        b = doc["build"] or {}
        ok = b.get("status") == "success"
        out.append(line(("Build", "b"), " ", (str(b.get("status", "?")), "$success" if ok else "$error")))
        out += [line("    ", (str(e), "$error")) for e in b.get("errors", [])]
        out += [line("    ", (str(w), "$warning")) for w in b.get("warnings", [])]
    if "tests" in doc:
        t = doc["tests"] or {}
        out.append(_counts("Tests", t))
        if "results" in t:  # each static test's name with pass/fail (and category)
            for r in t["results"]:
                outcome = str(r.get("outcome", "?"))
                mark = {"passed": ("✓", "$success"), "skipped": ("-", "$text-muted")}.get(outcome, ("✗", "$error"))
                parts: list = ["    ", mark, " ", str(r.get("name", "?"))]
                if r.get("category"):
                    parts += ["  ", (f"({r['category']})", "$text-muted")]
                out.append(line(*parts))
            with_messages = [f for f in t.get("failures", []) if f.get("message")]
            if with_messages:
                out.append(line("  ", ("failure messages", "b")))
                out += _failures(with_messages)
        else:
            out += _failures(t.get("failures", []))
    if "hidden" in doc:
        out.append(_counts("Hidden", doc["hidden"] or {}))
    if "adversarial" in doc:
        a = doc["adversarial"] or {}
        out.append(_counts("Adversarial", a))
        out += _failures(a.get("failures", []))
    if "lint" in doc:
        li = doc["lint"] or {}
        out.append(line(("Lint", "b"), f" {li.get('errors', 0)} errors, {li.get('warnings', 0)} warnings"))
        out += [line("    ", str(i)) for i in li.get("issues", [])[:10]]
    if "coverage" in doc:
        c = doc["coverage"] or {}
        parts_ = [f"{k.split('_')[0]} {c[k]:.1f}%" for k in ("line_percent", "branch_percent") if c.get(k) is not None]
        out.append(line(("Coverage", "b"), " " + (", ".join(parts_) or "n/a")))
        if c.get("uncovered_files"):
            out.append(line("    uncovered: " + ", ".join(map(str, c["uncovered_files"]))))
    if "diff" in doc:
        d = doc["diff"] or {}
        out.append(
            line(
                ("Diff", "b"),
                f" {d.get('files_changed', 0)} files, ",
                (f"+{d.get('lines_added', 0)}", "$success"),
                " ",
                (f"-{d.get('lines_removed', 0)}", "$error"),
            )
        )
    if "regressions" in doc:
        regs = doc["regressions"] or []
        out.append(
            line(
                ("Regressions", "b"),
                " ",
                (", ".join(map(str, regs)) if regs else "none", "$error" if regs else "$success"),
            )
        )
    if "phase" in doc:
        p = doc["phase"] or {}
        done = ", ".join(map(str, p.get("completed", []))) or "none"
        out.append(line(("Phase", "b"), f" {p.get('current', '?')} (completed: {done})"))
        if p.get("hint"):
            out.append(line("    hint: " + str(p["hint"])))
    if "score_preview" in doc:
        sp = doc["score_preview"] or {}
        out.append(line(("Score preview", "b"), " " + ", ".join(f"{k} {float(v):.1f}" for k, v in sp.items())))
    if "trajectory" in doc:
        out.append(line(("Trajectory", "b"), " " + " → ".join(f"{float(v):.1f}" for v in doc["trajectory"] or [])))
    if "notices" in doc:
        out += [line((f"⚠ {n}", "$warning")) for n in doc["notices"] or []]
    for key in doc:
        if key not in KNOWN:
            out.append(line((str(key), "b"), " " + str(doc[key])))
    return lines(out)


class FeedbackPane(VerticalScroll):
    DEFAULT_CSS = """
    FeedbackPane { height: 1fr; padding: 0 1; }
    """

    def __init__(self, doc: dict[str, Any], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.doc = doc

    def compose(self) -> ComposeResult:
        yield Static(render_feedback(self.doc), classes="feedback-body")
