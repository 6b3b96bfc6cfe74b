"""The bundled packages that once needed ``judge.isolation: in_process`` score exactly the
same under process isolation (issue 11, "Done means"), on both backends.

rate-limiter's adversarial tests measure memory with ``tracemalloc`` (now measured in the
submission's process); task-store's race tests drive the store from several test threads
(now each with a thread of its own in the submission's process). For workspaces of the
scripted agents chosen so both outcomes of those tests occur (a limiter that keeps every
user, one that records denied requests, the reference; a task store whose version check
races, the reference), every test's outcome is the same in both modes. Every submission
of every scripted agent of all three packages was compared once the same way (37 of 37
identical; see docs/judge.md).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_bundled_helpers import BUNDLED, agent_steps, copy_tree, make_workspace, phase_numbers, step_kind  # noqa: E402

# (package, agent, submission number, tests that must fail in both modes there)
STATES = [
    ("rate-limiter", "standard", 3, {"test_adv_many_distinct_users_keep_state_bounded"}),
    ("rate-limiter", "standard", 4, {"test_adv_denied_flood_does_not_grow_memory"}),
    ("rate-limiter", "reference", 1, set()),
    (
        "task-store",
        "elite",
        3,
        {
            "test_adv_no_lost_updates_with_retry_loops",
            "test_adv_same_version_exactly_one_writer_wins",
            "test_adv_tenant_writers_race_on_one_version",
        },
    ),
    ("task-store", "reference", 3, set()),
]


def workspace_at(pid: str, agent: str, n: int, dest: Path) -> Path:
    """The workspace of a scripted agent at its n-th submit step."""
    pkg = BUNDLED / pid
    ws = make_workspace(pkg, dest)
    seen = 0
    for step in agent_steps(pkg, agent):
        kind, value = step_kind(step)
        if kind == "overlay":
            copy_tree(pkg / str(value), ws)
        elif kind == "delete":
            for rel in value if isinstance(value, list) else [value]:
                t = ws / rel
                shutil.rmtree(t) if t.is_dir() else t.unlink()
        elif kind == "submit":
            seen += 1
            if seen == n:
                return ws
    raise AssertionError(f"{pid}/{agent} has no submission {n}")


def mode_copy(pid: str, root: Path, mode: str):
    from arena.challenge import load_challenge

    dest = root / f"{pid}-{mode}"
    if not dest.exists():
        shutil.copytree(BUNDLED / pid, dest)
        y = dest / "challenge.yaml"
        y.write_text(y.read_text().replace("judge:\n", f"judge:\n  isolation: {mode}\n", 1))
    ch = load_challenge(dest)
    assert ch.manifest.judge.isolation == mode
    return ch


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    return tmp_path_factory.mktemp("bundled-modes")


@pytest.mark.parametrize("pid,agent,n,failing", STATES, ids=[f"{s[0]}-{s[1]}-{s[2]}" for s in STATES])
async def test_same_outcomes_in_both_modes(backend, copies, tmp_path, pid, agent, n, failing):
    from arena.judge import Judge, take_snapshot

    assert "isolation" not in (BUNDLED / pid / "challenge.yaml").read_text()  # the default: process
    snap = take_snapshot(workspace_at(pid, agent, n, tmp_path / "ws"), tmp_path / "snaps")
    work = tmp_path / "work"
    work.mkdir()
    judge = Judge(backend, pool_size=1, work_root=work, coverage_pass=False)
    got = {}
    try:
        for mode in ("in_process", "process"):
            r = await judge.run(mode_copy(pid, copies, mode), snap, submission=n, phases=phase_numbers(BUNDLED / pid))
            assert r.infra_error is None and r.isolation == mode
            got[mode] = {t.id: t.outcome for t in r.tests}
    finally:
        await judge.aclose()
    assert got["process"] == got["in_process"]
    failed = {i.rsplit("::", 1)[-1] for i, o in got["process"].items() if o != "passed"}
    assert failing <= failed, failing - failed
    if not failing:
        assert failed == set()
