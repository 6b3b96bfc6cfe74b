"""``gauntlet compare A B [--store DB] [--json] [--out F.html|F.md]``: two stored attempts
side by side (CONTRACT §11): their timelines on the attempt clock, their scorecards
component by component and the diff of their scored submissions (``arena.compare``)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys

from arena import paths
from arena.errors import UsageError
from gauntlet_tui.cli.stored import STORE_HELP, read_store, report_path


def register(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("compare", help="two attempts side by side: timelines, scorecards, the diff")
    c.add_argument("a", metavar="A", help="an attempt id")
    c.add_argument("b", metavar="B", help="another attempt id (of the same challenge or not)")
    c.add_argument("--store", metavar="DB", help=STORE_HELP)
    c.add_argument("--json", action="store_true", help="one JSON document")
    c.add_argument("--out", metavar="FILE", help="write a report: FILE.html or FILE.md")
    c.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from arena.compare import compare  # noqa: PLC0415
    from arena.compare.render import render_html, render_markdown, render_text  # noqa: PLC0415

    out = report_path(args.out) if args.out else None
    store = paths.store_path(args.store)
    cmp = read_store(store, compare(store, args.a, args.b))
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
