"""The agent.step stream of a real agent's attempt (issue 35), as its e2e test reads it
back from `show --json`: one line each, never raw JSON, after the output they came from."""

from __future__ import annotations


def steps_of(events: list[dict]) -> list[tuple[str, str]]:
    return [(e["step"], e["text"]) for e in events if e["kind"] == "agent.step"]


def assert_steps(events: list[dict], kinds: tuple[str, ...], has: tuple[tuple[str, str], ...] = ()) -> None:
    """The attempt's steps include every kind in ``kinds`` and every (kind, text) in
    ``has``; each is one capped line, not raw JSON, preceded by an agent.output."""
    steps = steps_of(events)
    assert {k for k, _ in steps} >= set(kinds), steps
    for want in has:
        assert want in steps, (want, steps)
    assert all(0 < len(t) <= 200 and "\n" not in t and not t.lstrip().startswith("{") for _, t in steps), steps
    first_output = next(i for i, e in enumerate(events) if e["kind"] == "agent.output")
    first_step = next(i for i, e in enumerate(events) if e["kind"] == "agent.step")
    assert first_output < first_step
