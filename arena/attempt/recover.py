"""Attempts a crash left ``running``: resume them or close them as ``interrupted``.

Rebuilt from the stored events alone. An attempt is resumed when its clock has time
left before cutoff, its challenge package and workspace are still there, and its
agent can restart (scripted agents replay from the step after their last answered
submit; ``human`` carries on; agent files cannot). Otherwise it is closed
``interrupted`` and scored on its last valid submission. Host agent processes left
behind are killed (checked by their ``GAUNTLET_ATTEMPT``), and the sandbox module's
stale cleanup removes sandboxes whose owner died. A submission received but never
judged before the crash was never answered: it does not count toward the budget.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from arena.attempt.records import Accepted, ResumeState
from arena import events as ev

if TYPE_CHECKING:
    from arena.judge.verdict.snapshot import Snapshot

log = logging.getLogger(__name__)


def _snapshot(snapshots_root: Path, digest: str) -> Snapshot | None:
    from arena.judge.verdict.snapshot import load_snapshot

    try:
        return load_snapshot(snapshots_root, digest)
    except Exception:  # noqa: BLE001 - the diff of the next submission counts from nothing
        return None


def state_from_events(events: list[ev.Event], snapshots_root: Path) -> ResumeState:
    from arena.results import JudgeResult

    started = next((e.data for e in events if e.kind == ev.ATTEMPT_STARTED), {})
    st = ResumeState(
        attempt=events[0].attempt if events else "",
        started=dict(started),
        elapsed_s=max((e.t for e in events), default=0.0),
        last_seq=max((e.seq for e in events), default=0),
    )
    by_n: dict[int, Accepted] = {}
    for e in events:
        d = e.data
        if e.kind == ev.SUBMISSION_RECEIVED:
            n = int(d["submission"])
            st.received = max(st.received, n)
            by_n[n] = Accepted(n, e.t, d.get("hash", ""), _snapshot(snapshots_root, d.get("hash", "")))
        elif e.kind == ev.SUBMISSION_REPLACED and int(d["submission"]) in by_n:
            by_n[int(d["submission"])].counted = False
        elif e.kind == ev.SUBMISSION_JUDGED and int(d["submission"]) in by_n:
            acc = by_n[int(d["submission"])]
            acc.result = JudgeResult.model_validate(d["result"])
            acc.score = d.get("score")
        elif e.kind == ev.FEEDBACK_DELIVERED and int(d["submission"]) in by_n:
            by_n[int(d["submission"])].feedback = d.get("feedback")
            st.answered_submits += 1
        elif e.kind == ev.SUBMISSION_REFUSED:
            st.answered_submits += 1
        elif e.kind == ev.PHASE_REVEALED:
            st.phase = max(st.phase, int(d.get("phase", 1)))
        elif e.kind == ev.AGENT_STARTED and d.get("pid"):
            st.agent_pids.append(int(d["pid"]))
        elif e.kind == ev.ATTEMPT_FINISHED:
            st.finished = True
        if e.kind in (ev.ATTEMPT_STARTED, ev.ATTEMPT_RESUMED) and d.get("runner_pid"):
            st.runner_pid = int(d["runner_pid"])
    for acc in by_n.values():
        if acc.feedback is None:  # never answered: not counted, not scored
            acc.counted, acc.infra = False, acc.result is None
    st.accepted = [by_n[n] for n in sorted(by_n)]
    return st


def owned_by_live_runner(state: ResumeState) -> bool:
    """True when another live arena process is running this attempt right now (two
    gauntlet processes may share a store): then it is not ours to resume or close."""
    pid = state.runner_pid
    if not pid or pid == os.getpid():
        return False
    from arena.attempt.runner_lock import is_live

    live = is_live(pid)  # the runner's own lock, when it took one (runner_lock.py)
    if live is not None:
        return live
    try:  # a runner of an older version: its command line
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"gauntlet" in cmdline or b"arena" in cmdline or b"pytest" in cmdline


def kill_leftovers(state: ResumeState) -> int:
    from arena.agents.command import kill_leftover

    return sum(1 for pid in state.agent_pids if kill_leftover(pid, state.attempt))


def cleanup_stale_sandboxes(docker: bool) -> None:
    try:
        from arena.sandbox import registry
    except ImportError:
        return
    with contextlib.suppress(Exception):
        registry.cleanup_stale(docker=docker)


def can_resume(state: ResumeState, workspace: Path) -> tuple[bool, str]:
    """(resumable, why not)."""
    from arena.formats import rules_for

    s = state.started
    if not s:
        return False, "no attempt.started event"
    try:
        cutoff = rules_for(s["format"]).cutoff * float(s["time_limit_s"])
    except (KeyError, ValueError, TypeError):
        return False, "attempt.started lacks format or time limit"
    if state.elapsed_s >= cutoff:
        return False, "no time left on its clock"
    agent = str(s.get("agent", ""))
    if not (agent.startswith("scripted:") or agent == "human"):
        return False, f"agent {agent} cannot restart"
    if not s.get("challenge_path") or not Path(s["challenge_path"]).is_dir():
        return False, "its challenge package is gone"
    if not workspace.is_dir():
        return False, "its workspace is gone"
    return True, ""
