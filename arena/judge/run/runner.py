"""The judge: one submission snapshot, a fresh sandbox, the judge-side tests, a verdict.

``Judge(backend, pool_size).run(challenge, snapshot, submission=n, phases=[1, ...])``
never raises for the agent's faults; a failure of the sandbox, the image or the
runner itself sets ``JudgeResult.infra_error`` (never scored as the agent's result).

Every run sees: ``/workspace`` (a copy of the snapshot, read-only), ``/judge``
(read-only: ``tests/<phase>/<suite>/`` copies of the judge-side tests and ``config/``
with the trusted bootstrap, plugin and pytest.ini — a content-addressed directory,
``tests_cache``) and ``/judge-out`` (the run's own writable directory, a small tmpfs
on the host as root, where the report and the progress log are written; read back
without following links). Local: a private run directory holds all three and goes
with the sandbox. Docker: pre-started sandboxes from ``pools`` (see there).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.judge.run import command as cmd
from arena.judge.run import coverage_pass, verifier
from arena.judge.verdict import result_formats, verifier_output
from arena.judge.in_sandbox import trusted
from arena.judge.verdict.expected import Matcher, collect_expected, is_test_file
from arena.judge.verdict.isolation_notices import notice_lines, read_isolation_notices
from arena.judge.verdict.junit import JUnitError, parse_junit, read_report
from arena.judge.static.lint import lint_snapshot
from arena.results import Finding, JudgeResult
from arena.judge.run.local_pool import LocalPools
from arena.judge.run.pools import JudgePools
from arena.judge.verdict.redact import redact_result, redactor_for, withhold_all
from arena.judge.run.scratch import make_out_dir, release_out_dir
from arena.judge.verdict.snapshot import Snapshot, materialize
from arena.judge.static import static_checks
from arena.judge.static.static_checks import static_reports
from arena.judge.verdict.tamper import scan
from arena.judge.run.tests_cache import judge_dir
from arena.judge.verdict.verdict import (
    Progress,
    assemble,
    deliverables,
    read_coverage,
    parse_progress,
    raw_results,
    scrub_paths,
)
from arena.sandbox import registry
from arena.sandbox.base import Limits, Mount, SandboxError

log = logging.getLogger(__name__)
START_MARK = trusted.START_MARK.encode()


@dataclass
class JudgeSpec:
    """What the judge reads from a challenge (a ``Challenge`` or anything shaped like one)."""

    command: str
    timeout_s: float
    categories: dict[str, str]
    image: str
    limits: Limits
    deliverables: list[tuple[str, str]]  # (name, kind)
    starter: Path | None
    test_dirs: dict[int, dict[str, list[Path]]] = field(default_factory=dict)
    coverage: bool = False  # the untimed coverage pass (arena/judge/run/coverage_pass.py)
    wants_coverage: bool = True  # the format discloses coverage (Sprint does not: no pass)
    deliverable_specs: list = field(default_factory=list)  # the manifest's Deliverable models
    quality: object = None  # manifest judge.quality / judge.security (static_checks.py)
    security: object = None
    # "process": the submission runs in its own process behind a data-only pipe
    # (isolation.py); "in_process": imported into the test process (the old mode).
    isolation: str = "process"
    briefing: str = ""  # every phase's briefing: a deliverable that repeats it says nothing (substance.py)
    # manifest judge.results (result_formats.py): "" = JUnit at {report} (with expected ids)
    results_format: str = ""
    results_path: str = ""

    @classmethod
    def from_challenge(cls, challenge, phases: list[int]) -> "JudgeSpec":
        m = challenge.manifest
        sb = m.sandbox
        timeout = float(getattr(m.judge, "timeout_s", m.judge.timeout))
        limits = Limits(
            cpus=float(sb.cpus),
            memory_mb=int(sb.memory_mb),
            pids=int(sb.pids),
            wall_s=timeout,
            network=False,
            runtime=getattr(sb, "runtime", None),
            # a judge command with its own results may build and run binaries in /tmp
            tmp_exec=getattr(m.judge, "results", None) is not None,
        )
        res = getattr(m.judge, "results", None)
        command = m.judge.command
        if res is not None and res.path != result_formats.STDOUT:
            command = command.replace("{report}", f"{cmd.OUT_DIR}/{res.path}")
        return cls(
            results_format=res.format if res is not None else "",
            results_path=res.path if res is not None else "",
            wants_coverage=_discloses_coverage(getattr(m, "format", "")),
            command=command,
            timeout_s=timeout,
            categories=dict(m.judge.categories or {}),
            image=sb.image,
            limits=limits,
            deliverables=[(d.name, d.kind) for d in (m.deliverables or [])],
            starter=getattr(challenge, "starter_dir", None),
            test_dirs={p: challenge.test_dirs(p) for p in phases},
            deliverable_specs=list(m.deliverables or []),
            quality=getattr(m.judge, "quality", None),
            security=getattr(m.judge, "security", None),
            isolation=str(getattr(m.judge, "isolation", "process") or "process"),
            briefing=_briefings(challenge),
        )

    @property
    def isolated(self) -> bool:
        return self.isolation == "process"


def _briefings(challenge) -> str:
    """The briefing and every phase briefing of ``challenge`` (empty when it has none)."""
    parts = [str(getattr(challenge, "briefing", "") or "")]
    n = getattr(challenge, "phase_count", None)
    read = getattr(challenge, "phase_briefing", None)
    if callable(read) and isinstance(n, int):
        for k in range(2, n + 1):
            try:
                parts.append(read(k) or "")
            except Exception:  # noqa: BLE001 - a package without that briefing: nothing to compare
                continue
    return "\n\n".join(p for p in parts if p)


class Judge:
    """``pool_size`` bounds the runs at once. On Docker, runs take pre-started sandboxes
    from bounded pools (``prestart`` ready per challenge + phases, default ``pool_size``;
    0 = a cold container per run) and the used container is removed after the verdict is
    returned (``drain()`` waits for those closes, ``aclose()`` also empties the pools)."""

    def __init__(
        self,
        backend,
        pool_size: int = 2,
        *,
        work_root: Path | None = None,
        exec_grace_s: float = 30.0,
        prestart: int | None = None,
        max_pools: int = 4,
        warm: bool = True,
        launcher: bool = True,
        coverage_pass: bool = True,
    ):
        self.backend = backend
        # the untimed coverage pass after a timed run (coverage_pass.py); False: no coverage
        self.coverage_pass = coverage_pass
        self.pool_size = pool_size
        self._sem = asyncio.Semaphore(pool_size)
        self.work_root = Path(work_root) if work_root else None
        self.exec_grace_s = exec_grace_s
        self.pooled = getattr(backend, "name", None) == "docker" and hasattr(backend, "pool")
        self.pools = JudgePools(
            backend, pool_size if prestart is None else prestart, max_pools=max_pools, warm=warm, launcher=launcher
        )
        self.last_phases: dict[str, float] = {}  # seconds per phase of the last run (profiling)
        # Local pytest runs: sandboxes prepared with a waiting launcher (local_pool.py).
        self.local = (
            LocalPools(backend, self.work_root, max_keys=max_pools)
            if getattr(backend, "name", None) == "local" and launcher and prestart != 0
            else None
        )

    async def warm(self, challenge, phases: list[int] | None = None) -> None:
        """Fill the pool for this challenge + phases now (Docker), or prepare a local
        sandbox for it (and keep one prepared after each run from now on)."""
        await asyncio.to_thread(static_checks.prestart)
        if not self.pooled and self.local is None:
            return
        phases = sorted(set(phases or [1]))
        spec = challenge if isinstance(challenge, JudgeSpec) else JudgeSpec.from_challenge(challenge, phases)
        # and the coverage pass's own (prepared with the tracer set up), when it runs
        specs = [spec, *([coverage_pass.spec_for(spec)] if self.coverage_pass and coverage_pass.ever(spec) else [])]
        if not self.pooled:
            if self.local is not None and cmd.build_argv(spec.command, [])[1]:
                for s in specs:
                    await self.local.warm(s)
            return
        jdir, _ = judge_dir(spec.test_dirs, self.pools.cache_root)
        argv, is_pytest = cmd.build_argv(spec.command, [])
        for s in specs:
            await self.pools.pool(s.image, s.limits, jdir, is_pytest, trace=s.coverage).start()

    async def drain(self) -> None:
        """Wait until every sandbox used so far is removed."""
        await self.pools.drain()

    async def aclose(self) -> None:
        """Remove every pooled, prepared and used sandbox and the judge-side cache."""
        if self.local is not None:
            await self.local.aclose()
        await self.pools.aclose()

    async def run(
        self, challenge, snapshot: Snapshot, *, submission: int, phases: list[int] | None = None
    ) -> JudgeResult:
        phases = sorted(set(phases or [1]))
        t0 = time.monotonic()
        self.last_phases = {}
        result = JudgeResult(submission=submission, snapshot_hash=snapshot.hash)
        try:
            spec = challenge if isinstance(challenge, JudgeSpec) else JudgeSpec.from_challenge(challenge, phases)
        except Exception as e:  # noqa: BLE001 — a broken challenge is not the agent's fault
            result.infra_error = f"judge: cannot read the challenge: {e}"
            return result
        expected, errors = collect_expected(spec.test_dirs)
        if spec.results_format:  # the tests are the result file's (result_formats.py)
            expected = []
        judge_names = {
            p.name
            for suites in spec.test_dirs.values()
            for roots in suites.values()
            for root in roots
            for p in ([root] if root.is_file() else root.rglob("*.py"))
        }
        if cmd.build_argv(spec.command, [])[1]:
            result.isolation = spec.isolation
        result.integrity = scan(snapshot, starter=spec.starter, judge_test_names=judge_names)
        result.lint = lint_snapshot(snapshot)
        # The static judges (ruff, bandit: host processes over the snapshot, a few hundred
        # ms) run while the tests run in the sandbox, not before them.
        static = asyncio.ensure_future(asyncio.to_thread(static_reports, spec, snapshot))
        result.notices = list(snapshot.notices)
        if errors:
            result.quality, result.security = await static
            result.infra_error = "; ".join(errors)
            return result
        self._mark("checks", t0)
        # The used sandbox's close and its pool's refill wait until the coverage pass is
        # done: neither competes with it for the CPU (a submission's verdict is later by
        # what they cost otherwise).
        later: list = []
        async with self._sem:
            try:
                try:
                    await self._dispatch(spec, snapshot, expected, result, later)
                except (OSError, ValueError, RuntimeError) as e:  # the judge's own host-side failure
                    log.exception("judge run failed")
                    result.infra_error = f"judge: {type(e).__name__}: {e}"
                    result.tests = []
                finally:
                    result.quality, result.security = await static
                if self.coverage_pass and coverage_pass.wanted(spec, result):
                    timed = dict(self.last_phases)  # the profile stays the timed run's
                    await coverage_pass.run(self, spec, snapshot, expected, result, later)
                    self.last_phases = timed
            finally:
                for step in later:
                    step()
        result.deliverables = deliverables(spec, snapshot, result)
        try:
            redact_result(result, redactor_for(spec.test_dirs, snapshot))
        except Exception:  # noqa: BLE001 — never let the filter turn into a leak: withhold all
            log.exception("judge: redaction failed; withholding every message")
            withhold_all(result)
        result.duration_s = round(time.monotonic() - t0, 3)
        return result

    async def _dispatch(self, spec: JudgeSpec, snapshot: Snapshot, expected, result: JudgeResult, later=None):
        """One run of ``spec``'s tests: pooled (Docker), prepared (local) or cold.
        ``later``: the used sandbox's close and the refill are appended to it (run by
        the caller when it is done), else started at once."""
        if self.pooled:
            await self._run_pooled(spec, snapshot, expected, result, later)
        elif self.local is not None and cmd.build_argv(spec.command, [])[1]:
            if not await self._run_prepared(spec, snapshot, expected, result, later):
                await self._run_sandboxed(spec, snapshot, expected, result)
        else:
            await self._run_sandboxed(spec, snapshot, expected, result)

    @staticmethod
    def _after(later, *steps) -> None:
        if later is None:
            for step in steps:
                step()
        else:
            later.extend(steps)

    def _mark(self, phase: str, since: float) -> float:
        now = time.monotonic()
        self.last_phases[phase] = now - since
        return now

    async def _exec(self, sandbox, spec: JudgeSpec, argv: list[str], result: JudgeResult, key: str):
        """The one exec of a judge run; None (infra_error set) when the sandbox failed.
        A pooled launcher container (already running the bootstrap) gets the pytest
        arguments as its one request instead of an exec. ``key``: signs the progress log."""
        pytest_run = argv[: len(cmd.BOOTSTRAP)] == cmd.BOOTSTRAP
        if getattr(sandbox, "launcher", False) and pytest_run:
            run = sandbox.launch([*argv[len(cmd.BOOTSTRAP) :], cmd.key_arg(key)], timeout=spec.timeout_s)
        elif pytest_run:
            run = sandbox.exec(argv, timeout=spec.timeout_s, env={**cmd.judge_env(), cmd.KEY_ENV: key})
        else:  # a verifier run as written (an imported task's test.sh): guarded (verifier.py)
            env = {**cmd.judge_env(), **verifier.guard_env()}
            local = getattr(sandbox, "backend", "") == "local"  # PID 1: its end ends every process
            run = sandbox.exec(argv, timeout=spec.timeout_s, env=env, **({"as_pid_1": True} if local else {}))
        try:
            res = await asyncio.wait_for(run, spec.timeout_s + self.exec_grace_s)
            if not pytest_run:  # nothing of the run may write its results once it has ended
                await verifier.end_processes(sandbox)
            return res
        except SandboxError as e:
            result.infra_error = f"sandbox: {e}"
        except asyncio.TimeoutError:
            result.infra_error = "sandbox: the judge run did not end after its timeout"
        return None

    async def _run_pooled(self, spec: JudgeSpec, snapshot: Snapshot, expected, result: JudgeResult, later=None):
        """Docker: a pre-started sandbox (or a cold one created while the snapshot is
        copied in), removed in the background once the verdict is built."""
        t = time.monotonic()
        jdir, tests_args = await asyncio.to_thread(judge_dir, spec.test_dirs, self.pools.cache_root)
        argv, is_pytest = cmd.build_argv(spec.command, tests_args, coverage=spec.coverage, isolated=spec.isolated)
        if not is_pytest:  # a verifier run as written: PID 1 of a container of its own (verifier.py)
            try:
                await verifier.run_own_container(
                    self.backend,
                    spec,
                    snapshot,
                    jdir,
                    argv,
                    self.work_root,
                    lambda out, res: self._verdict(spec, expected, out, res, False, result, ""),
                )
            except SandboxError as e:
                result.infra_error = f"sandbox: {e}"
            return
        pool = self.pools.pool(spec.image, spec.limits, jdir, is_pytest, trace=spec.coverage)
        t = self._mark("layout", t)
        try:
            sandbox = await pool.acquire(fill=lambda ws: materialize(snapshot, ws), refill=False)
        except SandboxError as e:
            result.infra_error = f"sandbox: {e}"
            return
        try:
            t = self._mark("sandbox", t)
            key = secrets.token_hex(16)
            res = await self._exec(sandbox, spec, argv, result, key)
            t = self._mark("exec", t)
            if res is not None:
                self._verdict(spec, expected, sandbox.scratch_dir, res, is_pytest, result, key)
            self._mark("verdict", t)
        finally:
            self._after(later, lambda: self.pools.close_later(sandbox), pool.refill)

    async def _run_prepared(self, spec: JudgeSpec, snapshot: Snapshot, expected, result: JudgeResult, later=None):
        """Local pytest run in a prepared sandbox, closed in the background once the
        verdict is built; False (nothing done) when none is ready."""
        local = self.local
        if local is None:  # (only called with local pools)
            return False
        t = time.monotonic()
        prepared, key = await local.take(spec)
        if prepared is None:
            local.refill(key, spec)  # (for a warmed key: the next one)
            return False
        try:
            t = self._mark("sandbox", t)
            argv, _ = cmd.build_argv(spec.command, prepared.tests_args, coverage=spec.coverage, isolated=spec.isolated)
            res, mac_key = None, secrets.token_hex(16)
            try:
                res = await asyncio.wait_for(
                    prepared.run(snapshot, [*argv[len(cmd.BOOTSTRAP) :], cmd.key_arg(mac_key)], spec.timeout_s),
                    spec.timeout_s + self.exec_grace_s,
                )
            except SandboxError as e:
                result.infra_error = f"sandbox: {e}"
            except asyncio.TimeoutError:
                result.infra_error = "sandbox: the judge run did not end after its timeout"
            t = self._mark("exec", t)
            if res is not None:
                self._verdict(spec, expected, prepared.out, res, True, result, mac_key)
            self._mark("verdict", t)
        finally:
            self._after(later, lambda: self.pools._later(prepared.close()), lambda: local.refill(key, spec))
        return True

    async def _run_sandboxed(self, spec: JudgeSpec, snapshot: Snapshot, expected, result: JudgeResult):
        # Named "<pid>-judge-<random>" under the sandbox state root by default, so that
        # arena.sandbox.cleanup_stale() unmounts and removes what a crashed arena left.
        root = self.work_root or registry.STATE_ROOT
        root.mkdir(parents=True, exist_ok=True)
        run_dir = Path(tempfile.mkdtemp(prefix=f"{registry.owner_tag()}-judge-", dir=root))
        sandbox = None
        mounted = False

        def cleanup() -> None:  # also run by the sandbox registry on SIGTERM/SIGHUP/exit
            release_out_dir(run_dir / "out", mounted)
            shutil.rmtree(run_dir, ignore_errors=True)

        registry.register(run_dir.name, cleanup)
        try:
            t = time.monotonic()
            mounted = make_out_dir(run_dir / "out")
            materialize(snapshot, run_dir / "ws")
            jdir, tests_args = judge_dir(spec.test_dirs, run_dir / "judge")
            run_dir.chmod(0o755)
            argv, is_pytest = cmd.build_argv(spec.command, tests_args, coverage=spec.coverage, isolated=spec.isolated)
            mounts = [Mount(jdir, cmd.JUDGE_ROOT, readonly=True), Mount(run_dir / "out", cmd.OUT_DIR, readonly=False)]
            t = self._mark("layout", t)
            try:
                sandbox = await self.backend.create(
                    run_dir / "ws", spec.limits, mounts=mounts, image=spec.image, workspace_readonly=True
                )
            except SandboxError as e:
                result.infra_error = f"sandbox: {e}"
                return
            t = self._mark("sandbox", t)
            key = secrets.token_hex(16)
            res = await self._exec(sandbox, spec, argv, result, key)
            t = self._mark("exec", t)
            if res is not None:
                self._verdict(spec, expected, run_dir / "out", res, is_pytest, result, key)
            self._mark("verdict", t)
        finally:
            if sandbox is not None:
                try:
                    await sandbox.close()
                except Exception as e:  # noqa: BLE001
                    log.warning("judge: closing sandbox failed: %s", e)
            registry.unregister(run_dir.name)
            cleanup()

    def _verdict(self, spec, expected, out: Path, res, is_pytest: bool, result: JudgeResult, key: str):
        result.timed_out = bool(res.timed_out)
        result.duration_s = res.duration_s  # the timed run's own (replaced by run()'s total)
        if spec.coverage:  # the coverage pass: its tests' results are not the verdict
            result.coverage = None if res.timed_out else read_coverage(out / "coverage.json")
            return
        junit_cases = None
        if spec.results_format:
            try:
                junit_cases = result_formats.read(spec.results_format, spec.results_path, out, res.stdout or b"")
            except result_formats.ResultsError as e:
                result.infra_error = f"judge: {e}"
                return
            for c in junit_cases or []:
                c.message = scrub_paths(c.message)
        if not is_pytest:  # a pytest of the verifier that ended before it reported voids its results
            junit_cases = verifier.check_marks(out, res, junit_cases, result)
            # what it printed, kept with the verdict; its tail in a failed reward's message (issue 37)
            result.verifier_output = scrub_paths(verifier_output.kept(out, res.stdout, res.stderr)) or None
            verifier_output.attach(junit_cases, result.verifier_output or "")
        try:
            data = None if spec.results_format else read_report(str(out / "report.xml"))
            if data is not None:
                junit_cases = parse_junit(data)
                for c in junit_cases:
                    c.message = scrub_paths(c.message)
        except JUnitError as e:
            result.integrity.append(
                Finding(severity="error", check="judge.hostile_report", detail=f"JUnit report refused: {e}")
            )
        progress_data = None
        try:
            progress_data = read_report(str(out / "progress.jsonl")) if is_pytest else None
            progress = parse_progress(progress_data, key) if is_pytest else Progress()
        except JUnitError:
            progress = Progress()
        started = progress.started or START_MARK in res.stdout or START_MARK in res.stderr
        if is_pytest and not started and junit_cases is None:
            missing = _missing_line(res.stderr or b"")
            if missing:  # written before any submission code could run: the host's fault
                result.infra_error = f"judge: {missing}"
                return
            tail = (res.stderr or res.stdout or b"")[-400:].decode("utf-8", "replace").strip()
            result.infra_error = (
                f"judge: the test runner did not start (exit code {res.exit_code}"
                f"{', timed out' if res.timed_out else ''}): {tail}"
            )
            return
        if not is_pytest and junit_cases is None:
            if res.exit_code in (126, 127):
                tail = (res.stderr or b"")[-400:].decode("utf-8", "replace").strip()
                result.infra_error = f"judge: the test runner did not run (exit code {res.exit_code}): {tail}"
                return
            if not res.timed_out:
                result.build.status = "failure"
                result.build.errors = [
                    verifier_output.with_tail(
                        f"the test command wrote no report (exit code {res.exit_code})", result.verifier_output or ""
                    )
                ]
        if not expected and not is_pytest:
            result.tests = raw_results(junit_cases or [], spec.categories)
            if res.timed_out:
                result.notices.append(
                    f"Execution timed out after {spec.timeout_s:g} seconds. "
                    f"{len(result.tests)}/{len(result.tests)} tests completed."
                )
            return
        matcher = Matcher(expected, cmd.TESTS_ROOT)
        v = assemble(
            expected,
            matcher,
            junit=junit_cases,
            progress=progress,
            timed_out=res.timed_out,
            timeout_s=spec.timeout_s,
            categories=spec.categories,
        )
        result.tests = v.tests
        if v.build.status == "failure":
            result.build = v.build
        result.integrity += v.integrity
        result.notices += v.notices
        if spec.isolated:
            result.isolation_notices = read_isolation_notices(progress_data, key, matcher)
            result.notices += notice_lines(result.isolation_notices)
        if res.truncated:
            result.notices.append("Test output was over the sandbox's output cap and was cut.")
        result.coverage = read_coverage(out / "coverage.json")


def _missing_line(stderr: bytes) -> str:
    """The runner's own report of a missing module (``trusted.MISSING_MARK``), if any."""
    mark = trusted.MISSING_MARK.encode()
    for line in stderr.splitlines():
        if line.startswith(mark):
            return line[len(mark) :].lstrip(b": ").decode("utf-8", "replace")[:300]
    return ""


def _discloses_coverage(fmt: str) -> bool:
    """Whether any feedback of this format shows coverage (the only use of the pass)."""
    from arena.formats import FIELD_COVERAGE, rules_for  # noqa: PLC0415

    try:
        d = rules_for(fmt).disclosure
    except (KeyError, AttributeError):
        return True
    return FIELD_COVERAGE in d.always or FIELD_COVERAGE in d.from_submission


__all__ = ["Judge", "JudgeSpec", "is_test_file"]
