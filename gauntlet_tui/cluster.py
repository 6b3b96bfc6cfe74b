"""The live TUI on a Ray cluster (``gauntlet run|arena ... --cluster``): the poller of the
cluster line, and Ray's log lines kept off the screen.

``ClusterPoller(app, source)``: every ``period`` seconds the app calls ``source.poll()`` in
a thread (Ray's calls block) — any object whose ``poll()`` returns a plain snapshot,
normally ``arena.cluster.status.ClusterStatus`` — puts the snapshot on the adapter
(``adapter.cluster``) and redraws the dashboard; ``close()`` (the app unmounting) closes
the source if it can be. No Ray is imported here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Iterator

from gauntlet_tui import guard

log = logging.getLogger("gauntlet_tui")


class ClusterPoller:
    def __init__(self, app: Any, source: Any, period: float = 2.0) -> None:
        self.app = app
        self.source = source
        self.period = period
        self.polls = 0
        self.failures = 0

    def start(self) -> None:
        self.app.call_later(self._kick)
        self.app.set_interval(self.period, self._kick, name="cluster-poll")

    def _kick(self) -> None:
        self.app.run_worker(self.poll(), group="cluster-poll", exclusive=True)

    async def poll(self) -> Any:
        """One reading; the snapshot (None when the provider itself failed)."""
        try:
            snap = await asyncio.to_thread(self.source.poll)
        except Exception as exc:  # noqa: BLE001 — the line says so; the room goes on
            self.failures += 1
            log.warning("cluster status: %s: %s", type(exc).__name__, exc)
            return None
        self.polls += 1
        self.app.adapter.cluster = snap
        self.app.refresh_rows(set())
        return snap

    def close(self) -> None:
        closer = getattr(self.source, "close", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                closer()


@contextlib.contextmanager
def ray_logs_to_file() -> Iterator[None]:
    """While the TUI holds the terminal, the handlers Ray put on its loggers (stream
    handlers holding the real stderr, which Textual does not capture) write to the TUI's
    log file instead; put back afterwards."""
    moved: list[tuple[logging.Logger, logging.Handler]] = []
    path = guard.log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        to_file: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        to_file = logging.NullHandler()
    to_file.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    names = [n for n in logging.root.manager.loggerDict if n == "ray" or n.startswith("ray.")]
    for name in names:
        logger = logging.getLogger(name)
        streams = [
            h
            for h in logger.handlers
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)
        ]
        for stream in streams:
            logger.removeHandler(stream)
            moved.append((logger, stream))
        if streams:
            logger.addHandler(to_file)
    try:
        yield
    finally:
        for name in names:
            with contextlib.suppress(ValueError):
                logging.getLogger(name).removeHandler(to_file)
        for logger, h in moved:
            logger.addHandler(h)
        to_file.close()
