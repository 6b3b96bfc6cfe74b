"""The dashboard with a cluster (``--cluster``): a Node column once some attempt ran on a
node, and a line with the cluster's nodes and their used/free slots, from a status
provider that returns plain data (here a fake one; the real one is
arena.cluster.status.ClusterStatus, exercised in tests/test_cluster.py). Also the clock
of an attempt followed by its events, and the stop handle of a remote attempt."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from arena.cluster.status import ClusterSnapshot, NodeSlots
from arena.events import Event
from gauntlet_tui.engine import EngineAdapter
from gauntlet_tui.live import RemoteHandle
from gauntlet_tui.widgets import AttemptTable
from gauntlet_tui.widgets.cluster_line import ClusterLine

HEAD = NodeSlots("h" * 56, "head", "10.0.0.2", total=0, free=0, head=True)


def _snap(w1_free: int, w2_free: int | None = 0, lost: bool = True, cluster_free: int | None = None) -> ClusterSnapshot:
    nodes = [
        HEAD,
        NodeSlots("a" * 56, "w1", "10.0.0.3", total=2, free=w1_free),
        NodeSlots("b" * 56, "w2", "10.0.0.4", total=2, free=w2_free),
    ]
    if lost:
        nodes.append(NodeSlots("c" * 56, "w3", "10.0.0.5", alive=False, total=2, free=0))
    free = w1_free + (w2_free or 0) if cluster_free is None else cluster_free
    return ClusterSnapshot("ray://10.0.0.2:10001", tuple(nodes), cluster_free=free)


class FakeStatus:
    """Stands in for ClusterStatus: poll() returns whatever snapshot the test set."""

    def __init__(self, snap: ClusterSnapshot) -> None:
        self.snap, self.calls = snap, 0

    def poll(self) -> ClusterSnapshot:
        self.calls += 1
        return self.snap


def _node(host: str) -> dict:
    return {"node": {"id": host * 20, "host": host, "address": f"10.0.0.{3 if host == 'w1' else 4}"}}


def _cell(table: AttemptTable, attempt: str, col: str) -> str:
    value = table.get_cell(attempt, col)
    return getattr(value, "plain", str(value))


async def test_node_column_and_cluster_line(rig, tmp_path):
    rig.start("a-1", "sprint", challenge="off-by-one", title="The Off-By-One", extra=_node("w1"))
    rig.start(
        "a-2", "standard", challenge="rate-limiter", title="Rate Limiter", agent="scripted:naive", extra=_node("w2")
    )
    rig.start("a-3", "sprint", challenge="off-by-one", title="The Off-By-One", agent="scripted:naive")
    status = FakeStatus(_snap(w1_free=1))
    app = rig.app(cluster_status=status)
    async with app.run_test(size=(170, 20)) as pilot:
        await app.cluster.poll()  # the app's timer does this every 2 s with live refresh
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        labels = [c.label.plain for c in table.columns.values()]
        assert labels[labels.index("Status") + 1] == "Node"
        assert [_cell(table, a, "node") for a in ("a-1", "a-2", "a-3")] == ["w1", "w2", "local"]
        line = app.screen.query_one(ClusterLine)
        assert line.display
        text = _plain(line)
        assert "cluster ray://10.0.0.2:10001 · 3 nodes · 4 slots: 3 used, 1 free" in text
        assert "w1 ●○ 1 used 1 free" in text and "w2 ●● 2 used 0 free" in text
        assert "head: no slots" in text and "lost: w3" in text
        svg = app.save_screenshot("cluster_dashboard.svg", str(tmp_path))
        if os.environ.get("GAUNTLET_SHOTS"):
            Path(os.environ["GAUNTLET_SHOTS"]).mkdir(parents=True, exist_ok=True)
            app.save_screenshot("cluster_dashboard.svg", os.environ["GAUNTLET_SHOTS"])
        assert "w1" in Path(svg).read_text()
        status.snap = _snap(w1_free=0, w2_free=None, lost=False, cluster_free=1)  # w2's reading failed
        await app.cluster.poll()
        await pilot.pause()
        text = _plain(line)
        assert "w1 ●● 2 used 0 free" in text and "w2 2 slots, free ?" in text and "lost" not in text
        assert "4 slots: 3 used, 1 free" in text  # w2 unknown: the cluster-wide free count
        assert status.calls == 2


def _plain(line: ClusterLine) -> str:
    """The line as drawn (its markup resolved)."""
    from textual.content import Content

    return Content.from_markup(line.text).plain


async def test_no_node_no_column_and_no_cluster_line(rig):
    rig.start("a-1", "sprint")
    app = rig.app()
    async with app.run_test(size=(170, 20)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        assert "Node" not in [c.label.plain for c in table.columns.values()]
        assert not app.screen.query_one(ClusterLine).display


async def test_node_column_appears_when_a_remote_attempt_comes(rig):
    rig.start("a-1", "sprint", title="Local One")
    rig.start("a-2", "sprint", title="Local Two")
    app = rig.app()
    async with app.run_test(size=(170, 20)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        table.move_cursor(row=1)  # a-2 selected
        rig.start("a-9", "sprint", title="Remote", extra=_node("w2"))
        app.tick()
        await pilot.pause()
        assert "Node" in [c.label.plain for c in table.columns.values()]
        assert table.row_count == 3  # every row is back after the rebuild
        assert [_cell(table, a, "node") for a in ("a-1", "a-2", "a-9")] == ["local", "local", "w2"]
        assert app.screen.selected() == "a-2"
        assert "w2" in table.render_line(table.get_row_index("a-9") + 1).text


async def test_node_column_at_scale_keeps_selection_sorts_and_filters(rig):
    """200 rows, the selected one out of the first screen: the rebuild for the Node column
    keeps it selected and written; the column sorts (s cycles through it) and filters."""
    for i in range(200):
        rig.start(f"a-{i:04d}", "sprint", title=f"Local {i:04d}")
    app = rig.app()
    async with app.run_test(size=(170, 24)) as pilot:
        app.tick(full=True)
        await pilot.pause()
        table = app.screen.query_one(AttemptTable)
        table.move_cursor(row=150)
        await pilot.pause()
        rig.start("z-remote", "sprint", title="Remote", extra=_node("w2"))
        app.tick()
        await pilot.pause()
        shown = [c for c, _, _ in table.active]
        assert shown[shown.index("status") + 1] == "node"
        assert table.row_count == 201 and app.screen.selected() == "a-0150"
        assert _cell(table, "a-0150", "node") == "local"  # in sight after the rebuild: written
        assert _cell(table, "a-0080", "node") == ""  # never in sight: the rebuild did not write it
        assert "Local 0150" in table.render_line(table.cursor_row - int(table.scroll_y) + 1).text
        keys = [c for c, _, _ in table.active]
        for _ in range(keys.index("node")):
            await pilot.press("s", "s")
        await pilot.press("s", "s")  # node, descending: "w2" before every "local"
        assert (table.sort_column, table.sort_reverse) == ("node", True)
        assert table.attempt_ids[0] == "z-remote"
        await pilot.press("g")  # to the top: its row is written as it comes into sight
        await pilot.pause()
        assert _cell(table, "z-remote", "node") == "w2" and "w2" in table.render_line(1).text
        await pilot.press("s")  # on to the next column: Format
        assert table.sort_column == "format"
        await pilot.press("slash")
        await pilot.press("w", "2")
        await pilot.pause()
        assert table.attempt_ids == ["z-remote"]


def test_followed_clock_reads_the_latest_event_and_the_scale():
    now = [100.0]
    ad = EngineAdapter(now=lambda: now[0])
    ad.follow_clock("a-1", 60.0)
    assert ad._clocks["a-1"]() == 0.0  # nothing arrived yet
    ad.bus.publish("a-1", 0.0, "attempt.started", {"time_limit_s": 900, "format": "sprint"})
    now[0] = 101.0
    assert ad._clocks["a-1"]() == 60.0  # one real second at x60
    ad.bus.publish("a-1", 90.0, "file.changed", {"path": "x"})  # arrives at 101: clock is 90
    ad.flush()
    assert ad.elapsed("a-1") == 90.0
    now[0] = 101.5
    assert ad.elapsed("a-1") == 120.0
    ad.bus.deliver(Event(attempt="a-1", t=50.0, kind="file.changed", data={}, seq=99))  # older: no re-anchor
    assert ad._clocks["a-1"]() == 120.0


async def test_remote_handle_stop_cancels_the_placing_task():
    started = asyncio.Event()

    async def place() -> str:
        started.set()
        await asyncio.sleep(3600)
        return "finished"

    task = asyncio.ensure_future(place())
    await started.wait()
    await RemoteHandle(attempt=None, task=task).stop()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()


def test_human_agent_refused_on_a_cluster(capsys):
    from gauntlet_tui.cli import main

    rc = main(["run", "off-by-one", "--agent", "human", "--cluster", "ray://127.0.0.1:1", "--headless"])
    assert rc == 2
    assert "--agent human runs on this machine only" in capsys.readouterr().err


def test_ray_log_lines_go_to_the_tui_log_while_the_screen_is_up(_config_dir, capsys):
    import logging
    import sys

    from gauntlet_tui.cluster import ray_logs_to_file

    logger = logging.getLogger("ray.util.client")  # as Ray sets it up: a stream on the real stderr
    handler = logging.StreamHandler(sys.stderr)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with ray_logs_to_file():
            logger.warning("Ray Client connection lost, reconnecting")
            assert handler not in logger.handlers
        assert "reconnecting" not in capsys.readouterr().err
        assert "reconnecting" in (_config_dir / "tui.log").read_text()
        assert handler in logger.handlers  # put back afterwards
        logger.warning("after the screen")
        assert "after the screen" in capsys.readouterr().err
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
