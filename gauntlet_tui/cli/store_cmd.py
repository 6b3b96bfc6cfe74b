"""``gauntlet attempts [--json]`` and ``gauntlet show ATTEMPT [--json]``: the store read back.

``show --json`` is exactly CONTRACT §5: ``{"attempt", "challenge", "agent", "format",
"status", "submissions": [{"submission", "at", "feedback"}], "events": [{"t", "kind",
...}]}``; ``at`` is the submission's attempt-clock seconds. Reading never creates a
store: a missing store file has no attempts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from arena import paths
from arena.errors import UsageError
from arena.scoring.report_usage import ended_text, usage_line
from arena.usage import usage_from_events
from arena.text import printable


def register(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser("attempts", help="the stored attempts, newest first")
    a.add_argument("--store", metavar="DB", help="store file (default $GAUNTLET_STORE or ./gauntlet.db)")
    a.add_argument("--json", action="store_true", help="one JSON document")
    a.add_argument("--limit", type=int, default=None, help="at most this many")
    a.add_argument("--heat", metavar="ID", default=None, help="only the attempts of heat ID (one run/arena command)")
    a.set_defaults(func=cmd_attempts)
    verbs = a.add_subparsers(dest="attempts_verb", metavar="{rm}")
    rm = verbs.add_parser("rm", help="remove stored attempts and their files (never a running one)")
    rm.add_argument("ids", nargs="+", metavar="ATTEMPT")
    rm.add_argument("--store", metavar="DB", default=argparse.SUPPRESS, help="store file (as for attempts)")
    rm.set_defaults(func=cmd_attempts_rm)
    s = sub.add_parser("show", help="one stored attempt: status, submissions with feedback, events")
    s.add_argument("attempt", metavar="ATTEMPT")
    s.add_argument("--store", metavar="DB", help="store file (default $GAUNTLET_STORE or ./gauntlet.db)")
    s.add_argument("--json", action="store_true", help="one JSON document (CONTRACT §5)")
    s.add_argument(
        "--transcript",
        action="store_true",
        help="the attempt's model calls in order, decoded: new messages, the answer's text and tool calls",
    )
    s.add_argument("--call", type=int, metavar="N", help="with --transcript: call N alone, in full")
    s.add_argument("--raw", action="store_true", help="with --transcript: the request and answer bodies as kept")
    s.set_defaults(func=cmd_show)


async def _open(store: Path) -> Any:
    from store import Store

    try:
        return await Store.open(store)
    except Exception as exc:  # noqa: BLE001 - StoreError, sqlite errors: one line
        raise UsageError(f"--store {store}: cannot open the store: {exc}") from None


async def attempts_rows(store: Path, limit: int | None = None, heat: str | None = None) -> list[dict[str, Any]]:
    """The rows of ``attempts --json``, newest first; ``heat``: that heat's only (an unknown
    heat is a ``UsageError``)."""
    if not store.exists():
        if heat is not None:
            raise UsageError(f"--heat {heat}: unknown heat (no store at {store})")
        return []
    st = await _open(store)
    try:
        if heat is not None and await st.get_run(heat) is None:
            raise UsageError(
                f"--heat {heat}: unknown heat in store {store}; expected a heat id as `gauntlet attempts --json` "
                'gives it (its "heat" field, r-...)'
            )
        rows = await st.list_attempts(limit, heat=heat)
    finally:
        await st.close()
    return [
        {
            "attempt": r["id"],
            "heat": r.get("run"),
            "challenge": r.get("challenge"),
            "agent": r.get("agent"),
            "format": r.get("format"),
            "status": r.get("status"),
            "start": r.get("started_at"),
            "finished": r.get("finished_at"),
            "submissions_used": r.get("submissions_used"),
            "last_score": r.get("last_score"),
        }
        for r in rows
    ]


def cmd_attempts(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit: expected a number >= 1, got {args.limit}")
    rows = asyncio.run(attempts_rows(paths.store_path(args.store), args.limit, args.heat))
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not rows:
        print("no attempts stored" if args.heat is None else f"no attempts in heat {args.heat}")
        return 0
    cols = ("attempt", "heat", "challenge", "agent", "format", "status", "start")
    widths = {c: max(len(c), *(len(printable(r[c] or "", newlines=False)) for r in rows)) for c in cols}
    print("  ".join(c.upper().ljust(widths[c]) for c in cols).rstrip())
    for r in rows:
        print("  ".join(printable(r[c] or "", newlines=False).ljust(widths[c]) for c in cols).rstrip())
    return 0


def cmd_attempts_rm(args: argparse.Namespace) -> int:
    """``gauntlet attempts rm ID...``: all or nothing (arena/attempt/remove.py); exit 2 when
    an id is unknown or its attempt still running (nothing removed then)."""
    from arena.attempt.remove import remove_attempts  # noqa: PLC0415

    store = paths.store_path(getattr(args, "store", None))
    if not store.exists():
        raise UsageError(f"unknown attempt(s) {', '.join(args.ids)}: no store at {store}")
    try:
        done = asyncio.run(remove_attempts(store, args.ids))
    except Exception as exc:  # noqa: BLE001 - StoreError, sqlite errors: one line
        raise UsageError(f"--store {store}: cannot remove: {exc}") from None
    if not done.ok:
        raise UsageError(done.refusal(store))
    print(f"removed {len(done.removed)} attempt(s): {', '.join(done.removed)} ({done.files} file(s) beside the store)")
    for left in done.left:
        print(f"gauntlet: could not delete {left}", file=sys.stderr)
    return 0


async def show_doc(store: Path, attempt: str) -> dict[str, Any] | None:
    if not store.exists():
        return None
    st = await _open(store)
    try:
        row = await st.get_attempt(attempt)
        if row is None:
            return None
        subs = await st.submissions(attempt)
        fbs = {f["n"]: f for f in await st.feedback(attempt)}
        events = await st.events(attempt)
    finally:
        await st.close()
    return {
        "attempt": row["id"],
        "challenge": row.get("challenge"),
        "agent": row.get("agent"),
        "format": row.get("format"),
        "status": row.get("status"),
        "submissions": [
            {
                "submission": s["n"],
                "at": None if s.get("at_t") is None else round(s["at_t"], 3),
                "feedback": (fbs.get(s["n"]) or {}).get("document"),
                # an imported task's verifier output only where there is one (CONTRACT's three keys)
                **({"verifier_output": out} if (out := _verifier_output(s.get("result"))) else {}),
            }
            for s in subs
        ],
        "usage": usage_from_events(events),
        "node": _node(events),
        "events": [e.flat() for e in events],
    }


def _verifier_output(result: Any) -> str | None:
    """The kept output of an imported task's verifier (JudgeResult.verifier_output), if any."""
    if isinstance(result, str):
        try:
            result = json.loads(result)
        except ValueError:
            return None
    out = result.get("verifier_output") if isinstance(result, dict) else None
    return out if isinstance(out, str) and out else None


def _node(events: list[Any]) -> Any:
    for e in events:
        if e.kind == "attempt.started":
            return e.data.get("node")
    return None


def cmd_show(args: argparse.Namespace) -> int:
    if (args.call is not None or args.raw) and not args.transcript:
        raise UsageError(f"{'--call' if args.call is not None else '--raw'}: goes with --transcript")
    doc = asyncio.run(show_doc(paths.store_path(args.store), args.attempt))
    if doc is None:
        raise UsageError(f"unknown attempt {args.attempt!r} in store {paths.store_path(args.store)}")
    if args.transcript:
        return _print_transcript(paths.store_path(args.store), doc, as_json=args.json, raw=args.raw, call=args.call)
    if args.json:
        json.dump(doc, sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    from arena.agents.client import to_yaml

    print(printable(f"{doc['attempt']}  {doc['challenge']}  {doc['agent']}  {doc['format']}  {doc['status']}"))
    finished = [e for e in doc["events"] if e["kind"] == "attempt.finished"]
    print(printable("ended: " + ended_text(finished[-1] if finished else None)))
    print(printable("usage: " + usage_text(doc["usage"])))
    for s in doc["submissions"]:
        print(f"\nsubmission #{s['submission']} at {s['at']}s")
        if s["feedback"]:
            sys.stdout.write(printable(to_yaml(s["feedback"], 2)))  # agent text: no control sequences
        if s.get("verifier_output"):
            tail = s["verifier_output"].splitlines()[-20:]
            print("  verifier output (last lines):")
            sys.stdout.write(printable("".join(f"    {ln}\n" for ln in tail)))
    print(f"\nevents ({len(doc['events'])}):")
    for e in doc["events"]:
        rest = {k: v for k, v in e.items() if k not in ("t", "kind")}
        text = json.dumps(rest, default=str)
        print(f"  [{e['t']:8.1f}s] {e['kind']:<20} {text[:160]}")
    return 0


def usage_text(u: dict[str, Any], kept: int | None = None) -> str:
    """``4 model call(s) (1 refused, 1 cancelled), 120 tokens, $0.0010``: the usage of
    ``show --json`` (arena.usage's one count); ``kept``: how many the transcript holds (a
    call cancelled before any answer, or refused for a bad token, leaves none)."""
    text = usage_line(u)
    if kept is not None and kept != u["calls"]:
        text += f"; {kept} in the transcript"
    return text


def _print_transcript(
    store: Path, doc: dict[str, Any], *, as_json: bool, raw: bool = False, call: int | None = None
) -> int:
    """``show --transcript``: every model call of the attempt, in order, decoded (CONTRACT
    §11; gauntlet_tui/cli/transcript_out.py)."""
    from gauntlet_tui.cli.transcript_out import kept_calls, print_transcript  # noqa: PLC0415

    kept = kept_calls(store, doc["attempt"])
    header = f"{doc['attempt']}  {doc['agent']}: " + usage_text(doc["usage"], kept=kept)
    return print_transcript(store, doc, header, as_json=as_json, raw=raw, call=call)
