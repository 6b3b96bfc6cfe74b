"""Attempts on a manual clock: warnings at the right instants, submissions through the
rules, feedback per format, grace, phases, hangs. Real packages, real local sandboxes,
real judge runs; only the time source is manual."""

from __future__ import annotations

from arena.challenge import load_challenge
from arena.clock import ManualTime
from arena.formats import rules_for
from arena import events as ev
from attempt_kit import request_stepping, drive, kinds, make_package, of, open_arena, stored


async def _run(tmp_path, pkg, agent, *, step=1.0, arena_kw=None):
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock, **(arena_kw or {}))
    try:
        a = arena.attempt(load_challenge(pkg), agent)
        (status,) = await drive(arena, [a], clock, step=step)
        return a, status, await stored(arena, a.id)
    finally:
        await arena.close()


async def test_sprint_warnings_double_submit_and_cutoff(tmp_path):
    # 15m sprint; the agent keeps going past the cutoff (declared waits are not hangs).
    steps = [
        {"wait": "100s"},
        {"overlay": "agents/half"},
        "submit",
        {"wait": "10s"},
        {"overlay": "agents/fixed"},
        "submit",  # #1's feedback is held 30 s: this is at 140
        {"wait": "20m"},
        "submit",
    ]
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"patient": steps})
    a, status, events = await _run(tmp_path, pkg, "scripted:patient", step=5.0)
    assert status == "finished"
    assert kinds(events)[0] == ev.ATTEMPT_STARTED and kinds(events)[-1] == ev.ATTEMPT_FINISHED
    marks = {e.kind: e.t for e in events if e.kind.startswith("clock.")}
    assert marks == {ev.CLOCK_SOFT: 720.0, ev.CLOCK_HARD: 810.0, ev.CLOCK_CUTOFF: 900.0, ev.CLOCK_GRACE_END: 900.0}
    assert of(events, ev.CLOCK_SOFT)[0].data["remaining_s"] == 180.0
    received = of(events, ev.SUBMISSION_RECEIVED)
    assert [e.data["submission"] for e in received] == [1, 2]
    # a blocking submit waits out the double-submit window (tests/scoring/
    # test_sprint_double_submit.py sends two concurrent submits: one feedback)
    assert received[0].t == 100.0 and received[1].t == 140.0
    assert of(events, ev.FEEDBACK_DELIVERED)[0].t == 130.0
    assert not of(events, ev.SUBMISSION_REPLACED)
    # the third submit came after the time limit: the attempt was over (no reply needed)
    assert not any(e.t > 900.0 for e in events if e.kind == ev.SUBMISSION_RECEIVED)
    fin = of(events, ev.ATTEMPT_FINISHED)[0].data
    assert fin["scored_submission"] == 2 and fin["reason"] == "time limit reached"
    fb = [e.data["feedback"] for e in of(events, ev.FEEDBACK_DELIVERED)]
    # Sprint (CONTRACT §7): counts, build, names with pass/fail and category, no messages
    assert set(fb[0]) <= {"submission", "iteration", "at", "elapsed_s", "build", "tests", "hidden", "notices"}
    assert fb[0]["tests"]["passed"] == 3 and fb[0]["tests"]["total"] == 4
    assert all("message" not in f for f in fb[0]["tests"]["failures"])
    assert fb[0]["tests"]["failures"][0]["category"] == "edge_case"
    assert fb[1]["tests"]["passed"] == 4 and fb[1]["hidden"] == {"total": 2, "passed": 2}


async def test_standard_cooldown_budget_grace_and_preview(tmp_path):
    steps = [
        {"wait": "60s"},
        "submit",
        "submit",  # 2nd: cooldown
        {"wait": "60s"},
        {"overlay": "agents/half"},
        "submit",
        {"wait": "60s"},
        "submit",  # identical to the previous one
        {"wait": "60s"},
        {"overlay": "agents/fixed"},
        "submit",  # 4th: score preview
        {"wait": "60s"},
        "submit",  # budget spent
        {"wait": "1510s"},
        "submit",
        {"message": "done, fixed add and mul"},
        {"wait": "60s"},
    ]
    pkg = make_package(tmp_path / "pkg", fmt="standard", agents={"s": steps})
    a, status, events = await _run(tmp_path, pkg, "scripted:s", step=5.0)
    refused = [e.data["code"] for e in of(events, ev.SUBMISSION_REFUSED)]
    assert refused == ["cooldown", "budget_spent", "grace_message_only"]
    assert len(of(events, ev.SUBMISSION_RECEIVED)) == 4
    assert of(events, ev.SUBMISSION_RECEIVED)[2].data["identical_to"] == 2
    fbs = [e.data["feedback"] for e in of(events, ev.FEEDBACK_DELIVERED)]
    rules = rules_for("standard")
    for doc in fbs:
        shown = rules.disclosed(doc["submission"])
        assert ("diff" in doc) == ("diff" in shown)
        assert ("score_preview" in doc) == (doc["submission"] >= 4)
    assert fbs[2]["notices"][0] == "Submission identical to previous iteration."
    assert "message" in fbs[0]["tests"]["failures"][0]  # Standard shows failure messages
    msg = of(events, ev.AGENT_MESSAGE)
    assert msg and msg[0].data["text"] == "done, fixed add and mul"
    assert 1800.0 <= msg[0].t < 1830.0  # in grace
    assert of(events, ev.CLOCK_GRACE_END)[0].t == 1830.0
    assert of(events, ev.ATTEMPT_FINISHED)[0].data["scored_submission"] == 4


async def test_marathon_phases_by_threshold_then_time(tmp_path):
    phases = [
        {"id": "subtraction", "reveal_at": 0.5, "advance_threshold": 0.6, "hint": "add sub()"},
        {"id": "polish", "reveal_at": 0.7},
    ]
    steps = [
        {"wait": "5m"},
        {"overlay": "agents/half"},
        "submit",  # 3/4 static: opens phase 2
        {"wait": "40m"},
        {"overlay": "agents/p2"},
        "submit",
        {"wait": "50m"},
    ]
    pkg = make_package(tmp_path / "pkg", fmt="marathon", phases=phases, agents={"m": steps})
    a, status, events = await _run(tmp_path, pkg, "scripted:m", step=10.0)
    revealed = of(events, ev.PHASE_REVEALED)
    assert [(e.data["phase"], e.data["by"]) for e in revealed] == [(2, "threshold"), (3, "time")]
    assert revealed[0].t == 300.0 and revealed[1].t == 0.7 * 3600
    assert revealed[0].data["briefing"].startswith("Phase 2")
    judged = of(events, ev.SUBMISSION_JUDGED)
    assert [e.data["phase"] for e in judged] == [1, 3]
    fb = [e.data["feedback"] for e in of(events, ev.FEEDBACK_DELIVERED)]
    assert fb[0]["phase"] == {"current": 2, "completed": [1], "hint": "add sub()"}
    assert "trajectory" in fb[1] and len(fb[1]["trajectory"]) == 2
    # phase 2's tests count from submission 2 on
    names = {t["name"] for t in judged[1].data["result"]["tests"]}
    assert "test_sub_basic" in names  # phase 2's tests count once it is open
    assert status == "finished"


async def test_hang_is_detected_and_last_valid_scored(tmp_path):
    pkg = make_package(
        tmp_path / "pkg", fmt="sprint", hang_limit="60s", agents={"quiet": [{"overlay": "agents/half"}, "submit"]}
    )
    clock = ManualTime()
    arena = await open_arena(tmp_path, clock)
    try:
        # the human agent does nothing at all after its submission: hung at last activity + 60 s
        a = arena.attempt(load_challenge(pkg), "human")
        import asyncio

        task = asyncio.create_task(arena.run_one(a))
        while not a.ready:
            await asyncio.sleep(0.005)
        await clock.step(30)
        reply = await request_stepping(a, clock, {"op": "submit"})
        assert reply["ok"] and reply["submission"] == 1
        for _ in range(200):
            if task.done():
                break
            await clock.step(1)
        status = await task
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    hung = of(events, ev.AGENT_HUNG)
    assert len(hung) == 1 and status == "finished"
    last_activity = max(
        e.t for e in events if e.kind in (ev.PROTOCOL_CALL, ev.FILE_CHANGED) or e.kind == ev.FEEDBACK_DELIVERED
    )
    assert 60.0 < hung[0].t - last_activity <= 61.0
    fin = of(events, ev.ATTEMPT_FINISHED)[0].data
    assert fin["reason"] == "agent hung" and fin["scored_submission"] == 1


async def test_declared_waits_are_not_hangs(tmp_path):
    pkg = make_package(
        tmp_path / "pkg",
        fmt="sprint",
        hang_limit="60s",
        agents={"slow": [{"wait": "10m"}, {"overlay": "agents/fixed"}, "submit"]},
    )
    a, status, events = await _run(tmp_path, pkg, "scripted:slow", step=5.0)
    assert not of(events, ev.AGENT_HUNG)
    assert of(events, ev.SUBMISSION_RECEIVED)[0].t == 600.0
    assert of(events, ev.ATTEMPT_FINISHED)[0].data["reason"] == "agent done: script finished"


async def test_an_agent_ending_on_the_instant_of_a_warning_has_it_on_record(tmp_path):
    # 15m sprint: the 80 % mark is at 720 s; the script's waits end exactly there, so the
    # agent's end and the clock's mark come due together (task-store's standard did this).
    steps = [{"wait": "100s"}, {"overlay": "agents/fixed"}, "submit", {"wait": "590s"}]  # submit holds 30 s
    pkg = make_package(tmp_path / "pkg", fmt="sprint", agents={"punctual": steps})
    a, status, events = await _run(tmp_path, pkg, "scripted:punctual", step=5.0)
    fin = of(events, ev.ATTEMPT_FINISHED)[0]
    assert status == "finished" and fin.data["reason"] == "agent done: script finished"
    assert fin.data["ended_s"] == 720.0
    marks = [(e.kind, e.t) for e in events if e.kind.startswith("clock.")]
    assert marks == [(ev.CLOCK_SOFT, 720.0)]
    assert of(events, ev.CLOCK_SOFT)[0].seq < fin.seq
