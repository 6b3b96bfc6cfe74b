"""What the ``challenge`` verbs share: a package named by path or bundled id, and findings
printed as text or JSON with seed 003's exit codes (0 clean, 1 findings, 2 unreadable).
Its own module so that ``challenge_cmd`` and the verbs it registers (``publish_cmd``)
import it, not each other."""

from __future__ import annotations

import argparse
import json
import sys

from arena.results import Finding

COUNTED = ("error", "warning")


def package(ref: str) -> str:
    """DIR as given, or the directory of the bundled challenge of that id."""
    from pathlib import Path  # noqa: PLC0415

    from arena.challenge import ChallengeError, resolve_challenge  # noqa: PLC0415

    if Path(ref).exists():
        return ref
    try:
        return str(resolve_challenge(ref))
    except ChallengeError:
        return ref  # reported as "no such directory" by the loader


def exit_code(findings: list[Finding]) -> int:
    if any(f.check == "unreadable" for f in findings):
        return 2
    return 1 if any(f.severity in COUNTED for f in findings) else 0


def render(name: str, findings: list[Finding], verdict: str | None = None) -> list[str]:
    order = {"error": 0, "warning": 1, "info": 2}
    lines = [f"{f.severity:<7} {f.check:<18} {f.detail}" for f in sorted(findings, key=lambda f: order[f.severity])]
    n_err = sum(f.severity == "error" for f in findings)
    n_warn = sum(f.severity == "warning" for f in findings)
    summary = "ok" if not (n_err or n_warn) else f"{n_err} error(s), {n_warn} warning(s)"
    lines.append(f"{name}: {summary}" + (f" — verdict {verdict}" if verdict else ""))
    return lines


def report(args: argparse.Namespace, name: str, findings: list[Finding], extra: dict | None = None) -> int:
    code = exit_code(findings)
    if args.json:
        doc = {"challenge": name, "findings": [f.model_dump() for f in findings], "ok": code == 0}
        doc.update(extra or {})
        print(json.dumps(doc, indent=2))
        return code
    if code == 2:
        for f in findings:
            print(f"gauntlet: {f.detail}", file=sys.stderr)
        return code
    for line in render(name, findings, (extra or {}).get("verdict")):
        print(line)
    return code
