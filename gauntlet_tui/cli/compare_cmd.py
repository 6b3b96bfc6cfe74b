"""``gauntlet compare A B [--store DB] [--json] [--out F.html|F.md]``: two stored attempts
side by side (CONTRACT §11): their timelines on the attempt clock, their scorecards
component by component and the diff of their scored submissions (``arena.compare``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
from pathlib import Path

from arena import paths
from arena.errors import UsageError

STORE_HELP = "store file (default $GAUNTLET_STORE or ./gauntlet.db)"


def register(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("compare", help="two attempts side by side: timelines, scorecards, the diff")
    c.add_argument("a", metavar="A", help="an attempt id")
    c.add_argument("b", metavar="B", help="another attempt id (of the same challenge or not)")
    c.add_argument("--store", metavar="DB", help=STORE_HELP)
    c.add_argument("--json", action="store_true", help="one JSON document")
    c.add_argument("--out", metavar="FILE", help="write a report: FILE.html or FILE.md")
    c.set_defaults(func=cmd_compare)


def _out_path(raw: str) -> Path:
    out = Path(raw)
    suffix = out.suffix.lower()
    if suffix not in (".html", ".htm", ".md", ".markdown"):
        raise UsageError(f"--out {out}: expected a file ending .html or .md, got {suffix or 'no suffix'!r}")
    if out.is_dir():
        raise UsageError(f"--out {out}: is a directory, expected a file")
    if not out.parent.exists():
        raise UsageError(f"--out {out}: directory {out.parent} does not exist")
    return out


def cmd_compare(args: argparse.Namespace) -> int:
    from arena.compare import compare  # noqa: PLC0415
    from arena.compare.render import render_html, render_markdown, render_text  # noqa: PLC0415
    from arena.scoring.load import NotFound  # noqa: PLC0415

    out = _out_path(args.out) if args.out else None
    store = paths.store_path(args.store)
    try:
        cmp = asyncio.run(compare(store, args.a, args.b))
    except NotFound as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - a store that cannot be read: one line
        raise UsageError(f"--store {store}: cannot read the store: {exc}") from None
    if out is not None:
        html = out.suffix.lower() in (".html", ".htm")
        text = render_html(cmp) if html else render_markdown(cmp)
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--out {out}: cannot write: {exc.strerror}") from None
        for note in cmp.notes:
            print(f"note: {note}")
        print(f"comparison written to {out}")
        return 0
    if args.json:
        json.dump(cmp.as_dict(), sys.stdout, indent=2, sort_keys=True, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(render_text(cmp, shutil.get_terminal_size((160, 40)).columns))
    return 0
