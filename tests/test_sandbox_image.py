"""The gauntlet-base image: recipe-labelled, built once, clear errors for missing images."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from arena.sandbox import Limits, SandboxError, get_backend
from arena.sandbox import image as img
from arena.sandbox.image import SANDBOX_UID


def test_recipe_hash_is_stable_and_tracks_the_recipe():
    h = img.recipe_hash()
    assert h == img.recipe_hash() and len(h) == 64
    changed = dict(img.RECIPE, include=img.RECIPE["include"] + ["git"])
    assert img.recipe_hash(changed) != h


def test_missing_debootstrap_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(img.shutil, "which", lambda name: None)  # fault: tool not installed
    with pytest.raises(SandboxError, match="debootstrap is not installed"):
        img.build_rootfs(img.RECIPE, tmp_path / "rootfs.tar", log=lambda m: None)


@pytest.mark.docker
def test_build_does_nothing_when_the_recipe_image_exists():
    r = img.build_image(log=lambda m: None)  # CI builds it first; here it must be a no-op
    again = img.build_image(log=lambda m: None)
    assert again.built is False and again.image_id == r.image_id
    be = get_backend("docker")
    labels = be.client.images.get("gauntlet-base:latest").labels
    assert labels[img.RECIPE_LABEL] == img.recipe_hash()


@pytest.mark.docker
def test_image_has_python_pytest_coverage_and_a_non_root_user():
    be = get_backend("docker")
    out = be.client.containers.run(
        "gauntlet-base:latest",
        ["sh", "-c", "id -u; python -c 'import pytest, coverage; print(pytest.__version__)'"],
        remove=True,
        network_mode="none",
    )
    uid, version = out.decode().split()
    assert uid == str(SANDBOX_UID) and version.startswith("7.")


@pytest.mark.docker
async def test_manifest_image_neither_present_nor_buildable_is_named(tmp_path):
    be = get_backend("docker")
    with pytest.raises(SandboxError, match="sandbox.image 'no-such-image-xyz' is not present"):
        await be.create(tmp_path, Limits(), image="no-such-image-xyz")


@pytest.mark.docker
def test_cli_check_and_build():
    r = subprocess.run(["gauntlet", "sandbox", "check", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["docker"]["available"] and doc["local"]["available"]
    assert doc["default"] == "docker"
    b = subprocess.run(["gauntlet", "sandbox", "build"], capture_output=True, text=True)
    assert b.returncode == 0 and "up to date" in b.stdout, b.stderr


async def test_local_backend_ignores_the_image(tmp_path):
    be = get_backend("local")
    sb = await be.create(tmp_path, Limits(), image="anything-at-all")
    try:
        assert (await sb.exec(["true"])).exit_code == 0
    finally:
        await sb.close()


def test_cache_dir_is_configurable(monkeypatch, tmp_path):
    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path / "c"))
    assert img.cache_dir() == Path(tmp_path / "c") and (tmp_path / "c").is_dir()


def test_the_sandbox_uid_is_no_host_account_and_doctor_says_when_it_is(monkeypatch):
    import pwd

    from gauntlet_tui.cli.doctor_cmd import uid_check

    from arena.sandbox.docker_backend import INIT_UID
    from arena.sandbox.quota import UID_BASE, UID_COUNT

    # not the local backend's per-sandbox uids, not the idle init's, not a host's first user
    assert SANDBOX_UID not in range(UID_BASE, UID_BASE + UID_COUNT) and SANDBOX_UID not in (INIT_UID, 1000)
    assert SANDBOX_UID < 0o7777777  # a ustar header's uid field: the rootfs is imported as a tar
    ok = uid_check()
    assert ok.ok and str(SANDBOX_UID) in ok.detail
    real = pwd.getpwuid

    def taken(uid):
        if uid == SANDBOX_UID:
            return pwd.struct_passwd(("alice", "x", uid, uid, "", "/home/alice", "/bin/sh"))
        return real(uid)

    monkeypatch.setattr(pwd, "getpwuid", taken)
    bad = uid_check()
    assert not bad.ok and "'alice'" in bad.detail and "usermod" in bad.fix
