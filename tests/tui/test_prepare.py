"""Prepare before the clock: one build per recipe across processes and threads (a file
lock), the last build time kept in the cache, and the progress/failed preparation."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import shutil
import threading
import time

import pytest

from arena.sandbox import buildlock
from arena.attempt.prepare import Preparation, PrepareError, Step


def _proc_build(cache: str, key: str, marker: str, out) -> None:
    os.environ["GAUNTLET_CACHE"] = cache

    def present():
        return "built" if os.path.exists(marker) else None

    def build():
        with open(marker + ".count", "a") as f:
            f.write("x")
        time.sleep(0.5)  # a build in progress: the other process must wait on the lock
        open(marker, "w").close()
        return "built"

    out.put(buildlock.locked_build(key, present, build))


def test_two_processes_build_once(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path / "cache"))
    marker = str(tmp_path / "image")
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_proc_build, args=(str(tmp_path / "cache"), "recipe-x", marker, q)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [q.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(30)
    assert open(marker + ".count").read() == "x", "built twice"
    assert sorted(b for _r, b in results) == [False, True]
    assert buildlock.last_build_seconds("recipe-x") >= 0.5


def test_threads_wait_for_the_one_build_and_are_told(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path))
    built, waits, started = [], [], threading.Event()
    done = threading.Event()

    def build():
        started.set()
        built.append(1)
        done.wait(10)
        return "img"

    present = lambda: "img" if done.is_set() else None  # noqa: E731
    t1 = threading.Thread(target=buildlock.locked_build, args=("r", present, build))
    t1.start()
    started.wait(10)
    res = {}
    t2 = threading.Thread(
        target=lambda: res.setdefault("r", buildlock.locked_build("r", present, build, on_wait=waits.append))
    )
    t2.start()
    time.sleep(0.2)
    assert t2.is_alive() and waits == ["waiting for another build of r to finish"]
    done.set()
    t1.join(10)
    t2.join(10)
    assert built == [1] and res["r"] == ("img", False)


async def test_a_failed_step_says_why_and_offers_local(tmp_path, monkeypatch):
    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path))

    async def fails(log):
        log("running: debootstrap ...")
        raise RuntimeError("debootstrap failed: no mirror")

    ran = []

    async def later(log):
        ran.append(1)

    prep = Preparation(
        [Step("image gauntlet-base", "k1", fails), Step("warm", "k2", later, after=("k1",))], backend="docker"
    )
    with pytest.raises(PrepareError) as err:
        await prep.run()
    assert "debootstrap failed: no mirror" in str(err.value) and "--sandbox local" in str(err.value)
    assert [s.state for s in prep.steps] == ["failed", "skipped"] and not ran  # it needed the image


async def test_preparation_screen_shows_progress_and_last_time(tmp_path, monkeypatch):
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.screens.prepare import PrepareScreen

    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path))
    buildlock.record_build_seconds("img-k", 84.0)
    gate = asyncio.Event()

    async def slow(log):
        log("importing rootfs")
        await gate.wait()

    prep = Preparation([Step("image gauntlet-test", "img-k", slow, buildlock.last_build_seconds("img-k"))])
    app = GauntletApp(live_refresh=False)
    async with app.run_test(size=(120, 30)) as pilot:
        app.push_screen(PrepareScreen(prep))
        task = asyncio.ensure_future(prep.run())
        await pilot.pause(0.6)
        label = str(app.screen.query_one("#prep-label-0").render())
        assert "image gauntlet-test" in label and "last time 84s" in label and "importing rootfs" in label
        gate.set()
        await task
        assert prep.steps[0].state == "done"


@pytest.mark.skipif(not shutil.which("docker"), reason="needs the Docker engine")
def test_real_docker_import_runs_once_for_two_threads(tmp_path, monkeypatch):
    """A real build (docker import of the cached rootfs) of a test-only recipe and tag,
    asked for by two threads at once: one import, both get the same image."""
    from arena.sandbox import image as im

    cache = im.cache_dir()
    real = cache / f"rootfs-{im.recipe_hash()[:16]}.tar"
    if not real.exists():
        pytest.skip("no cached base rootfs to import")
    recipe = dict(im.RECIPE, version=f"locktest-{os.getpid()}-{time.time_ns()}")
    h = im.recipe_hash(recipe)
    tarball = cache / f"rootfs-{h[:16]}.tar"
    os.link(real, tarball)
    repo = "gauntlet-locktest"
    reports = []
    try:
        threads = [
            threading.Thread(
                target=lambda: reports.append(im.build_image(log=lambda _m: None, recipe=recipe, repository=repo))
            )
            for _ in range(2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert len(reports) == 2 and sorted(r.built for r in reports) == [False, True]
        assert reports[0].image_id == reports[1].image_id
        assert buildlock.last_build_seconds(im.base_build_key(recipe)) is not None
    finally:
        tarball.unlink(missing_ok=True)
        import docker

        client = docker.from_env()
        for img in client.images.list(filters={"label": f"{im.RECIPE_LABEL}={h}"}):
            client.images.remove(img.id, force=True)
