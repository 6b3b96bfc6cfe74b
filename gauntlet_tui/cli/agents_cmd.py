"""``gauntlet agents [--json]``: the built-in adapters (arena/adapters/inventory.py)."""

from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "agents", help="the built-in real-agent adapters: package, pinned version, API, tree and image state"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_agents)


def _images():  # the engine's image collection, or (None, why not)
    try:
        import docker  # noqa: PLC0415

        client = docker.from_env(timeout=10)
        client.ping()
        return client.images, ""
    except Exception as exc:  # noqa: BLE001 — no engine is a state to show, not an error
        return None, f"Docker does not answer: {type(exc).__name__}"


def cmd_agents(args) -> int:
    from arena.adapters.inventory import agent_rows  # noqa: PLC0415

    images, why = _images()
    rows = agent_rows(images, why)
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    for r in rows:
        tree, image = r["tree"], r["image"]
        mcp = ", registers the Gauntlet MCP server" if r["mcp"] else ""
        print(f"{r['name']}  {r['package']}=={r['version']}")
        print(f"    speaks   {r['api']}{mcp}")
        print(f"    tree     {tree['state']} ({tree['path']})")
        print(f"    image    {image['ref']} {image['state']}{' (' + image['detail'] + ')' if image['detail'] else ''}")
        if tree["state"] != "built" or image["state"] != "present":
            print(f"    build    {r['build']}  (or built on first use)")
    print("\nAgent files (docs/INTERFACES.md) are named by their `name:`; --agent FILE.yaml runs one.")
    return 0
