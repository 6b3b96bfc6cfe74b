"""``gauntlet agent status|briefing|submit|feedback [N]|message TEXT`` — the agent's
side of the protocol (the same code as ``gauntlet-agent``: ``arena.agents.client``)."""

from __future__ import annotations

import argparse

from arena.agents import client


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agent",
        help="talk to a running attempt over $GAUNTLET_SOCKET (prints YAML)",
        description="Talk to the attempt named by $GAUNTLET_SOCKET (or --socket). "
        "Exit 0 ok, 1 refused by the arena, 2 bad usage or no connection.",
    )
    p.add_argument("--socket", help="the attempt's socket (default: $GAUNTLET_SOCKET)")
    p.add_argument("verb", choices=client.VERBS, help="what to ask")
    p.add_argument("args", nargs=argparse.REMAINDER, help="feedback: N; message: the text")
    p.set_defaults(func=cmd_agent)


def cmd_agent(args: argparse.Namespace) -> int:
    argv = (["--socket", args.socket] if args.socket else []) + [args.verb, *args.args]
    return client.run(argv, prog="gauntlet agent")
