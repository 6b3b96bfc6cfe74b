"""A package as the library and the generate view show it: its manifest summary and its
validation findings as markup. Imports no screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gauntlet_tui.text import esc as escape


def describe(path: Path) -> tuple[str, list[Any], Any]:
    """(summary markup, findings, challenge or None) for a package directory."""
    from arena.pipeline.package import examine

    challenge, findings = examine(path)
    if challenge is None:
        return f"[b]{escape(path.name)}[/]\n[$error]cannot be loaded[/]", findings, None
    m = challenge.manifest
    prof = getattr(m, "difficulty_profile", None)
    prof_d = prof.model_dump() if prof is not None and hasattr(prof, "model_dump") else dict(prof or {})
    lines = [
        f"[b]{escape(m.title)}[/]  [$text-muted]{escape(m.id)}[/]",
        escape(getattr(m, "hook", "") or ""),
        "",
        f"format [b]{m.format}[/] · class [b]{escape(str(m.weight_class))}[/] · "
        f"time [b]{m.time_limit_s / 60:g} min[/] · budget [b]{m.iterations}[/] · {escape(str(m.category))}",
        "profile: " + ", ".join(f"{k} {float(v):.1f}" for k, v in prof_d.items()),
        "agents: " + (", ".join(f"scripted:{n}" for n in challenge.agent_names) or "none"),
        f"[$text-muted]{escape(str(path))}[/]",
    ]
    return "\n".join(lines), findings, challenge


def render_findings(findings: list[Any]) -> str:
    if not findings:
        return "[$success]validation: no findings[/]"
    colour = {"error": "$error", "warning": "$warning"}
    out = [f"[b]validation: {len(findings)} finding(s)[/]"]
    for f in findings:
        out.append(f"[{colour.get(f.severity, '$text-muted')}]{f.severity}[/] {escape(f.check)}: {escape(f.detail)}")
    return "\n".join(out)
