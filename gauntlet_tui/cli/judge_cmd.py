"""``gauntlet judge ATTEMPT [--json]``, ``gauntlet report ATTEMPT --out FILE`` and
``gauntlet leaderboard [--json]``: post-run judging from the store (CONTRACT §5, §6)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena import paths
from arena.errors import UsageError
from arena.text import printable
from arena.scoring.report_usage import ended_text
from gauntlet_tui.cli.store_cmd import usage_text
from gauntlet_tui.cli.stored import STORE_HELP, read_store, report_path

if TYPE_CHECKING:
    from arena.transcripts import Transcript


def register(sub: argparse._SubParsersAction) -> None:
    j = sub.add_parser("judge", help="the scorecard of a stored attempt")
    j.add_argument("attempt", metavar="ATTEMPT")
    j.add_argument("--store", metavar="DB", help=STORE_HELP)
    j.add_argument("--json", action="store_true", help="one JSON document (CONTRACT §6)")
    j.add_argument(
        "--judge-model",
        metavar="PROVIDER/MODEL",
        help="grade file deliverables' check: rubrics with this model (default: "
        "judge_model in settings.json; readings are taken once and kept)",
    )
    j.set_defaults(func=cmd_judge)
    r = sub.add_parser("report", help="a shareable report (HTML or Markdown by suffix) with plots")
    r.add_argument("attempt", metavar="ATTEMPT")
    r.add_argument("--out", metavar="FILE", required=True, help="FILE.html or FILE.md")
    r.add_argument("--store", metavar="DB", help=STORE_HELP)
    r.set_defaults(func=cmd_report)
    lb = sub.add_parser("leaderboard", help="Elo ratings and weight classes of agents")
    lb.add_argument("--store", metavar="DB", help=STORE_HELP)
    lb.add_argument("--json", action="store_true", help="one JSON document")
    lb.add_argument("--heat", metavar="ID", default=None, help="rank one heat only (its attempts' games)")
    lb.set_defaults(func=cmd_leaderboard)


def _load(args: argparse.Namespace):
    from arena.scoring.load import attempt_events  # noqa: PLC0415

    store = paths.store_path(args.store)
    return read_store(store, attempt_events(store, args.attempt))


def _readings(args: argparse.Namespace, events: list) -> dict:
    """The judge model's stored readings of this attempt; taken now (and stored) when a
    judge model is configured and none are stored yet."""
    import os  # noqa: PLC0415

    from arena.gateway.server import split_model  # noqa: PLC0415
    from arena.scoring.llm_judge import checks, load_readings, save_readings, take_readings  # noqa: PLC0415
    from gauntlet_tui import settings  # noqa: PLC0415

    store = paths.store_path(args.store)
    cache = paths.data_dir(store) / "judge-readings"
    stored = load_readings(cache, args.attempt)
    model = getattr(args, "judge_model", None) or settings.load().get("judge_model")
    if stored or not model or not checks(events)[0]:
        return stored
    try:
        split_model(str(model), "--judge-model")
    except Exception as exc:  # noqa: BLE001 - a malformed model name: one line
        raise UsageError(str(exc)) from None
    try:
        readings = asyncio.run(
            take_readings(
                events,
                paths.snapshots_root(store),
                model=str(model),
                gateway_root=paths.data_dir(store) / "gw-judge",
                env=os.environ,
                attempt=args.attempt,
            )
        )
    except Exception as exc:  # noqa: BLE001 - the provider failed: say so, judge without
        print(f"judge model {model}: no readings ({type(exc).__name__}: {exc})", file=sys.stderr)
        return {}
    save_readings(cache, args.attempt, readings)
    return readings


def cmd_judge(args: argparse.Namespace) -> int:
    from arena.scoring import judge_attempt  # noqa: PLC0415

    _, events = _load(args)
    card = judge_attempt(events, readings=_readings(args, events))
    if args.json:
        sys.stdout.write(card.to_json() + "\n")
        return 0
    print(f"{card.attempt}  {card.challenge}  {card.agent}  {card.format}  {card.weight_class}")
    print(f"total {card.total:g}   trajectory {card.trajectory}")
    finished = [e.data for e in events if e.kind == "attempt.finished"]
    print(printable("ended: " + ended_text(finished[-1] if finished else None)))
    print(printable("usage: " + usage_text(card.usage)))
    for k, v in card.components.items():
        print(f"  {k:<10} {v:6.1f}  × {card.weights[k]:g}")
    for p in card.phases:
        print(f"  phase {p.id}: {p.objective:g}")
    w = card.work
    if w.get("starter") is not None:  # issue 20: Process, Strategy, Integrity scale with the work
        print(
            f"work: objective {w['objective']:g} over the starter's {w['starter']:g} "
            f"(share {w['share']:.0%}): process, strategy, integrity count {w['credit']:.0%}"
        )
    if card.process_adjustments:
        print(f"process adjustments (raw {card.process_raw:+g}):")
        for a in card.process_adjustments:
            print(f"  {a.points:+5g}  {a.rule}: {a.evidence}")
    if card.strategy_adjustments:
        print("strategy adjustments:")
        for a in card.strategy_adjustments:
            print(f"  {a.points:+5g}  {a.rule}: {a.evidence}")
    for f in card.flags:
        print(f"flag {f.rule} ({f.points:+g}): {f.detail}")
    for note in card.not_judged:
        print(note)
    return 0


def _transcript(args: argparse.Namespace, attempt: str, events: list[Any]) -> Transcript:
    """The attempt's transcript kept beside the store, read a call at a time by the report
    (``arena.transcripts``); the ``model.call`` events give costs older records lack."""
    from arena.transcripts import Transcript  # noqa: PLC0415

    model_calls = [e.data for e in events if e.kind == "model.call"]
    return Transcript.of(paths.store_path(args.store), attempt, model_calls)


def cmd_report(args: argparse.Namespace) -> int:
    from arena.scoring import judge_attempt  # noqa: PLC0415
    from arena.scoring.report import render_html, render_markdown  # noqa: PLC0415

    out = report_path(args.out)
    suffix = out.suffix.lower()
    _, events = _load(args)
    card = judge_attempt(events)
    calls = _transcript(args, card.attempt, list(events))
    render = render_html if suffix in (".html", ".htm") else render_markdown
    text = render(card, events, calls)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write: {exc.strerror}") from None
    print(f"report written to {out}")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.pipeline.boards import leaderboard  # noqa: PLC0415 — counts unverified publications' attempts

    store = paths.store_path(args.store)
    heat = getattr(args, "heat", None)
    if heat is not None:
        _check_heat(store, heat)
    try:
        board = asyncio.run(leaderboard(store, heat=heat))
    except Exception as exc:  # noqa: BLE001
        raise UsageError(f"--store {store}: cannot read the store: {exc}") from None
    doc = board.as_dict()
    if heat is not None:
        doc["heat"] = heat
    if args.json:
        json.dump(doc, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    if heat is not None:
        print(f"heat {heat}: only its attempts; a game is two of its attempts by different agents on one challenge")
    if not doc["agents"]:
        print("no judged attempts yet" if heat is None else f"no rated attempts in heat {heat}")
        _print_unrated(doc["unrated"])
        return 0
    _print_overall(doc["agents"])
    for table in doc["classes"]:  # ordered by the pairwise rating within each class (issue 20)
        how = "ranked by pairwise rating" if table["ranked"] else "not ranked (seed 002: frontier is a benchmark)"
        print(f"{table['weight_class']} (x{table['multiplier']:g}): {how}")
        cols = ("#", "agent", "rating", "interval", "games", "attempts", "mean_total", "elo", "class", "note")
        rows = [
            [
                r.get("rank_band") or "-",
                r["agent"],
                _rating(r),
                _interval(r),
                str(r["games"]),
                str(r["attempts"]),
                f"{r['mean_total']:.1f}",
                f"{r['elo']:.0f}",
                r["weight_class"] + (" (under review)" if r["under_review"] else ""),
                _note(r),
            ]
            for r in table["agents"]
        ]
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
        print("  " + "  ".join(c.upper().ljust(w) for c, w in zip(cols, widths)).rstrip())
        for r in rows:
            print("  " + printable("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip()))
        print()
    print("ELO is within the bracket of that class (promotion and relegation); it does not order.")
    if any(r.get("unverified_attempts") for t in doc["classes"] for r in t["agents"]):
        print("unverified calibration: attempts run under a publication whose calibration was not verified.")
    print()
    print("challenges:")
    for c in doc["challenges"]:
        print(f"  {c['challenge']:<24} Elo {c['elo']:7.1f}  {c['weight_class']:<12} games {c['games']}")
    _print_unrated(doc["unrated"])
    return 0


def _print_overall(agents: list[dict]) -> None:
    """The one list (issue 38): one pairwise fit over every head-to-head on the same challenge
    across the ranked classes; agents whose 95% intervals overlap share a rank band."""
    print("overall: one pairwise rating over every head-to-head on the same challenge, all ranked classes")
    print("  (class multipliers decide promotion, not order; overlapping 95% intervals share a rank band)")
    cols = ("#", "agent", "rating", "interval", "games", "mean_total", "class", "note")
    rows = [
        [
            r.get("rank_band") or "-",
            r["agent"],
            _rating(r),
            _interval(r),
            str(r.get("rating_games") or 0),
            "-" if r.get("ranked_mean_total") is None else f"{r['ranked_mean_total']:.1f}",
            r["weight_class"] + (" (under review)" if r["under_review"] else ""),
            _note(r),
        ]
        for r in agents
    ]
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    print("  " + "  ".join(c.upper().ljust(w) for c, w in zip(cols, widths)).rstrip())
    for r in rows:
        print("  " + printable("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip()))
    print()


def _print_unrated(unrated: list[dict]) -> None:
    """Hung and infra-error attempts: listed and flagged, never a rated game (issue 34)."""
    if not unrated:
        return
    print()
    print("unrated (hung or infrastructure error: not games):")
    for u in unrated:
        print(printable(f"  {u['attempt']}  {u['agent']}  {u['challenge']}  {u['flag']}", newlines=False))


def _check_heat(store: Path, heat: str) -> None:
    """An unknown heat id is bad input (exit 2), not an empty board."""
    from store import Store  # noqa: PLC0415

    async def known() -> bool:
        st = await Store.open(store)
        try:
            return await st.get_run(heat) is not None
        finally:
            await st.close()

    if not store.exists():
        raise UsageError(f"--heat {heat}: unknown heat (no store at {store})")
    try:
        found = asyncio.run(known())
    except Exception as exc:  # noqa: BLE001
        raise UsageError(f"--store {store}: cannot read the store: {exc}") from None
    if not found:
        raise UsageError(
            f"--heat {heat}: unknown heat in store {store}; expected a heat id as `gauntlet attempts --json` gives it"
        )


def _rating(r: dict) -> str:
    if r["rating"] is None:
        return "unrated"
    return f"{r['rating']:.0f}"


def _note(r: dict) -> str:
    n = int(r.get("unverified_attempts") or 0)
    return f"unverified calibration ({n} attempt{'s' if n != 1 else ''})" if n else ""


def _interval(r: dict) -> str:
    """The 95% interval; after a sweep it is one-sided (no bound on the other side)."""
    if r["rating"] is None:
        return "no opponent"
    if r.get("one_sided") == "lower":
        return f">= {r['low']:.0f} (one-sided)"
    if r.get("one_sided") == "upper":
        return f"<= {r['high']:.0f} (one-sided)"
    return f"{r['low']:.0f}-{r['high']:.0f}"
