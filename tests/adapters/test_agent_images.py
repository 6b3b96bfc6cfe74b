"""The Docker agent images: gauntlet-base + the agent tree, cached by label; with no
network, as the sandbox user, the agent's CLI starts and its package imports."""
from __future__ import annotations

import pytest

from arena.adapters import build_agent_image, get_adapter
from arena.adapters.build import AGENT_LABEL, image_label

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


@pytest.mark.parametrize("name,expect", [("mini-swe-agent", "mini-swe-agent 2.4.6"),
                                         ("aider", "aider 0.86.2")])
def test_image_runs_the_agent_offline(client, name, expect):
    ad = get_adapter(name)
    ref = build_agent_image(name, log=lambda _m: None)
    img = client.images.get(ref)
    assert img.labels[AGENT_LABEL] == image_label(name)
    assert build_agent_image(name, log=lambda _m: None) == ref  # cached: same image
    assert client.images.get(ref).id == img.id
    env = ad.env("openai/x")
    script = (f"{ad.root}/bin/{ad.cli} --version && "
              f"python3 -s -c 'import sys; sys.path.insert(0, \"{ad.root}/lib\"); "
              f"import {ad.import_name}, litellm; print(\"imported\", {ad.import_name}.__file__)'")
    out = client.containers.run(ref, ["sh", "-c", script], network_mode="none", user="1000:1000",
                                environment=env, remove=True, read_only=True,
                                tmpfs={"/tmp": "size=64m"}, stdout=True, stderr=True)
    text = out.decode()
    assert expect in text, text
    assert f"imported {ad.root}/lib/{ad.import_name}/__init__.py" in text, text
