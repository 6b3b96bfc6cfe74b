"""Observed telemetry with REAL sandboxes (local bubblewrap; Docker when its image is there)."""

from __future__ import annotations

import asyncio
import subprocess
import textwrap
from pathlib import Path

import pytest

from arena.observe import ProcessObserver, SandboxObservation
from arena.sandbox import Limits, get_backend

pytestmark = pytest.mark.skipif(__import__("os").geteuid() != 0, reason="observation needs root")


def _has_image() -> bool:
    try:
        out = subprocess.run(["docker", "images", "-q", "gauntlet-base"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(out.stdout.strip())


BACKENDS = [
    pytest.param("local", id="local"),
    pytest.param(
        "docker",
        id="docker",
        marks=[pytest.mark.docker, pytest.mark.skipif(not _has_image(), reason="gauntlet-base image not built")],
    ),
]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("A = 1\n")
    (ws / "src" / "b.py").write_text("B = 2\n")
    return ws


class Run:
    """One sandbox under observation, its events in order."""

    def __init__(self, backend: str, ws: Path, state: Path) -> None:
        self.backend, self.ws, self.events = backend, ws, []
        self.observation = SandboxObservation(state)

    async def __aenter__(self) -> "Run":
        self.observer = await ProcessObserver().start()
        assert self.observer.available and self.observer.reads_available, self.observer.notes
        self.sb = await get_backend(self.backend).create(self.ws, Limits(wall_s=60), mounts=self.observation.mounts())
        self._cm = self.observation.observe(
            self.sb, self.ws, lambda k, d: self.events.append((k, d)), observer=self.observer
        )
        await self._cm.__aenter__()
        return self

    async def exec(self, script: str, **kw):
        env = self.observation.merge_env({})
        return await self.sb.exec(["sh", "-c", script], env=env, **kw)

    async def settle(self) -> None:
        await self.observer.sync()

    def commands(self) -> list[dict]:
        return [d for k, d in self.events if k == "command.run"]

    def reads(self) -> list[str]:
        return [d["path"] for k, d in self.events if k == "file.read"]

    async def __aexit__(self, *exc) -> None:
        await self._cm.__aexit__(*exc)
        await self.sb.close()
        await self.observer.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_short_programs_with_argv_and_exit_codes(backend, workspace, tmp_path):
    async with Run(backend, workspace, tmp_path) as run:
        res = await run.exec("cat src/a.py; /bin/true; sleep 0.01; sh -c 'exit 3'; echo end")
        assert res.exit_code == 0 and b"A = 1" in res.stdout
        await run.settle()
        by_argv = {tuple(c["argv"]): c for c in run.commands()}
        assert by_argv[("cat", "src/a.py")]["exit_code"] == 0
        assert by_argv[("/bin/true",)]["exit_code"] == 0
        sleep = by_argv[("sleep", "0.01")]
        assert sleep["exit_code"] == 0 and 0.009 <= sleep["duration_s"] < 1.0
        assert by_argv[("sh", "-c", "exit 3")]["exit_code"] == 3
        outer = by_argv[("sh", "-c", "cat src/a.py; /bin/true; sleep 0.01; sh -c 'exit 3'; echo end")]
        assert outer["exit_code"] == 0 and outer["command"].startswith("sh -c 'cat src/a.py;")
        assert all(c["observed"] is True and c["ran_tests"] is False for c in run.commands())
        # nothing of the backend's own machinery (bwrap, setpriv, docker's exec wrapper)
        progs = {Path(c["argv"][0]).name for c in run.commands()}
        assert progs == {"sh", "cat", "true", "sleep"}, progs


@pytest.mark.parametrize("backend", BACKENDS)
async def test_killed_program_has_negative_signal(backend, workspace, tmp_path):
    async with Run(backend, workspace, tmp_path) as run:
        await run.exec("sh -c 'kill -9 $$'; exit 0")
        await run.settle()
        killed = [c for c in run.commands() if c["argv"] == ["sh", "-c", "kill -9 $$"]]
        assert [c["exit_code"] for c in killed] == [-9]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_sandbox_reads_are_observed_and_the_arenas_are_not(backend, workspace, tmp_path):
    async with Run(backend, workspace, tmp_path) as run:
        (workspace / "src" / "b.py").read_text()  # the arena's own read
        await run.exec("cat src/a.py; cat src/a.py >/dev/null; head -c1 src/a.py; echo x > new.txt")
        (workspace / "src" / "a.py").read_text()
        await run.settle()
        reads = run.reads()
        assert "src/b.py" not in reads and "new.txt" not in reads
        # one per reading process (cat, cat, head): repeats by one process are deduped
        assert reads.count("src/a.py") == 3, reads


@pytest.mark.parametrize("backend", BACKENDS)
async def test_output_lines_arrive_before_the_program_exits(backend, workspace, tmp_path):
    async with Run(backend, workspace, tmp_path) as run:
        lines: list[tuple[str, str]] = []
        first = asyncio.Event()

        def on_output(stream: str, line: str) -> None:
            lines.append((stream, line))
            first.set()

        task = asyncio.ensure_future(
            run.exec(
                "echo first; echo oops >&2; while [ ! -e /workspace/go ]; do sleep 0.02; done; echo second",
                on_output=on_output,
            )
        )
        await asyncio.wait_for(first.wait(), 30)
        await asyncio.sleep(0.1)  # real I/O: let stderr's line arrive too
        assert not task.done()
        assert ("stdout", "first") in lines and ("stderr", "oops") in lines
        (workspace / "go").write_text("")
        res = await asyncio.wait_for(task, 30)
        assert res.stdout == b"first\nsecond\n" and res.stderr == b"oops\n"
        assert lines.count(("stdout", "second")) == 1 and len(lines) == 3


@pytest.mark.parametrize("backend", BACKENDS)
async def test_pytest_run_is_recognised_with_its_counts(backend, workspace, tmp_path):
    (workspace / "test_x.py").write_text(
        textwrap.dedent("""
        def test_one(): assert 1
        def test_two(): assert 2
        def test_three(): assert 0
    """)
    )
    async with Run(backend, workspace, tmp_path) as run:
        res = await run.exec("python3 -m pytest -q -p no:cacheprovider test_x.py; python3 -c 'print(1)'")
        assert b"1 failed, 2 passed" in res.stdout, res.stdout
        await run.settle()
        runs = [c for c in run.commands() if c["ran_tests"]]
        assert len(runs) == 1
        assert (runs[0]["passed"], runs[0]["failed"], runs[0]["exit_code"]) == (2, 1, 1)
        assert runs[0]["command"] == "python3 -m pytest -q -p no:cacheprovider test_x.py"
        plain = [c for c in run.commands() if c["argv"] == ["python3", "-c", "print(1)"]]
        assert plain and plain[0]["passed"] is None


async def test_a_sandbox_it_cannot_tell_apart_gives_one_note_not_a_crash(workspace):
    class Opaque:  # no observe_target: e.g. a backend that does not support observation
        id = "opaque"

    obs = await ProcessObserver().start()
    try:
        events: list = []
        observation = SandboxObservation()
        notes: list[str] = []
        observation.on_note = notes.append
        async with observation.observe(Opaque(), workspace, lambda k, d: events.append(k), observer=obs):
            pass
        assert events == [] and len(notes) == 1 and "unavailable" in notes[0]
    finally:
        await obs.close()
