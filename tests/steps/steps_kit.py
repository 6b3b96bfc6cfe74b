"""What the step tests share: the captured output of each adapter (fixtures/*.jsonl, made
by capture.py from a real run against its stand-in provider) fed through its parser."""

from __future__ import annotations

import json
from pathlib import Path

from arena.steps import Step, parser_for

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def captured(name: str) -> list[tuple[str, str]]:
    """(stream, line) of a fixture, in order."""
    out = []
    for line in (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        out.append((d["stream"], d["text"]))
    return out


def steps_of(adapter: str, lines: list[tuple[str, str]]) -> list[Step]:
    p = parser_for(adapter)
    steps = [s for stream, text in lines for s in p.feed(stream, text, 0.0)]
    return steps + p.finish()


def kinds(steps: list[Step]) -> list[str]:
    return [s.step for s in steps]
