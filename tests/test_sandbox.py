"""The sandbox protocol on both backends: exec, env, python, copy in/out, mounts, pools."""

from __future__ import annotations

import asyncio
import os

import pytest

from arena.sandbox import Mount, SandboxError, get_backend
from sandbox_common import SMALL, backend, sandbox, ws  # noqa: F401 — fixtures


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(SandboxError, match="unknown sandbox backend 'podman'.*docker, local"):
        get_backend("podman")


@pytest.mark.docker
def test_default_backend_is_docker_when_the_engine_answers():
    assert get_backend(None).name == "docker"


async def test_exec_runs_as_unprivileged_user_with_python_and_pytest(sandbox):
    r = await sandbox.exec(["sh", "-c", "id -u; python -m pytest --version; pwd"])
    assert r.exit_code == 0, r.stderr
    uid, *rest = r.stdout.decode().split("\n")
    assert int(uid) != 0
    assert "/workspace" in r.stdout.decode()
    assert b"pytest" in r.stdout + r.stderr


async def test_exit_code_stdout_stderr_and_stdin(sandbox):
    r = await sandbox.exec(["sh", "-c", "cat; echo err >&2; exit 7"], stdin=b"in-data")
    assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (7, b"in-data", b"err\n", False)


async def test_environment_is_cleared_and_env_is_passed(sandbox, monkeypatch):
    monkeypatch.setenv("GAUNTLET_HOST_SECRET", "s3cret")
    r = await sandbox.exec(["sh", "-c", "env"], env={"GIVEN": "yes"})
    assert b"GIVEN=yes" in r.stdout
    assert b"s3cret" not in r.stdout
    assert b"PATH=" in r.stdout


async def test_workspace_is_shared_with_the_host(sandbox, ws):
    (ws / "in.txt").write_text("from host")
    r = await sandbox.exec(["sh", "-c", "cat in.txt; echo from-sandbox > out.txt"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout == b"from host"
    assert (ws / "out.txt").read_text() == "from-sandbox\n"


async def test_copy_in_and_out(sandbox, tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "a.py").write_text("A = 1\n")
    await sandbox.copy_in(src, "/workspace/copied")
    r = await sandbox.exec(["python", "-c", "import sys; sys.path.insert(0, 'copied');import pkg.a; print(pkg.a.A)"])
    assert r.stdout.strip() == b"1", r.stderr
    await sandbox.exec(["sh", "-c", "mkdir -p out && echo hi > out/r.xml"])
    await sandbox.copy_out("/workspace/out", tmp_path / "got")
    assert (tmp_path / "got" / "r.xml").read_text() == "hi\n"


async def test_copy_out_never_follows_links(sandbox, tmp_path):
    secret = tmp_path / "host-secret"
    secret.write_text("host only")
    r = await sandbox.exec(["sh", "-c", f"ln -s {secret} report.xml && ln -s / up"])
    assert r.exit_code == 0, r.stderr
    await sandbox.copy_out("/workspace/report.xml", tmp_path / "report.xml")
    got = tmp_path / "report.xml"
    assert got.is_symlink()  # the link itself, never the host file it names
    with pytest.raises(SandboxError, match="without following a link"):
        await sandbox.copy_out(f"/workspace/up{secret}", tmp_path / "x")
    with pytest.raises(SandboxError):
        await sandbox.copy_out("/etc/passwd", tmp_path / "y")


async def test_readonly_workspace_and_mounts(backend, ws, tmp_path):
    tests = tmp_path / "judge-tests"
    tests.mkdir()
    (tests / "test_x.py").write_text("def test_x(): pass\n")
    os.chmod(tests, 0o755)
    (ws / "sol.py").write_text("X = 1\n")
    sb = await backend.create(ws, SMALL, mounts=[Mount(tests, "/judge/tests")], workspace_readonly=True)
    try:
        r = await sb.exec(["sh", "-c", "cat /judge/tests/test_x.py && cat sol.py"])
        assert r.exit_code == 0, r.stderr
        for target in ("/judge/tests/test_x.py", "/workspace/sol.py", "/workspace/new"):
            w = await sb.exec(["sh", "-c", f"echo hacked > {target}"])
            assert w.exit_code != 0, target
        assert (tests / "test_x.py").read_text() == "def test_x(): pass\n"
        assert (ws / "sol.py").read_text() == "X = 1\n"
    finally:
        await sb.close()


async def test_missing_workspace_or_mount_is_a_sandbox_error(backend, tmp_path):
    with pytest.raises(SandboxError, match="is not a directory"):
        await backend.create(tmp_path / "nope", SMALL)
    with pytest.raises(SandboxError, match="does not exist"):
        await backend.create(tmp_path, SMALL, mounts=[Mount(tmp_path / "gone", "/x")])


async def test_closed_sandbox_refuses_exec(backend, ws):
    sb = await backend.create(ws, SMALL)
    assert await sb.alive()
    await sb.close()
    assert not await sb.alive()
    with pytest.raises(SandboxError, match="closed"):
        await sb.exec(["true"])


async def test_pool_hands_out_fresh_sandboxes_never_reused(backend, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d, name in ((a, "A"), (b, "B")):
        d.mkdir()
        (d / "who.txt").write_text(name)
    pool = backend.pool(SMALL, size=2, scratch="/judge-out")
    await pool.start()
    try:
        s1 = await pool.acquire(a)
        s2 = await pool.acquire(b)
        s3 = await pool.acquire(a)  # pool empty or refilling: still a fresh one
        try:
            assert len({id(s1), id(s2), id(s3)}) == 3
            assert len({s.scratch_dir for s in (s1, s2, s3)}) == 3
            r1 = await s1.exec(["sh", "-c", "cat who.txt; echo x > /tmp/mark; echo r1 > /judge-out/report.xml"])
            r2 = await s2.exec(["sh", "-c", "cat who.txt; ls -A /tmp; ls -A /judge-out"])
            r3 = await s3.exec(["sh", "-c", "cat who.txt; ls -A /tmp; ls -A /judge-out; echo hi > x"])
            assert (r1.stdout, r2.stdout, r3.stdout) == (b"A", b"B", b"A"), r3.stderr
            assert r3.exit_code != 0  # the workspace copy is read-only
            assert (s1.scratch_dir / "report.xml").read_text() == "r1\n"
        finally:
            for s in (s1, s2, s3):
                await s.close()
        assert not s1.scratch_dir.exists()
    finally:
        await pool.close()


async def test_python_resolves_and_runs_pytest_with_junit(sandbox, ws, tmp_path):
    (ws / "test_m.py").write_text("def test_ok(): pass\ndef test_bad(): assert 0\n")
    r = await sandbox.exec(
        ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=/workspace/report.xml"]
    )
    assert r.exit_code == 1, r.stdout + r.stderr
    await sandbox.copy_out("/workspace/report.xml", tmp_path / "r.xml")
    xml = (tmp_path / "r.xml").read_text()
    assert 'tests="2"' in xml and 'failures="1"' in xml


async def test_sandboxed_code_cannot_fake_an_infrastructure_error(sandbox):
    r = await sandbox.exec(["sh", "-c", "echo 'bwrap: Cannot mount' >&2; echo 'OCI runtime exec failed' >&2; exit 126"])
    assert r.exit_code == 126  # an ordinary result, never a SandboxError


async def test_a_missing_cwd_is_a_sandbox_error(sandbox):
    with pytest.raises(SandboxError):
        await sandbox.exec(["true"], cwd="/no/such/dir")


async def test_local_setup_failure_is_a_sandbox_error(ws, tmp_path):
    src = tmp_path / "gone-later"
    src.mkdir()
    sb = await get_backend("local").create(ws, SMALL, mounts=[Mount(src, "/judge")])
    try:
        src.rmdir()
        with pytest.raises(SandboxError, match="bubblewrap failed"):
            await sb.exec(["true"])
    finally:
        await sb.close()


async def test_a_sandbox_that_dies_is_an_infrastructure_error(backend, ws):
    sb = await backend.create(ws, SMALL)
    try:
        if backend.name == "docker":  # the engine loses the container
            await asyncio.to_thread(sb.container.remove, force=True)
        else:  # its state is torn away (e.g. an over-eager cleanup)
            await asyncio.to_thread(sb._close_sync)
            sb.closed = False
        assert not await sb.alive()
        with pytest.raises(SandboxError):
            await sb.exec(["true"])
    finally:
        await sb.close()


def test_unavailable_backends_are_clear_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")  # fault: no engine
    with pytest.raises(SandboxError, match="docker sandbox unavailable: the engine does not"):
        get_backend("docker")
    assert get_backend(None).name == "local"  # the default falls back to local
    from arena.sandbox import local_backend

    monkeypatch.setattr(local_backend.shutil, "which", lambda name: None)  # fault: no bwrap
    with pytest.raises(SandboxError, match="needs bubblewrap"):
        get_backend("local")
