"""The prose and data of a generated package: briefing, synthetic logs, fixtures."""

from __future__ import annotations

import random
from typing import Any

from arena.challenge.units import parse_duration
from arena.pipeline.generate.prose import template_briefing
from arena.pipeline.generate.templates import Template

HINTS = {
    "generous": "The report points at `${fn_primary}`; start there.",
    "moderate": "Start from the function whose output the report describes.",
    "minimal": "",
    "none": "",
}
NOISE = ("cache warm", "heartbeat ok", "config reloaded", "worker joined", "gc pause 12ms")
MISLEADING = (
    "WARN clock skew of 1.2s detected against ntp; totals may be late",
    "WARN retrying upstream fetch (attempt 2/3)",
    "WARN input contained duplicate ids; deduplicated",
    "WARN slow disk: batch write took 840ms",
)


def briefing(template: Template, spec: dict[str, Any]) -> str:
    if template.data.get("briefing"):  # a template's own briefing (prose.py)
        return template_briefing(template, spec)
    v = spec["variables"]
    w = v["domain_vocabulary"]
    hint = HINTS[v["hint_level"]].replace("${fn_primary}", w["fn_primary"])
    minutes = int(parse_duration(str(template.data["time_limit"])) // 60)
    n = template.data["iterations"]
    return f"""# {spec["title"]}

{spec["hook"]}

`{w["module"]}.py` holds the {w["service"]} helpers `{w["fn_batches"]}`, `{w["fn_window"]}` and
`{w["fn_page"]}`. Fix the module so that every function behaves exactly as its docstring
says, argument checks included. {hint}

The visible tests in `test_{w["module"]}.py` (`python -m pytest -q`) pass: they do not cover
the problem. Logs from the last {w["service"]} run are in `logs/`, sample data in `fixtures/`.
Not everything that looks odd in the code is wrong.

Deliverables:

- `{w["module"]}.py` fixed (judged by tests you cannot see, including edge cases).
- `NOTES.md`: the root cause of the lost {w["nouns"]}, and of anything else you fixed.

Keep the public API unchanged. Standard library only. You have {minutes} minutes and {n}
submissions; two submissions within 30 seconds of each other count as one (only the second
is scored).
""".replace("  \n", "\n").replace(" \n\nThe", "\n\nThe")


def log_lines(spec: dict[str, Any], rng: random.Random) -> list[str]:
    v = spec["variables"]
    w = v["domain_vocabulary"]
    lines, t = [], rng.randint(0, 3000)
    clues = list(MISLEADING[: v["misleading_clue_count"]])
    for i in range(12):
        t += rng.randint(3, 40)
        stamp = f"2026-11-{(i % 3) + 10:02d}T0{(t // 3600) % 10}:{(t // 60) % 60:02d}:{t % 60:02d}Z"
        if i in (3, 8):
            got = rng.randint(40, 90)
            lines.append(
                f"{stamp} INFO {w['service']}: received {got + rng.randint(1, 3)} {w['nouns']}, processed {got}"
            )
        elif clues and i in (5, 10, 1, 6):
            lines.append(f"{stamp} {clues.pop(0)}")
        else:
            lines.append(f"{stamp} INFO {rng.choice(NOISE)}")
    return lines


def fixtures(spec: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    w = spec["variables"]["domain_vocabulary"]
    return [{"id": f"{w['noun']}-{i:04d}", "amount": rng.randint(1, 500)} for i in range(rng.randint(7, 11))]
