"""The ``gauntlet`` command. Each command group lives in its own module with a
``register(subparsers)`` function; TUI commands import Textual lazily so headless
commands never load it."""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that register subcommands, in help order.
COMMAND_MODULES = [
    "gauntlet_tui.cli.tui_cmd",  # demo, replay, (no command) home
    "gauntlet_tui.cli.run_cmd",  # run, arena
    "gauntlet_tui.cli.store_cmd",  # attempts, show
    "gauntlet_tui.cli.judge_cmd",  # judge, report, leaderboard
    "gauntlet_tui.cli.compare_cmd",  # compare (two attempts side by side)
    "gauntlet_tui.cli.challenge_cmd",  # challenge validate|calibrate|audit|publish
    "gauntlet_tui.cli.sandbox_cmd",  # sandbox build|check
    "gauntlet_tui.cli.agent_cmd",  # agent status|briefing|submit|feedback
    "gauntlet_tui.cli.agents_cmd",  # agents (the built-in adapters)
    "gauntlet_tui.cli.doctor_cmd",  # doctor
    "gauntlet_tui.cli.serve_cmd",  # serve (the live arena in browsers)
]


from arena.errors import UsageError  # noqa: F401,E402 — re-exported for callers


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gauntlet",
        description="Gauntlet: timed engineering challenges for AI coding agents.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # command group not built yet
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        from gauntlet_tui.cli import tui_cmd  # noqa: PLC0415 — `gauntlet` alone opens home

        func = tui_cmd.cmd_home
    try:
        return int(func(args) or 0)
    except UsageError as exc:
        print(f"gauntlet: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gauntlet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`gauntlet judge ... | head`): stop quietly
        import os  # noqa: PLC0415

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit flush
        return 141  # 128 + SIGPIPE, as a shell tool would


if __name__ == "__main__":
    sys.exit(main())
