"""Derived tables are kept from the events the writer ingests."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bus import EventBus
from store import Store

STARTED = {
    "challenge": "off-by-one",
    "title": "The Off-By-One",
    "agent": "scripted:elite",
    "format": "sprint",
    "weight_class": "lightweight",
    "time_limit_s": 900.0,
    "budget": 2,
    "grace_s": 30.0,
    "time_scale": 60.0,
    "sandbox": "local",
    "category": "debug-gauntlet",
    "phases": [],
    "deliverables": [{"name": "fix", "kind": "tests", "weight": 1.0}],
}


def received(n: int, replaces: int | None = None) -> dict:
    return {
        "submission": n,
        "iteration": n - 1,
        "hash": f"h{n}",
        "files": 3,
        "bytes": 900,
        "identical_to": None,
        "replaces": replaces,
        "diff": {
            "files_changed": 1,
            "lines_added": 2,
            "lines_removed": 1,
            "similarity": 0.9,
            "changed_files": ["src/sort.py"],
        },
    }


@pytest.fixture
async def setup(tmp_path):
    store = await Store.open(tmp_path / "g.db")
    bus = EventBus()
    bus.subscribe(store.append)
    yield store, bus
    await store.close()


async def test_attempt_started_fills_the_attempt_agent_and_challenge_rows(setup):
    store, bus = setup
    # No create_attempt: the row comes from the events alone.
    bus.publish("a-1234abcd", 0.0, "attempt.started", STARTED)
    await store.flush()
    a = await store.get_attempt("a-1234abcd")
    assert {
        k: a[k]
        for k in (
            "challenge",
            "title",
            "agent",
            "format",
            "weight_class",
            "budget",
            "time_limit_s",
            "time_scale",
            "sandbox",
            "category",
            "status",
        )
    } == {
        "challenge": "off-by-one",
        "title": "The Off-By-One",
        "agent": "scripted:elite",
        "format": "sprint",
        "weight_class": "lightweight",
        "budget": 2,
        "time_limit_s": 900.0,
        "time_scale": 60.0,
        "sandbox": "local",
        "category": "debug-gauntlet",
        "status": "running",
    }
    assert [r["name"] for r in await store.ratings("agents")] == ["scripted:elite"]
    (ch,) = await store.ratings("challenges")
    assert (ch["id"], ch["title"], ch["format"]) == ("off-by-one", "The Off-By-One", "sprint")


async def test_submission_lifecycle_with_a_sprint_replacement(setup):
    store, bus = setup
    aid = await store.create_attempt(challenge="off-by-one", agent="scripted:elite", format="sprint", workspace="/w/a")
    bus.publish(aid, 0.0, "attempt.started", STARTED)
    bus.publish(aid, 100.0, "submission.received", received(1))
    bus.publish(
        aid,
        104.0,
        "submission.judged",
        {"submission": 1, "result": {"submission": 1, "tests": []}, "score": 40.0, "phase": 1},
    )
    bus.publish(aid, 104.5, "feedback.delivered", {"submission": 1, "feedback": {"submission": 1, "iteration": 0}})
    bus.publish(aid, 110.0, "feedback.read", {"submission": 1})
    # Sprint double-submit inside 30 s: #2 replaces #1.
    bus.publish(aid, 120.0, "submission.received", received(2, replaces=1))
    bus.publish(aid, 120.0, "submission.replaced", {"submission": 1, "by": 2})
    await store.flush()
    mid = await store.get_attempt(aid)
    assert mid["submissions_used"] == 1  # the replaced one no longer counts
    assert mid["workspace"] == "/w/a"  # create_attempt's column kept by the event's upsert
    bus.publish(
        aid, 125.0, "submission.judged", {"submission": 2, "result": {"submission": 2}, "score": 85.5, "phase": 1}
    )
    bus.publish(aid, 125.2, "feedback.delivered", {"submission": 2, "feedback": {"submission": 2}})
    bus.publish(aid, 900.0, "clock.cutoff", {"remaining_s": 0})
    bus.publish(aid, 930.0, "attempt.finished", {"status": "finished", "reason": "time up", "scored_submission": 2})
    await store.flush()

    subs = await store.submissions(aid)
    assert [(s["n"], s["counted"], s["replaced_by"], s["score"], s["at_t"]) for s in subs] == [
        (1, 0, 2, 40.0, 100.0),
        (2, 1, None, 85.5, 120.0),
    ]
    assert subs[0]["result"] == {"submission": 1, "tests": []}
    assert subs[1]["diff"]["changed_files"] == ["src/sort.py"]
    fb = await store.feedback(aid)
    assert [(f["n"], f["read"], f["read_t"], f["delivered_t"]) for f in fb] == [
        (1, 1, 110.0, 104.5),
        (2, 0, None, 125.2),
    ]
    assert fb[1]["document"] == {"submission": 2}
    a = await store.get_attempt(aid)
    assert (a["status"], a["reason"], a["scored_submission"], a["last_score"], a["last_t"]) == (
        "finished",
        "time up",
        2,
        85.5,
        930.0,
    )
    assert a["finished_at"] is not None
    assert await store.running_attempts() == []


async def test_attempt_started_links_its_run_only_when_the_run_exists(setup):
    store, bus = setup
    run = await store.create_run("run")
    bus.publish("a-00000aaa", 0.0, "attempt.started", {**STARTED, "run": run})
    bus.publish("a-00000bbb", 0.0, "attempt.started", {**STARTED, "run": "r-nosuchrun"})
    await store.flush()  # the unknown run refuses nothing
    assert (await store.get_attempt("a-00000aaa"))["run"] == run
    assert (await store.get_attempt("a-00000bbb"))["run"] is None
    assert await store.max_seq("a-00000bbb") == 1


async def test_phases_and_resume(setup):
    store, bus = setup
    aid = "a-00c0ffee"
    bus.publish(aid, 0.0, "attempt.started", {**STARTED, "format": "marathon"})
    bus.publish(aid, 50.0, "phase.revealed", {"phase": 2, "id": "extension", "by": "time"})
    bus.publish(aid, 60.0, "attempt.finished", {"status": "interrupted", "reason": "arena stopped"})
    await store.flush()
    a = await store.get_attempt(aid)
    assert (a["phase"], a["status"]) == (2, "interrupted")
    bus.publish(aid, 60.0, "attempt.resumed", {"elapsed_s": 60.0})
    await store.flush()
    a = await store.get_attempt(aid)
    assert (a["status"], a["finished_at"], a["phase"]) == ("running", None, 2)


async def test_odd_events_are_logged_without_touching_derived_rows(setup):
    store, bus = setup
    aid = "a-0000abcd"
    bus.publish(aid, 0.0, "attempt.started", STARTED)
    bus.publish(aid, 1.0, "attempt.finished", {"status": "exploded"})
    bus.publish(aid, 2.0, "submission.received", {"hash": "no number"})
    await store.flush()  # nothing refused: the log keeps every event
    assert [e.kind for e in await store.events(aid)] == ["attempt.started", "attempt.finished", "submission.received"]
    assert (await store.get_attempt(aid))["status"] == "running"
    assert await store.submissions(aid) == []


async def test_runs_and_ratings(setup):
    store, _ = setup
    run = await store.create_run("arena", {"plan": "plan.yaml"})
    aid = await store.create_attempt(challenge="c1", agent="scripted:naive", format="standard", run=run)
    await store.update_attempt(aid, workspace=Path("/w/ws"), sandbox="docker")
    got = await store.get_attempt(aid)
    assert (got["workspace"], got["sandbox"], got["run"]) == ("/w/ws", "docker", run)
    await store.set_status(aid, "finished")
    await store.finish_run(run)
    (r,) = await store.runs()
    assert (r["id"], r["kind"], r["args"]) == (run, "arena", {"plan": "plan.yaml"})
    assert r["finished_at"] is not None
    await store.set_rating("agents", "scripted:naive", 1432.5, games=3, weight_class="lightweight")
    await store.set_rating("agents", "scripted:elite", 1610.0, games=3)
    assert [(r["name"], r["rating"], r["rated_games"]) for r in await store.ratings("agents")] == [
        ("scripted:elite", 1610.0, 3),
        ("scripted:naive", 1432.5, 3),
    ]
    await store.set_rating("challenges", "c1", 1500.0, games=1)
    assert (await store.ratings("challenges"))[0]["rating"] == 1500.0
    assert [a["id"] for a in await store.all_finished_attempts()] == [aid]
