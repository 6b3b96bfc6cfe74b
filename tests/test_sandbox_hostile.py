"""Hostile code against both backends: each case asserts the safe outcome.

Everything hostile here runs only inside a sandbox created with the small limits of
``sandbox_common.SMALL`` (128 MB, 64 pids, 16 MB /tmp, 8 MB files, 64 KB output).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import threading

from sandbox_common import SMALL, backend, host_procs_with, sandbox, script, ws  # noqa: F401


async def test_fork_bomb_is_contained_by_the_pids_limit(sandbox, ws):
    tok = secrets.token_hex(6)
    argv = script(
        ws,
        "bomb.py",
        f"""
        import os, sys, time
        n = 0
        try:
            while True:
                if os.fork() == 0:
                    time.sleep(60)  # {tok}
                    os._exit(0)
                n += 1
        except OSError as e:
            print("blocked", n, e.errno, flush=True)
        """,
    )
    r = await sandbox.exec(argv + [tok], timeout=30)
    assert b"blocked" in r.stdout, (r.stdout, r.stderr)
    n = int(r.stdout.split()[1])
    assert n < SMALL.pids
    assert host_procs_with(tok) == []  # the children died with the command


async def test_memory_bomb_is_killed(sandbox, ws):
    argv = script(
        ws,
        "mem.py",
        """
        chunks = []
        for i in range(2048):
            chunks.append(bytearray(1 << 20))  # 2 GB in 1 MB steps, touched
        print("survived", flush=True)
        """,
    )
    r = await sandbox.exec(argv, timeout=30)
    assert not r.timed_out
    assert r.exit_code != 0
    assert b"survived" not in r.stdout


async def test_infinite_loop_times_out(sandbox, ws):
    argv = script(ws, "loop.py", "while True:\n    pass\n")
    r = await sandbox.exec(argv, timeout=1.0)
    assert r.timed_out and r.exit_code is None
    assert r.duration_s < 10
    r2 = await sandbox.exec(["true"])  # the sandbox is still usable
    assert r2.exit_code == 0


async def test_endless_output_is_capped(sandbox):
    r = await sandbox.exec(["sh", "-c", "yes gauntlet"], timeout=20)
    assert r.truncated
    assert len(r.stdout) == SMALL.output_bytes
    assert not r.timed_out  # killed for flooding, well before the timeout


async def test_huge_file_is_stopped_by_the_file_size_limit(sandbox, ws):
    argv = script(
        ws,
        "huge.py",
        """
        import errno
        try:
            with open("/workspace/huge.bin", "wb") as f:
                for _ in range(64):
                    f.write(b"x" * (1 << 20))
            print("wrote all")
        except OSError as e:
            print("stopped", errno.errorcode[e.errno])
        """,
    )
    r = await sandbox.exec(argv, timeout=30)
    assert b"stopped EFBIG" in r.stdout, (r.stdout, r.stderr)
    assert (ws / "huge.bin").stat().st_size <= SMALL.file_mb << 20


async def test_disk_fill_of_tmp_is_stopped_by_the_tmpfs_size(sandbox, ws):
    argv = script(
        ws,
        "fill.py",
        """
        import errno
        total = 0
        try:
            for i in range(1000):
                with open(f"/tmp/fill{i}", "wb") as f:
                    f.write(b"x" * (1 << 20))
                total += 1
            print("filled", total)
        except OSError as e:
            print("stopped", errno.errorcode[e.errno], total)
        """,
    )
    r = await sandbox.exec(argv, timeout=30)
    assert b"stopped ENOSPC" in r.stdout, (r.stdout, r.stderr)
    assert int(r.stdout.split()[-1]) <= SMALL.tmpfs_mb


async def test_many_files_are_bounded(sandbox, ws):
    argv = script(
        ws,
        "many.py",
        """
        import errno
        n = 0
        try:
            for n in range(200000):
                open(f"/tmp/f{n}", "w").close()
                with open(f"/tmp/f{n}", "w") as f:
                    f.write("x")
            print("made", n)
        except OSError as e:
            print("stopped", errno.errorcode[e.errno], n)
        """,
    )
    r = await sandbox.exec(argv, timeout=60)
    assert b"stopped ENOSPC" in r.stdout, (r.stdout, r.stderr)
    ok = await sandbox.exec(["true"])
    assert ok.exit_code == 0


async def test_network_egress_is_refused(sandbox, ws):
    # A server on the host's loopback: the sandbox must not reach it.
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    srv.settimeout(0.2)
    port = srv.getsockname()[1]
    accepted = []

    def accept():
        try:
            accepted.append(srv.accept())
        except OSError:
            pass

    t = threading.Thread(target=accept)
    t.start()
    argv = script(
        ws,
        "net.py",
        f"""
        import socket
        for host, port in (("1.1.1.1", 53), ("127.0.0.1", {port}), ("8.8.8.8", 443)):
            try:
                socket.create_connection((host, port), timeout=2).close()
                print("CONNECTED", host)
            except OSError as e:
                print("refused", host, type(e).__name__)
        try:
            print("RESOLVED", socket.gethostbyname("example.com"))
        except OSError as e:
            print("dns-failed", type(e).__name__)
        """,
    )
    r = await sandbox.exec(argv, timeout=30)
    t.join()
    srv.close()
    out = r.stdout.decode()
    assert "CONNECTED" not in out and "RESOLVED" not in out, out
    assert out.count("refused") == 3 and "dns-failed" in out, (out, r.stderr)
    assert accepted == []


async def test_etc_shadow_and_judge_side_paths_are_unreadable(sandbox, ws):
    argv = script(
        ws,
        "peek.py",
        """
        import os
        for p in ("/etc/shadow", "/root/.bashrc", "/work/main/pyproject.toml",
                  "/var/run/docker.sock"):
            try:
                open(p, "rb").read(1)
                print("READ", p)
            except OSError as e:
                print("denied", p, type(e).__name__)
        print("work-visible" if os.path.exists("/work") else "no-work")
        """,
    )
    r = await sandbox.exec(argv)
    out = r.stdout.decode()
    assert "READ" not in out, out
    assert out.count("denied") == 4 and "no-work" in out, (out, r.stderr)


async def test_writing_outside_the_workspace_fails(sandbox, ws):
    argv = script(
        ws,
        "write.py",
        """
        for p in ("/usr/evil", "/etc/evil", "/evil", "/bin/evil", "/proc/evil",
                  "/home/evil", "/root/evil"):
            try:
                open(p, "w").write("x")
                print("WROTE", p)
            except OSError:
                print("denied", p)
        """,
    )
    r = await sandbox.exec(argv)
    out = r.stdout.decode()
    assert "WROTE" not in out and out.count("denied") == 7, (out, r.stderr)
    assert not os.path.exists("/usr/evil") and not os.path.exists("/etc/evil")


async def test_killing_the_judge_process_fails(sandbox, ws):
    sentinel = subprocess.Popen(["sleep", "60"])  # a host process the sandbox must not reach
    try:
        argv = script(
            ws,
            "killer.py",
            f"""
            import os, signal
            for pid in ({os.getpid()}, {sentinel.pid}, os.getppid(), 1):
                try:
                    os.kill(pid, signal.SIGKILL)
                    print("sent", pid)
                except OSError as e:
                    print("refused", pid, type(e).__name__)
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
            """,
        )
        r = await sandbox.exec(argv)
        assert sentinel.poll() is None  # still running
        assert b"refused %d" % sentinel.pid in r.stdout or b"sent" not in r.stdout
    finally:
        sentinel.kill()
        sentinel.wait()


async def test_process_left_running_is_killed(backend, ws):
    tok = secrets.token_hex(6)
    sb = await backend.create(ws, SMALL)
    try:
        r = await sb.exec(["sh", "-c", f"(exec -a sleeper-{tok} sleep 300) & echo started"])
        assert r.stdout == b"started\n"
        assert host_procs_with(f"sleeper-{tok}") == []  # gone when its command ended
    finally:
        await sb.close()
    assert host_procs_with(f"sleeper-{tok}") == []


async def test_stopped_child_is_killed(backend, ws):
    tok = secrets.token_hex(6)
    argv = script(
        ws,
        "stop.py",
        f"""
        import os, signal, time
        if os.fork() == 0:
            os.setsid()
            os.kill(os.getpid(), signal.SIGSTOP)
            time.sleep(300)  # {tok}
            os._exit(0)
        time.sleep(0.2)
        print("parent done")
        """,
    )
    sb = await backend.create(ws, SMALL)
    try:
        r = await sb.exec(argv + [tok])
        assert r.stdout == b"parent done\n", r.stderr
        assert host_procs_with(tok) == []
    finally:
        await sb.close()
    assert host_procs_with(tok) == []


async def test_tmp_is_not_carried_to_the_next_sandbox(backend, ws):
    first = await backend.create(ws, SMALL)
    try:
        r = await first.exec(["sh", "-c", "echo secret > /tmp/leak && cat /tmp/leak"])
        assert r.stdout == b"secret\n"
    finally:
        await first.close()
    second = await backend.create(ws, SMALL)
    try:
        r = await second.exec(["sh", "-c", "ls -A /tmp"])
        assert r.exit_code == 0 and r.stdout == b""
    finally:
        await second.close()


async def test_signals_from_the_host_side_cancel_cleanly(backend, ws):
    """A timed-out exec whose command ignores SIGTERM still dies (SIGKILL, tree-wide)."""
    tok = secrets.token_hex(6)
    argv = script(
        ws,
        "stubborn.py",
        f"""
        import signal, time, os
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.fork()
        time.sleep(300)  # {tok}
        """,
    )
    sb = await backend.create(ws, SMALL)
    try:
        r = await sb.exec(argv + [tok], timeout=1)
        assert r.timed_out
        assert host_procs_with(tok) == []
    finally:
        await sb.close()
