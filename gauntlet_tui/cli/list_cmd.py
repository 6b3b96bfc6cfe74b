"""``gauntlet challenge list [--summary] [--json] [--store DB] [--generated DIR ...]``:
every challenge known (bundled, generated, published) with its category, format, weight
class and whether it is calibrated; ``--summary`` adds seed 000's format mix and seed
002's class pools and category coverage. The collecting is arena/pipeline/catalogue.py's.
Registered under ``challenge`` by ``challenge_cmd``. Exit 0, 2 for bad input."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ABBREV = {
    "debug-gauntlet": "debug",
    "forensic-reasoning": "forens",
    "recovery": "recov",
    "deceptive-optimization": "decept",
    "constraint-maze": "constr",
    "adversarial-implementation": "advers",
    "tool-use-orchestration": "tools",
    "open-ended-strategy": "open",
    "long-horizon-planning": "long",
    "humanity-gap": "human",
}


def register_list(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "list", help="every challenge: bundled, generated, published; category, format, class, calibrated or not"
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument(
        "--summary",
        action="store_true",
        help="also the format mix against seed 000's 20/65/15 and each class's pool and category coverage (seed 002)",
    )
    p.add_argument(
        "--store",
        metavar="DB",
        default=None,
        help="the store whose published/ and generated/ are listed (default ./gauntlet.db or GAUNTLET_STORE)",
    )
    p.add_argument(
        "--generated",
        metavar="DIR",
        action="append",
        default=[],
        help="a `challenge generate --out` directory, or a folder of them (repeatable)",
    )
    p.set_defaults(func=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    from arena.errors import UsageError  # noqa: PLC0415
    from arena.paths import store_path  # noqa: PLC0415
    from arena.pipeline.catalogue import catalogue, summary  # noqa: PLC0415

    dirs = [Path(d) for d in args.generated]
    for d in dirs:
        if not d.is_dir():
            raise UsageError(f"--generated {d}: no such directory: expected a `challenge generate --out` directory")
    rows = catalogue(store_path(args.store), dirs)
    summ = summary(rows) if args.summary else None
    if args.json:
        doc: dict[str, Any] = {"challenges": [r.doc() for r in rows]}
        if summ is not None:
            doc["summary"] = summ
        print(json.dumps(doc, indent=2))
        return 0
    print("\n".join(render_rows(rows)))
    if summ is not None:
        print()
        print("\n".join(render_summary(summ)))
    return 0


def render_rows(rows: list) -> list[str]:
    if not rows:
        return ["no challenges"]
    out = [f"{'id':<28} {'source':<10} {'category':<27} {'format':<9} {'class':<13} calibrated"]
    for r in rows:
        cal = ("yes: " if r.calibrated else "no: ") + r.calibration
        state = f" [{r.state}]" if r.state else ""
        out.append(
            f"{r.id:<28} {r.source:<10} {r.category or '?':<27} {r.format or '?':<9} {r.weight_class or '?':<13} {cal}{state}"
        )
        if r.problem:
            out.append(f"    does not load: {r.problem}")
    return out


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def render_summary(s: dict[str, Any]) -> list[str]:
    src = ", ".join(f"{n} {k}" for k, n in s["by_source"].items())
    out = [
        f"catalogue: {s['challenges']} distinct challenges ({src}; a published bundled one counts once), "
        f"{s['calibrated']} calibrated",
        "",
        "format mix against seed 000 (about 20% Sprint, 65% Standard, 15% Marathon):",
    ]
    for f, m in s["format_mix"].items():
        out.append(
            f"  {f:<9} {m['count']:>3}  {_pct(m['share']):>4}  target {_pct(m['target']):>4}  "
            f"({'+' if m['off_by'] >= 0 else '-'}{abs(m['off_by']) * 100:.0f} points)"
        )
    if s["unknown_format"]:
        out.append(f"  unknown   {s['unknown_format']:>3}")
    out += [
        "",
        "categories per weight class (seed 002: each class at least 6 of 10, contender all 10; "
        "counts of challenges, . = none):",
    ]
    cats = list(ABBREV)
    out.append(f"  {'class':<13}" + "".join(f"{ABBREV[c]:>7}" for c in cats) + "  covered  pool (minimum)")
    for wc, c in s["classes"].items():
        cells = ""
        for cat in cats:
            n = c["categories"][cat]
            cells += f"{n if n else '.':>7}"
        short = c["categories_needed"] - c["covered"]
        cover = f"{c['covered']:>2}/{c['categories_needed']:<2}" + (f" short {short}" if short > 0 else " ok")
        pool = f"{c['challenges']} ({c['minimum_pool']}), {c['calibrated']} calibrated"
        out.append(f"  {wc:<13}{cells}  {cover:<14} {pool}")
    none = s["categories_without_any"]
    out += ["", f"categories with no challenge: {', '.join(none) if none else 'none'}"]
    short = [wc for wc, c in s["classes"].items() if c["covered"] < c["categories_needed"]]
    out.append(f"classes short of their category coverage: {', '.join(short) if short else 'none'}")
    return out
