"""The Docker agent images: gauntlet-base + the agent tree, cached by label; with no
network, as the sandbox user, the agent's CLI starts and its package imports."""

from __future__ import annotations

import pytest

from arena.adapters import build_agent_image, get_adapter
from arena.adapters.build import AGENT_LABEL, image_label
from arena.sandbox.image import SANDBOX_UID

pytestmark = [pytest.mark.docker, pytest.mark.slow]
docker = pytest.importorskip("docker")


@pytest.fixture(scope="module")
def client():
    try:
        c = docker.from_env(timeout=600)
        c.ping()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"no Docker engine: {exc}")
    return c


@pytest.mark.parametrize("name,expect", [("mini-swe-agent", "mini-swe-agent 2.4.6"), ("aider", "aider 0.86.2")])
def test_image_runs_the_agent_offline(client, name, expect):
    ad = get_adapter(name)
    ref = build_agent_image(name, log=lambda _m: None)
    img = client.images.get(ref)
    assert img.labels[AGENT_LABEL] == image_label(name)
    assert build_agent_image(name, log=lambda _m: None) == ref  # cached: same image
    assert client.images.get(ref).id == img.id
    env = ad.env("openai/x")
    script = (
        f"{ad.root}/bin/{ad.cli} --version && "
        f'python3 -s -c \'import sys; sys.path.insert(0, "{ad.root}/lib"); '
        f'import {ad.import_name}, litellm; print("imported", {ad.import_name}.__file__)\''
    )
    out = client.containers.run(
        ref,
        ["sh", "-c", script],
        network_mode="none",
        user=f"{SANDBOX_UID}:{SANDBOX_UID}",
        environment=env,
        remove=True,
        read_only=True,
        tmpfs={"/tmp": "size=64m"},
        stdout=True,
        stderr=True,
    )
    text = out.decode()
    assert expect in text, text
    assert f"imported {ad.root}/lib/{ad.import_name}/__init__.py" in text, text


@pytest.mark.parametrize("name", ["codex", "claude-code", "mini-swe-agent", "aider"])
def test_login_shells_find_the_attempt_tool(client, tmp_path, name):
    """Codex's exec_command and Claude Code's Bash tool run login shells, and Debian's
    /etc/profile sets PATH afresh: the image puts /gauntlet/bin back (profile.d) and links
    gauntlet-agent from /usr/local/bin, so every shell finds the attempt's tool."""
    tool = tmp_path / "bin" / "gauntlet-agent"
    tool.parent.mkdir()
    tool.write_text('#!/bin/sh\necho TOOL-RAN "$@"\n')
    tool.chmod(0o755)
    tmp_path.chmod(0o755)
    ref = build_agent_image(name, log=lambda _m: None)
    script = (
        'bash -lc "gauntlet-agent a; echo \\$PATH"; sh -lc "gauntlet-agent b"; '
        'env -i /bin/sh -c "PATH=/usr/local/bin:/usr/bin:/bin gauntlet-agent c"'
    )
    out = client.containers.run(
        ref,
        ["sh", "-c", script],
        network_mode="none",
        user=f"{SANDBOX_UID}:{SANDBOX_UID}",
        environment={"PATH": "/gauntlet/bin:/usr/local/bin:/usr/bin:/bin"},
        volumes={str(tmp_path): {"bind": "/gauntlet", "mode": "ro"}},
        remove=True,
        read_only=True,
        tmpfs={"/tmp": "size=16m"},
        stdout=True,
        stderr=True,
    ).decode()
    lines = out.splitlines()
    assert lines[0] == "TOOL-RAN a" and lines[1].startswith("/gauntlet/bin:"), out
    assert lines[2:] == ["TOOL-RAN b", "TOOL-RAN c"], out
