"""Shared by the launchers: put this agent tree's ``lib`` first on ``sys.path`` (not in
PYTHONPATH, so the agent's own commands do not inherit the agent's packages) and map the
gateway's ``*_BASE_URL`` variables to the ``*_API_BASE`` spelling some clients read."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "lib"))
for _a, _b in (("OPENAI_BASE_URL", "OPENAI_API_BASE"), ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE")):
    if os.environ.get(_a) and not os.environ.get(_b):
        os.environ[_b] = os.environ[_a]


def task_file_arg(args, flag, replace_with):
    """``FLAG PATH`` in ``args`` becomes ``REPLACE_WITH <contents of PATH>``."""
    if flag in args:
        i = args.index(flag)
        if i + 1 >= len(args):
            sys.exit(f"{flag}: expected a file path")
        with open(args[i + 1], encoding="utf-8") as f:
            args[i : i + 2] = [replace_with, f.read()]
    return args
