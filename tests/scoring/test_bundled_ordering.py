"""The bundled challenges' four scripted agents, run as real attempts (local sandbox, real
judge runs, real store) on a manual clock and judged from the store, order as
reference > elite > standard > naive > null on each challenge. The null agent (added to a
copy of the package) submits the untouched starter once: it totals exactly the Objective
share of the starter's own score, with Process, Strategy and Integrity 0.

Beside them, on a real clock, three `command:` agent files that run in the sandbox and
submit once through `gauntlet-agent` (issue 20, "Done means"): one appends `# reviewed` to
every *.py, one writes a one-line NOTES.md (and the package's file deliverables) listing
three identifiers from the tests, one submits without touching anything. None of them
improves the objective, so none may total more than its objective share (weight ×
objective) plus 5, the do-nothing one exactly its share, and the package's naive agent
outranks the first two."""

from __future__ import annotations

import asyncio
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/attempt_kit.py

from attempt_kit import drive, open_arena, stored  # noqa: E402
from test_attempt_bundled import check_attempt  # noqa: E402

from arena.challenge import bundled_challenges, load_challenge  # noqa: E402
from arena.clock import ManualTime  # noqa: E402
from arena.scoring import judge_attempt  # noqa: E402

ORDER = ["reference", "elite", "standard", "naive", "null"]
BUNDLED = bundled_challenges()
NO_OP_SLACK = 5.0  # issue 20: a no-op earns at most its objective share plus this
# Attempt seconds per real second for the command agents: they finish in seconds, and the
# Sprint's 30 s double-submit window (feedback held) passes in about a second.
COMMAND_SCALE = 25.0

SUBMIT = """
r = subprocess.run(["gauntlet-agent", "submit"], capture_output=True, text=True)
print(r.stdout[-2000:], r.stderr[-2000:])
sys.exit(r.returncode)
"""
COMMENT = (
    """
import os, pathlib, subprocess, sys
ws = pathlib.Path(os.environ["GAUNTLET_WORKSPACE"])
for p in sorted(ws.rglob("*.py")):
    p.write_text(p.read_text() + "\\n# reviewed\\n")
"""
    + SUBMIT
)
IDLE = "import subprocess, sys\n" + SUBMIT


def _identifiers_program(line: str, files: list[str]) -> str:
    return (
        textwrap.dedent(f"""
        import os, pathlib, subprocess, sys
        ws = pathlib.Path(os.environ["GAUNTLET_WORKSPACE"])
        for name in {files!r}:
            (ws / name).write_text({line!r} + "\\n")
    """)
        + SUBMIT
    )


def _three_identifiers(challenge) -> list[str]:
    """The file deliverables' must_mention terms (what the deliverable asks for), topped up
    with test function names from the disclosed static suite."""
    out: list[str] = []
    for d in challenge.manifest.deliverables:
        out += [t for t in (getattr(d, "must_mention", None) or []) if t not in out]
    for f in sorted((Path(challenge.root) / "tests" / "static").rglob("test_*.py")):
        for line in f.read_text().splitlines():
            if line.startswith("def test_") and len(out) < 3:
                out.append(line[4 : line.index("(")])
    return out[:3]


def command_agents(challenge, into: Path) -> dict[str, str]:
    """name -> agent file path for the three no-op command agents."""
    terms = _three_identifiers(challenge)
    files = ["NOTES.md"] + [
        d.name for d in challenge.manifest.deliverables if d.kind == "file" and d.name != "NOTES.md"
    ]
    programs = {
        "comment-only": COMMENT,
        "identifier-list": _identifiers_program(" ".join(f"`{t}`" for t in terms), files),
        "do-nothing": IDLE,
    }
    out = {}
    for name, program in programs.items():
        path = into / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"name": name, "where": "sandbox", "command": ["python3", "-c", program]}))
        out[name] = str(path)
    return out


def test_there_are_bundled_challenges():
    assert len(BUNDLED) >= 2, [str(p) for p in BUNDLED]


@pytest.mark.slow
@pytest.mark.parametrize("package", BUNDLED, ids=[p.name for p in BUNDLED])
async def test_scripted_agents_order(tmp_path, package):
    copy = tmp_path / package.name
    shutil.copytree(package, copy)
    (copy / "agents" / "null.yaml").write_text("# submits the untouched starter once\nsteps:\n  - submit\n")
    challenge = load_challenge(copy)
    clock = ManualTime()
    (tmp_path / "real").mkdir()
    arena = await open_arena(tmp_path, clock, parallel=len(ORDER))  # drive() waits for every attempt to be ready
    real = await open_arena(tmp_path / "real", None, parallel=3)  # the command agents, on a real clock
    try:
        attempts = [arena.attempt(challenge, f"scripted:{name}") for name in ORDER]
        agents = command_agents(challenge, tmp_path)
        noops = {n: real.attempt(challenge, path, time_scale=COMMAND_SCALE) for n, path in agents.items()}
        statuses, noop_statuses = await asyncio.gather(
            drive(arena, attempts, clock, step=5.0), real.run_all(noops.values())
        )
        assert statuses == ["finished"] * len(ORDER)
        assert noop_statuses == ["finished"] * len(noops)
        events_of = {a.id: await stored(arena, a.id) for a in attempts}
        cards = {name: judge_attempt(events_of[a.id]) for name, a in zip(ORDER, attempts)}
        noop_events = {n: await stored(real, a.id) for n, a in noops.items()}
        noop_cards = {n: judge_attempt(events) for n, events in noop_events.items()}
    finally:
        await arena.close()
        await real.close()
    # The same runs are the local backend's end-to-end check of the four packaged agents
    # (clock marks, outcomes, feedback as the format allows, phases): one run serves both.
    for name, a in zip(ORDER[:4], attempts):
        check_attempt(challenge, name, events_of[a.id])
    totals = [cards[n].total for n in ORDER]
    shown = {n: (cards[n].total, cards[n].components, cards[n].trajectory) for n in ORDER}
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == len(ORDER), shown
    null = cards["null"]
    assert null.components["process"] == null.components["strategy"] == null.components["integrity"] == 0
    assert null.total == round(null.weights["objective"] * null.components["objective"], 1), shown
    assert "no_work" in {f.rule for f in null.flags}

    naive = cards["naive"].total
    for name, card in noop_cards.items():
        seen = (card.total, card.components, card.trajectory, [f.rule for f in card.flags], shown)
        assert card.trajectory, (name, seen)  # it did submit, and the submission was judged
        share = round(card.weights["objective"] * card.components["objective"], 1)
        if name == "do-nothing":
            assert card.total == share, (name, seen)
        else:
            assert card.total <= share + NO_OP_SLACK, (name, seen)
            assert naive > card.total, (name, seen)
    changed = [e.data["diff"]["changed_files"] for e in noop_events["comment-only"] if e.kind == "submission.received"]
    assert changed and changed[0] and all(p.endswith(".py") for p in changed[0]), changed
