"""Gate checks that run the package's own tests through the real judge, in a sandbox:
the unmodified starter must fail some tests and error none (seed 003 gate 2), must not
already pass everything (gate 4 trivial shortcut), and the reference solution laid over
the starter must pass every judge-side test of every phase, with no isolation notice (a
construct process isolation cannot carry: the package needs ``judge.isolation: in_process``).

An imported task (``x-import`` in the manifest: ``gauntlet challenge import``) has no
``solution/``: its reference is an agent (``agents/reference.yaml`` runs the task's solve
script). ``validate --run`` runs it and the no-op as real attempts and fails when the
reference does not score full (objective 100), naming the tail of what its verifier
printed (issue 37)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from arena.challenge.errors import error, info
from arena.challenge.loader import Challenge
from arena.results import Finding, JudgeResult


async def judge_tree(ch: Challenge, tree: Path, backend: str | None, work: Path) -> JudgeResult:
    from arena.judge import Judge, take_snapshot  # noqa: PLC0415 — heavy, only when running
    from arena.sandbox import get_backend  # noqa: PLC0415

    snap = take_snapshot(tree, work / "snapshots")
    (work / "judge").mkdir(exist_ok=True)
    judge = Judge(get_backend(backend), 1, work_root=work / "judge", prestart=0)  # one-shot: no pool
    try:
        return await judge.run(ch, snap, submission=1, phases=list(range(1, ch.phase_count + 1)))
    finally:
        await judge.aclose()  # the used sandbox and the judge-side cache go with it


def _names(tests, outcome: str) -> str:
    names = [t.name for t in tests if t.outcome == outcome]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def starter_findings(res: JudgeResult) -> list[Finding]:
    if res.infra_error:
        return [error("starter_run", f"starter/: the judge could not run: {res.infra_error}")]
    out: list[Finding] = []
    if res.build.status == "failure":
        first = res.build.errors[0] if res.build.errors else "collection failed"
        out.append(
            error(
                "starter_run",
                f"starter/: judge-side tests do not build on the unmodified starter ({first[:200]}): expected them to run and fail, not error",
            )
        )
    errored = [t for t in res.tests if t.outcome == "error"]
    if errored:
        out.append(
            error(
                "starter_run",
                f"starter/: {len(errored)} judge-side test(s) error on the unmodified starter ({_names(res.tests, 'error')}): expected failures, not errors",
            )
        )
    if res.tests and all(t.outcome == "passed" for t in res.tests):
        out.append(
            error(
                "trivial_shortcut",
                f"starter/: the unmodified starter already passes all {len(res.tests)} judge-side tests: expected the challenge to need work",
            )
        )
    elif res.build.status == "success" and not errored:
        passed = sum(t.outcome == "passed" for t in res.tests)
        out.append(
            info(
                "starter_run",
                f"starter/: {passed}/{len(res.tests)} judge-side tests pass on the unmodified starter, none errors",
            )
        )
    return out


def solution_findings(res: JudgeResult) -> list[Finding]:
    if res.infra_error:
        return [error("solution_run", f"solution/: the judge could not run: {res.infra_error}")]
    bad = [t for t in res.tests if t.outcome != "passed"]
    if res.build.status == "failure" or bad or not res.tests:
        detail = (
            (f"the tests did not build: {'; '.join(res.build.errors[:2])}" if res.build.status == "failure" else "")
            or ", ".join(f"{t.suite}/{t.name} {t.outcome}" for t in bad[:5])
            or "no tests ran"
        )
        return [
            error(
                "solution_run",
                f"solution/: the reference solution does not pass every judge-side test ({detail}): expected all {len(res.tests)} to pass",
            )
        ]
    return [info("solution_run", f"solution/: the reference solution passes all {len(res.tests)} judge-side tests")]


def isolation_findings(res: JudgeResult) -> list[Finding]:
    """The reference's run carried isolation notices (issue 27): a construct of a test that
    process isolation could not carry faithfully, so the count under the default
    ``judge.isolation: process`` may differ from plain pytest's. One error per (test, construct)."""
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for n in res.isolation_notices:
        if (n.test, n.construct) in seen:
            continue
        seen.add((n.test, n.construct))
        out.append(
            error(
                "isolation",
                f"solution/: {n.test}: under process isolation the judge could not carry this test's "
                f"{n.construct} construct faithfully ({n.detail[:240]}): the package needs judge.isolation: in_process",
            )
        )
        if len(out) >= 10:
            break
    return out


async def _verifier_tail(store_path: Path, attempt: str) -> str:
    """The last lines its verifier printed at the attempt's last judged submission."""
    from store import Store  # noqa: PLC0415

    st = await Store.open(store_path)
    try:
        subs = await st.submissions(attempt)
    finally:
        await st.close()
    for s in reversed(subs):
        res = s.get("result")
        out = res.get("verifier_output") if isinstance(res, dict) else None
        if isinstance(out, str) and out.strip():
            return " | ".join(out.strip().splitlines()[-4:])[-400:]
    return ""


async def imported_findings(
    ch: Challenge, backend: str | None, work: Path, time_scale: float | None = None
) -> list[Finding]:
    """An imported task's reference agent must score full; the no-op must not (``time_scale``:
    the attempts' clock, default ``common.default_time_scale``: about a minute each)."""
    from arena.pipeline.agent_runs import run_agents  # noqa: PLC0415 — the whole engine, only when running
    from arena.pipeline.common import default_time_scale  # noqa: PLC0415
    from arena.sandbox import get_backend  # noqa: PLC0415

    if "reference" not in ch.agent_names:
        return [info("solution_run", "agents/reference.yaml: none (the task has no solution script): not run")]
    names: dict[str, int] = {n: 1 for n in ("reference", "noop") if n in ch.agent_names}
    store_path = work / "imported.db"
    got = await run_agents(
        ch,
        store_path,
        get_backend(backend),
        time_scale or default_time_scale(ch),
        names,
        parallel=2,
        check_schedule=False,
    )
    out = list(got.findings)
    ref = got.objectives.get("reference")
    if ref:
        if ref[0] < 100.0:
            why = await _verifier_tail(store_path, got.attempts["reference"][0])
            out.append(
                error(
                    "solution_run",
                    f"agents/reference.yaml: the imported task's reference scores objective {ref[0]:g}: expected"
                    f" 100 (its verifier passing it){f'; the verifier printed: {why}' if why else ''}",
                )
            )
        else:
            out.append(info("solution_run", "agents/reference.yaml: the imported task's reference scores 100"))
    noop = got.objectives.get("noop")
    if noop:
        if noop[0] >= 100.0:
            out.append(
                error(
                    "trivial_shortcut",
                    "agents/noop.yaml: the untouched environment scores 100: expected the task to need work",
                )
            )
        else:
            out.append(info("starter_run", f"agents/noop.yaml: the untouched environment scores {noop[0]:g}"))
    return out


async def run_findings(
    ch: Challenge, backend: str | None = None, *, solution: bool = True, time_scale: float | None = None
) -> tuple[list[Finding], JudgeResult | None]:
    """Findings of judging the starter (and the starter + solution). Returns the starter's
    result too (the audit reads it for shortcuts)."""
    from arena.sandbox import SandboxError  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="gauntlet-validate-") as tmp:
        work = Path(tmp)
        try:
            starter = await judge_tree(ch, ch.starter_dir, backend, work)
            out = starter_findings(starter)
            if solution and ch.solution_dir is not None:
                tree = work / "solved"
                shutil.copytree(ch.starter_dir, tree, symlinks=True)
                shutil.copytree(ch.solution_dir, tree, symlinks=True, dirs_exist_ok=True)
                solved = await judge_tree(ch, tree, backend, work)
                out += solution_findings(solved) + isolation_findings(solved)
            elif solution and "x-import" in ch.manifest.extensions:
                out += await imported_findings(ch, backend, work, time_scale)
            return out, starter
        except SandboxError as exc:
            return [error("sandbox", f"the sandbox is unavailable: {exc}")], None


def run_checks(
    ch: Challenge, backend: str | None = None, *, solution: bool = True, time_scale: float | None = None
) -> tuple[list[Finding], JudgeResult | None]:
    return asyncio.run(run_findings(ch, backend, solution=solution, time_scale=time_scale))
