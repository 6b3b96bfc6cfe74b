"""Every bundled challenge with its scripted agents, end to end, headless, on a manual
clock: the naive and reference agents on the Docker backend here, all four on the local
backend in tests/scoring/test_bundled_ordering.py (whose runs are checked with
``check_attempt`` below: one run per challenge serves the ordering and these checks). The stored
events must reproduce the attempt: clock marks at their exact instants, one outcome per
submit step, feedback as the format allows, phases in order, a contiguous log."""

from __future__ import annotations

import pytest

from arena.agents.scripted import normalize_steps
from arena.challenge import bundled_challenges, load_challenge
from arena.clock import ManualTime, marks_for
from arena.formats import rules_for
from arena import events as ev
from attempt_kit import drive, of, open_arena, stored

AGENTS = ("naive", "standard", "elite", "reference")
BASE_KEYS = {"submission", "iteration", "at", "elapsed_s", "notices"}
FIELD_KEYS = {
    "build",
    "tests",
    "hidden",
    "adversarial",
    "lint",
    "coverage",
    "diff",
    "regressions",
    "phase",
    "score_preview",
    "trajectory",
}
BUNDLED = [p for p in bundled_challenges()]


def check_attempt(challenge, agent: str, events: list) -> None:
    m = challenge.manifest
    rules = rules_for(m.format)
    assert events[0].kind == ev.ATTEMPT_STARTED and events[-1].kind == ev.ATTEMPT_FINISHED
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    started = events[0].data
    assert (started["challenge"], started["agent"], started["format"]) == (m.id, f"scripted:{agent}", m.format)
    fin = events[-1]
    assert fin.data["status"] == "finished", fin.data
    assert not of(events, ev.INFRA_ERROR)
    # clock marks: exactly those due before the end, each at its instant
    reveal = [p.reveal_at if p.reveal_at is not None else rules.reveal_marks[i] for i, p in enumerate(m.phases)]
    # (``ended_s``: the instant the attempt ended; ``fin.t`` is its record closing, a
    # teardown later, while the other attempts' clock may have moved on)
    ended = fin.data["ended_s"]
    assert ended <= fin.t
    expected = [
        (mk.kind, mk.t)
        for mk in marks_for(rules, m.time_limit_s, reveal)
        if mk.kind.startswith("clock.") and mk.t <= ended
    ]
    got = [(e.kind, e.t) for e in events if e.kind.startswith("clock.")]
    assert got == expected
    # one outcome per submit step played
    steps = normalize_steps(challenge.scripted_agent(agent))
    submits = sum(1 for k, _ in steps if k == "submit")
    received = of(events, ev.SUBMISSION_RECEIVED)
    outcomes = len(received) + len(of(events, ev.SUBMISSION_REFUSED))
    if fin.data["reason"] == "agent done: script finished":
        assert outcomes == submits
    else:
        assert outcomes <= submits
    assert 1 <= len(received) <= m.iterations + 1  # +1: a Sprint double submit replaces
    judged = {e.data["submission"] for e in of(events, ev.SUBMISSION_JUDGED)}
    delivered = of(events, ev.FEEDBACK_DELIVERED)
    assert judged == {e.data["submission"] for e in received} == {e.data["submission"] for e in delivered}
    # feedback as the format allows it
    for e in delivered:
        doc = e.data["feedback"]
        n = doc["submission"]
        shown = rules.disclosed(n)
        assert set(doc) <= BASE_KEYS | (FIELD_KEYS & shown), (n, set(doc) - BASE_KEYS - shown)
        assert "tests" in doc and doc["iteration"] == n - 1
        messages = any("message" in f for f in doc["tests"].get("failures", []))
        assert not messages or "failure_messages" in shown
    # phases in order
    phases = [e.data["phase"] for e in of(events, ev.PHASE_REVEALED)]
    assert phases == list(range(2, 2 + len(phases)))
    assert len(phases) <= len(m.phases)
    # the agent's commands ran in its sandbox (a missing interpreter would be 127)
    for e in of(events, ev.COMMAND_RUN):
        assert e.data["exit_code"] not in (None, 126, 127), e.data
        if e.data["ran_tests"]:
            assert e.data["passed"] + e.data["failed"] > 0, e.data
    scored = fin.data["scored_submission"]
    assert scored is not None and scored in judged


# On Docker, the two ends of each package's range: the naive agent (failing submissions,
# refusals, resubmits) and the reference (all green). All four run on the local backend in
# tests/scoring/test_bundled_ordering.py; what an agent does does not depend on the backend.
DOCKER_AGENTS = ("naive", "reference")


async def _run_challenge(tmp_path, pkg, sandbox: str, agents=AGENTS) -> None:
    challenge = load_challenge(pkg)
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, sandbox=sandbox, parallel=len(agents))
    try:
        attempts = [arena.attempt(challenge, f"scripted:{a}") for a in agents]
        statuses = await drive(arena, attempts, clock, step=5.0)
        results = {a.id: await stored(arena, a.id) for a in attempts}
    finally:
        await arena.close()
    assert statuses == ["finished"] * len(agents)
    for name, a in zip(agents, attempts):
        check_attempt(challenge, name, results[a.id])
    # the agents are ordered by skill: the reference's scored submission is the best
    best = {}
    for name, a in zip(agents, attempts):
        evs = results[a.id]
        scored = evs[-1].data["scored_submission"]
        best[name] = next(e.data["score"] for e in of(evs, ev.SUBMISSION_JUDGED) if e.data["submission"] == scored)
    assert best["reference"] >= best["naive"], best


def test_three_bundled_challenges_exist():
    assert len(BUNDLED) >= 3, [p.name for p in BUNDLED]


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("pkg", BUNDLED, ids=[p.name for p in BUNDLED])
async def test_bundled_docker(tmp_path, pkg):
    await _run_challenge(tmp_path, pkg, "docker", DOCKER_AGENTS)
