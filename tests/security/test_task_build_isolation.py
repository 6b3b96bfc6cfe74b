"""Issue 36 (6): an imported task's image build is isolated. Every step runs with
``--network none`` except a ``RUN --network=default`` the Dockerfile declares (and the
import names it to the operator); the manifest values pasted into the gauntlet layer are
refused unless plain (exit 2 naming the key); the build context is capped before anything
is sent; a failed build leaves no container (``--force-rm``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import uuid

import pytest
import yaml

from arena.pipeline.task_image import MAX_CONTEXT_BYTES, build, check_context, network_steps
from arena.pipeline.task_import import ImportError_, import_task
from tests.task_import.fixtures import harbor_python, tb_shell

GAUNTLET = [sys.executable, "-m", "gauntlet_tui"]

# run in the build: connect to every address given and to the default route's gateway (the
# Docker host on the bridge), send the step's name; never fail the step
PROBE = r"""
import socket, sys
port, name, addrs = int(sys.argv[1]), sys.argv[2], [a for a in sys.argv[3:] if a.count(".") == 3]
for line in open("/proc/net/route").read().splitlines()[1:]:
    f = line.split()
    if f[1] == "00000000":
        addrs.append(socket.inet_ntoa(int(f[2], 16).to_bytes(4, "little")))
for a in addrs:
    try:
        with socket.create_connection((a, port), timeout=3) as s:
            s.sendall(name.encode())
        print(name, "reached", a)
    except OSError as e:
        print(name, "blocked", a, e)
"""


def _host_addresses() -> list[str]:
    out = {"172.17.0.1"}  # Docker's default bridge gateway
    r = subprocess.run(["hostname", "-I"], capture_output=True, text=True)
    out.update(a for a in r.stdout.split() if ":" not in a)
    return sorted(out)


class Listener:
    """A TCP listener on every host address: the names the build's steps sent."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.got: list[str] = []
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            with c:
                c.settimeout(2)
                try:
                    self.got.append(c.recv(100).decode())
                except OSError:
                    self.got.append("?")

    def close(self) -> None:
        self.stop = True
        self.thread.join(5)
        self.sock.close()


def _rmi(*tags: str) -> None:
    subprocess.run(["docker", "rmi", "-f", *tags], capture_output=True, timeout=120)


def _temp_images() -> set[str]:
    r = subprocess.run(
        ["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"], capture_output=True, text=True, timeout=60
    )
    return {x for x in r.stdout.split() if x.startswith("gauntlet-build-")}


@pytest.mark.docker
def test_only_a_declared_step_reaches_the_network(tmp_path):
    listener = Listener()
    src = harbor_python(tmp_path / "net-task")
    # the declared step first: two segments (the declared step on the bridge; the undeclared one and
    # the gauntlet layer with --network none), as few steps as this slow builder allows
    probe = ["python3", "-c", PROBE, str(listener.port)]
    (src / "environment" / "Dockerfile").write_text(
        "FROM gauntlet-base\n"
        f"RUN --network=default {json.dumps([*probe, 'declared', *_host_addresses(), uuid.uuid4().hex])}\n"
        f"RUN {json.dumps([*probe, 'undeclared', *_host_addresses(), uuid.uuid4().hex])}\n"
    )
    before = _temp_images()
    summary = None
    try:
        r = subprocess.run(
            [*GAUNTLET, "challenge", "import", str(src), "--out", str(tmp_path / "pkg"), "--json"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        summary = json.loads(r.stdout)
        assert summary["built"] is True
    finally:
        listener.close()
        if summary:
            _rmi(summary["image"])
    assert "undeclared" not in listener.got  # --network none: neither the Docker host nor any address
    assert "declared" in listener.got  # the control: the probe reaches the host when the step may
    # the operator is told which step ran on the network, by line
    (step,) = summary["network_steps"]
    assert step.startswith('environment/Dockerfile line 2: RUN --network=default ["python3", "-c", "\\nimport')
    assert "runs with network access" in step and step in summary["notes"]
    assert _temp_images() <= before  # the segments' images are gone


@pytest.mark.docker
def test_a_network_other_than_default_or_none_is_refused(tmp_path):
    df = tmp_path / "Dockerfile"
    df.write_text("FROM gauntlet-base\nRUN --network=none true\nRUN --network=host true\n")
    with pytest.raises(ImportError_) as e:
        network_steps(df)
    assert str(e.value).startswith(
        "environment/Dockerfile line 3: RUN --network=host true: --network=host: not granted"
    )
    df.write_text("FROM gauntlet-base AS a\nFROM gauntlet-base\nRUN --network=default true\n")
    pkg = tmp_path / "pkg"
    import_task(harbor_python(tmp_path / "t"), pkg)
    (pkg / "environment" / "Dockerfile").write_text(df.read_text())
    with pytest.raises(ImportError_) as e:
        build(pkg)
    assert "line 3: RUN --network=default true: a step that needs the network in a multi-stage Dockerfile" in str(
        e.value
    )


HOSTILE_WORKDIRS = ["/app; touch /tmp/pwned #", "/app $(id)", "/a\nRUN id", "/app/../etc", "app", "/", '/a"b']


@pytest.mark.parametrize("workdir", HOSTILE_WORKDIRS, ids=range(len(HOSTILE_WORKDIRS)))
def test_a_workdir_with_shell_characters_is_refused_at_import(tmp_path, workdir):
    src = harbor_python(tmp_path / "t")
    toml = (src / "task.toml").read_text()
    (src / "task.toml").write_text(toml.replace("[environment]\n", f"[environment]\nworkdir = {json.dumps(workdir)}\n"))
    with pytest.raises(ImportError_) as e:
        import_task(src, tmp_path / "pkg")
    assert str(e.value).startswith("task.toml: key 'environment.workdir'"), e.value
    assert "expected an absolute path" in str(e.value)


def test_the_cli_refuses_a_hostile_workdir_with_exit_2(tmp_path):
    src = tb_shell(tmp_path / "t")  # Terminal-Bench: the workdir is the Dockerfile's WORKDIR
    (src / "Dockerfile").write_text("FROM gauntlet-base\nWORKDIR /app;touch${IFS}/tmp/x\n")
    r = subprocess.run(
        [*GAUNTLET, "challenge", "import", str(src), "--out", str(tmp_path / "pkg"), "--no-build"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Dockerfile: WORKDIR '/app;touch${IFS}/tmp/x': expected an absolute path" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("x-import.workdir", "/app; touch /tmp/pwned"),
        ("x-import.workdir", "/app\nRUN id"),
        ("sandbox.image", "gauntlet-task-x:1\nRUN id"),
        ("sandbox.image", "Bad Tag"),
    ],
)
def test_an_edited_manifest_value_is_refused_before_any_build(tmp_path, key, value):
    pkg = tmp_path / "pkg"
    import_task(harbor_python(tmp_path / "t"), pkg)
    m = yaml.safe_load((pkg / "challenge.yaml").read_text())
    top, sub = key.split(".")
    m[top][sub] = value
    (pkg / "challenge.yaml").write_text(yaml.safe_dump(m))
    with pytest.raises(ImportError_) as e:
        build(pkg)
    assert str(e.value).startswith(f"challenge.yaml: key '{key}': {value!r}: expected")


@pytest.mark.docker
def test_an_oversized_build_context_is_refused_before_it_is_sent(tmp_path):
    pkg = tmp_path / "pkg"
    import_task(harbor_python(tmp_path / "t"), pkg)
    with open(pkg / "environment" / "big.bin", "wb") as f:  # sparse: no disk used, the size Docker would send
        f.truncate(MAX_CONTEXT_BYTES + 1)
    tag = yaml.safe_load((pkg / "challenge.yaml").read_text())["sandbox"]["image"]
    try:
        with pytest.raises(ImportError_) as e:
            build(pkg)
    finally:
        _rmi(tag)
    assert str(e.value) == (
        "environment/: the build context is over the cap (256 MB, 20000 entries): expected a smaller task"
        " environment (large data belongs outside the image)"
    )
    os.unlink(pkg / "environment" / "big.bin")
    for n in range(10):  # the entries' cap (20000 by default) counts files, directories and links
        (pkg / "environment" / f"f{n}").touch()
    with pytest.raises(ImportError_, match=r"the build context is over the cap \(256 MB, 8 entries\)"):
        check_context(pkg / "environment", max_files=8)


@pytest.mark.docker
def test_a_failed_build_leaves_no_container(tmp_path):
    label = f"gauntlet.test-run={uuid.uuid4().hex}"
    pkg = tmp_path / "pkg"
    import_task(harbor_python(tmp_path / "t"), pkg)
    (pkg / "environment" / "Dockerfile").write_text(f"FROM gauntlet-base\nLABEL {label}\nRUN echo failing; exit 3\n")
    try:
        with pytest.raises(ImportError_) as e:
            build(pkg)
        assert "environment/Dockerfile: docker build failed" in str(e.value) and "3" in str(e.value)
        left = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label={label}"], capture_output=True, text=True, timeout=60
        )
        assert left.returncode == 0 and left.stdout.split() == []
    finally:
        ids = subprocess.run(["docker", "ps", "-aq", "--filter", f"label={label}"], capture_output=True, text=True)
        if ids.stdout.split():
            subprocess.run(["docker", "rm", "-f", *ids.stdout.split()], capture_output=True, timeout=60)
