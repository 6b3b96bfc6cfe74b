"""``gauntlet`` (home), ``gauntlet demo`` and ``gauntlet replay ATTEMPT``: the commands
that open the TUI. Textual is imported only when one of them runs."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

from arena.errors import UsageError
from arena.paths import store_path

_SANDBOXES = ("docker", "local")
SERVED_ENV = "GAUNTLET_SERVED"  # "watcher" or "operator": set by `gauntlet serve` for each browser


def _positive(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value!r}") from None
    if x <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value!r}")
    return x


def register(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser("demo", help="the dashboard with the bundled challenges, scripted agents, time sped up")
    demo.add_argument("--store", help="store database (default ./gauntlet.db or $GAUNTLET_STORE)")
    demo.add_argument("--sandbox", choices=_SANDBOXES, help="default: docker if it answers, else local")
    demo.add_argument(
        "--seconds",
        type=_positive,
        default=100.0,
        help="wall-clock seconds each challenge's time limit takes (default 100)",
    )
    demo.add_argument("--theme", help="gauntlet-dark, gauntlet-light or gauntlet-projector")
    demo.set_defaults(func=cmd_demo)

    rep = sub.add_parser("replay", help="re-play a stored attempt through the attempt view")
    rep.add_argument("attempt", help="attempt id, e.g. a-1f2e3d4c")
    rep.add_argument("--speed", type=_positive, default=1.0, help="replay speed factor (default 1)")
    rep.add_argument("--store", help="store database (default ./gauntlet.db or $GAUNTLET_STORE)")
    rep.set_defaults(func=cmd_replay)

    home = sub.add_parser("home", help="the TUI home (what `gauntlet` alone opens)")
    home.add_argument("--store", help="store database (default ./gauntlet.db or $GAUNTLET_STORE)")
    home.add_argument("--challenges", nargs="*", default=[], help="extra challenge directories for the library")
    home.set_defaults(func=cmd_home)


def _theme(args: argparse.Namespace) -> str | None:
    name = getattr(args, "theme", None)
    if name:
        from themes import THEME_NAMES

        if name not in THEME_NAMES:
            raise UsageError(f"--theme: unknown theme {name!r}: expected one of {', '.join(THEME_NAMES)}")
    return name


def cmd_home(args: argparse.Namespace) -> int:
    from gauntlet_tui.app import GauntletApp

    dirs = [Path(d) for d in getattr(args, "challenges", []) or []]
    for d in dirs:
        if not (d / "challenge.yaml").is_file():
            raise UsageError(f"--challenges: {d}: expected a challenge directory with challenge.yaml")
    served = os.environ.get(SERVED_ENV)  # one browser session of `gauntlet serve` (serve_cmd)
    if served:
        watcher = served != "operator"
        app = GauntletApp(
            store=store_path(getattr(args, "store", None)),
            library_dirs=dirs,
            title="Gauntlet — watching (read-only)" if watcher else "Gauntlet — operator",
            read_only=watcher,
            served=True,
        )
    else:
        app = GauntletApp(store=store_path(getattr(args, "store", None)), library_dirs=dirs)
    app.run()
    return app.return_code or 0  # 1 after a crash (gauntlet_tui.guard)


def cmd_demo(args: argparse.Namespace) -> int:
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.demo import demo_starter

    app = GauntletApp(
        title="Gauntlet demo",
        store=store_path(args.store),
        theme=_theme(args),
        on_ready=demo_starter(args.sandbox, args.seconds),
        own_heat=True,  # each round is a heat, shown first; older attempts a key away
    )
    app.run()
    return app.return_code or 0


def cmd_replay(args: argparse.Namespace) -> int:
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.history import load_events

    db = store_path(args.store)
    if not db.exists():
        raise UsageError(f"--store: {db}: no such store (expected a Gauntlet database)")
    events = asyncio.run(load_events(db, args.attempt))
    if not events:
        raise UsageError(f"ATTEMPT: unknown attempt {args.attempt!r} in {db} (see `gauntlet attempts`)")
    app = GauntletApp(store=db, start="replay", replay_events=events, replay_speed=args.speed)
    app.run()
    return app.return_code or 0
