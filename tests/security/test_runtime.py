"""gVisor where installed (issue 11 item 9): ``sandbox.runtime`` (manifest) / ``Limits.runtime``
/ ``GAUNTLET_DOCKER_RUNTIME`` run Docker sandboxes under another OCI runtime. An unknown
runtime is a clear SandboxError naming it and the registered ones, and leaves nothing;
with ``runsc`` registered (daemon.json here), a sandbox really runs under gVisor."""

from __future__ import annotations

import pytest

from arena.sandbox import Limits, SandboxError, get_backend
from arena.sandbox import registry
from arena.sandbox.image import SANDBOX_UID


@pytest.mark.docker
async def test_unknown_runtime_is_a_clear_error(tmp_path):
    be = get_backend("docker")
    before = set(registry.live_ids())
    with pytest.raises(SandboxError, match=r"runtime 'no-such-rt' is not registered.*runc"):
        await be.create(tmp_path, Limits(runtime="no-such-rt"))
    assert set(registry.live_ids()) == before


async def test_runtime_on_local_backend_is_a_clear_error(tmp_path):
    with pytest.raises(SandboxError, match="needs the docker backend"):
        await get_backend("local").create(tmp_path, Limits(runtime="runsc"))


def test_manifest_runtime_key_is_validated():
    from pydantic import ValidationError

    from arena.challenge.models import Sandbox

    assert Sandbox(runtime="runsc").runtime == "runsc" and Sandbox().runtime is None
    with pytest.raises(ValidationError):
        Sandbox(runtime="run sc; rm")


@pytest.mark.docker
async def test_runsc_sandbox_runs_under_gvisor(tmp_path):
    be = get_backend("docker")
    if "runsc" not in (be.client.info().get("Runtimes") or {}):
        pytest.skip("runsc is not registered with this Docker engine")
    sb = await be.create(tmp_path, Limits(runtime="runsc", wall_s=60))
    try:
        r = await sb.exec(["sh", "-c", "dmesg 2>/dev/null | head -1; uname -r; id -u; echo hi > /workspace/x"])
    finally:
        await sb.close()
    out = r.stdout.decode()
    assert r.exit_code == 0, r.stderr
    assert "gVisor" in out or out.splitlines()[-2] == "4.4.0"  # gVisor's kernel, not the host's
    assert out.splitlines()[-1] == str(SANDBOX_UID) and (tmp_path / "x").read_text() == "hi\n"
