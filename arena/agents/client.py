#!/usr/bin/env python3
"""gauntlet-agent: talk to a Gauntlet attempt over its socket (stdlib only, one file).

    gauntlet-agent status | briefing | submit | feedback [N] | message TEXT
    gauntlet-agent mcp      the same verbs as MCP tools, over stdio (gauntlet_mcp.py)

The socket comes from ``$GAUNTLET_SOCKET`` (or ``--socket PATH``). Replies are
printed as YAML. ``submit`` blocks until the submission is judged and prints the
feedback document. Exit codes: 0 ok, 1 refused by the arena (``ok: false``), 2 bad
usage or no connection. This file is mounted read-only into sandboxes, where the
project is not installed, so it must import nothing outside the standard library
(``mcp`` loads ``gauntlet_mcp.py`` from beside it, with the ``mcp`` SDK from
``$GAUNTLET_MCP_LIB``, the tree the arena mounts for agents that ask for MCP).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import sys

VERBS = ("status", "briefing", "submit", "feedback", "message")
MCP_LIB = "/opt/gauntlet/agents/mcp/lib"  # the mcp tree's place in sandboxes (arena/adapters/mcp_tree.py)
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


# -- a tiny YAML emitter (JSON-compatible scalars, block collections) ----------------
def _scalar(v) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return json.dumps(str(v), ensure_ascii=False)


def _literal_ok(v: str) -> bool:
    """Multi-line text printed as a YAML literal block (readable briefings)."""
    return (
        "\n" in v.rstrip("\n")
        and not v[:1].isspace()
        and not any(ord(c) < 32 and c not in "\n\t" for c in v)
        and "\r" not in v
    )


def _literal(v: str, pad: str) -> str:
    body = v.rstrip("\n")
    trailing = len(v) - len(body)
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    lines = "".join(f"{pad}{ln}\n" if ln else "\n" for ln in body.split("\n"))
    return f"|{chomp}\n{lines}" + "\n" * max(0, trailing - 1)


def _key(k) -> str:
    k = str(k)
    if _PLAIN.match(k) and k.lower() not in ("null", "true", "false", "yes", "no", "on", "off"):
        return k
    return json.dumps(k, ensure_ascii=False)


def to_yaml(value, indent: int = 0) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return pad + "{}\n"
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{_key(k)}:\n{to_yaml(v, indent + 2)}")
            elif isinstance(v, str) and _literal_ok(v):
                out.append(f"{pad}{_key(k)}: {_literal(v, pad + '  ')}")
            else:
                out.append(f"{pad}{_key(k)}: {_flow_empty(v)}\n")
        return "".join(out)
    if isinstance(value, list):
        if not value:
            return pad + "[]\n"
        out = []
        for item in value:
            if isinstance(item, (dict, list)) and item:
                inner = to_yaml(item, indent + 2)
                out.append(f"{pad}- {inner[indent + 2 :]}")
            else:
                out.append(f"{pad}- {_flow_empty(item)}\n")
        return "".join(out)
    return pad + _scalar(value) + "\n"


def _flow_empty(v) -> str:
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return _scalar(v)


# -- the connection ------------------------------------------------------------------
def request(sock_path: str, req: dict, timeout: float | None = None) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(sock_path)
        s.sendall((json.dumps(req) + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    if not buf.strip():
        raise ConnectionError("the arena closed the connection without a reply")
    return json.loads(buf)


def build_request(verb: str, args: list[str]) -> dict:
    if verb not in VERBS:
        raise ValueError(f"unknown verb {verb!r}: expected one of {', '.join(VERBS)}")
    req: dict = {"op": verb}
    if verb == "feedback" and args:
        try:
            req["n"] = int(args[0])
        except ValueError:
            raise ValueError(f"feedback N: expected a submission number, got {args[0]!r}") from None
        if req["n"] < 1:
            raise ValueError(f"feedback N: expected a submission number >= 1, got {args[0]!r}")
    elif verb == "message":
        if not args:
            raise ValueError("message: expected the message text")
        req["text"] = " ".join(args)
    elif args:
        raise ValueError(f"{verb}: takes no arguments, got {' '.join(args)!r}")
    return req


def shown(verb: str, reply: dict):
    """What to print: the feedback document itself for submit/feedback, the
    briefing text for briefing, else the whole reply."""
    if not reply.get("ok"):
        return reply
    if verb in ("submit", "feedback") and isinstance(reply.get("feedback"), dict):
        return reply["feedback"]
    return reply


def rendered(verb: str, reply: dict) -> str:
    """What the CLI prints for ``reply`` (the MCP tools' text too)."""
    if verb == "briefing" and reply.get("ok"):
        return to_yaml(reply)
    return to_yaml(shown(verb, reply))


def serve_mcp(sock_path: str, prog: str = "gauntlet-agent") -> int:
    """``gauntlet-agent mcp``: the Gauntlet MCP server over stdio (gauntlet_mcp.py)."""
    lib = os.environ.get("GAUNTLET_MCP_LIB") or MCP_LIB
    if os.path.isdir(lib) and lib not in sys.path:
        sys.path.insert(0, lib)
    here = os.path.join(os.path.dirname(os.path.realpath(__file__)), "gauntlet_mcp.py")
    try:
        spec = importlib.util.spec_from_file_location("gauntlet_mcp", here)
        if spec is None or spec.loader is None:
            raise ImportError(f"no {here}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # imports the SDK: a missing or broken one fails here
    except (ImportError, OSError) as exc:
        print(
            f"{prog} mcp: the MCP server cannot start: {exc} (the mcp SDK comes from {lib}, mounted "
            "for agents that ask for MCP: `mcp: true` in the agent file)",
            file=sys.stderr,
        )
        return 2
    return mod.serve(sock_path, request=request, build_request=build_request, render=rendered)


def run(argv: list[str], prog: str = "gauntlet-agent") -> int:
    sock_path = os.environ.get("GAUNTLET_SOCKET")
    args = list(argv)
    if len(args) >= 2 and args[0] == "--socket":
        sock_path, args = args[1], args[2:]
    if not args or args[0] in ("-h", "--help"):
        print(f"usage: {prog} [--socket PATH] status|briefing|submit|feedback [N]|message TEXT|mcp", file=sys.stderr)
        return 0 if args else 2
    verb, rest = args[0], args[1:]
    if verb == "mcp":
        if rest:
            print(f"{prog}: mcp: takes no arguments, got {' '.join(rest)!r}", file=sys.stderr)
            return 2
        if not sock_path:
            print(
                f"{prog}: GAUNTLET_SOCKET is not set: expected the attempt's socket path (or pass --socket PATH)",
                file=sys.stderr,
            )
            return 2
        return serve_mcp(sock_path, prog)
    try:
        req = build_request(verb, rest)
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if not sock_path:
        print(
            f"{prog}: GAUNTLET_SOCKET is not set: expected the attempt's socket path (or pass --socket PATH)",
            file=sys.stderr,
        )
        return 2
    try:
        reply = request(sock_path, req)
    except (OSError, ConnectionError, ValueError) as exc:
        print(f"{prog}: cannot talk to the attempt at {sock_path}: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(rendered(verb, reply))
    sys.stdout.flush()
    return 0 if reply.get("ok") else 1


def main() -> None:
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
