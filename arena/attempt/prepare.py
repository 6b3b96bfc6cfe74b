"""Ready everything a run needs before any attempt's clock starts.

``Preparation.plan(arena, items)`` lists the steps for ``(challenge, agent spec)`` pairs:
the base image of each challenge (Docker), each adapter agent's image (Docker) or tree
(local), a warm judge sandbox per challenge and the judged starter of each (cached, so
no attempt's clock waits for it). ``await prep.run()`` does them in order,
in threads, each build under its cross-process lock (``arena.sandbox.buildlock``: a
second process waits for the first one's build and then finds it done). Each step
carries what is being done and how long it took last time, for a progress display that
polls ``prep.steps``. A failed step raises ``PrepareError`` saying why and what to try.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, TextIO, cast

from arena.sandbox.base import SandboxError
from arena.sandbox.buildlock import last_build_seconds, record_build_seconds

if TYPE_CHECKING:  # arena.attempt.arena imports this module
    from arena.attempt.arena import Arena
    from arena.attempt.shared import Shared
    from arena.challenge.loader import Challenge


class _Images(Protocol):
    """The docker backend's image builds (not part of every ``Backend``)."""

    def image_ref(self, image: str, log: Callable[[str], None] | None = None) -> str: ...


LOCAL_HINT = "run it without Docker instead: add --sandbox local"


class PrepareError(SandboxError):
    """A build or warm-up failed before any attempt started (the message says why)."""


@dataclass
class Step:
    label: str  # "building image gauntlet-base", shown as is
    key: str  # build-time record key
    work: Callable[[Callable[[str], None]], Awaitable[Any]] = field(repr=False)
    last_s: float | None = None  # how long it took last time (None: never recorded)
    state: str = "pending"  # pending | running | done | failed
    started: float | None = None
    seconds: float | None = None
    detail: str = ""  # the last log line of the step
    record: bool = False  # record the duration here (builds record their own)

    def elapsed(self, now: float | None = None) -> float:
        if self.seconds is not None:
            return self.seconds
        if self.started is None:
            return 0.0
        return (now or time.monotonic()) - self.started

    def fraction(self) -> float | None:
        """Share done, estimated from the last duration (None: unknown, or not started)."""
        if self.state == "done":
            return 1.0
        if self.started is None or not self.last_s:
            return None
        return min(0.99, self.elapsed() / self.last_s)


@dataclass
class Preparation:
    steps: list[Step] = field(default_factory=list)
    backend: str = "local"
    error: str | None = None
    finished: bool = False

    @classmethod
    def plan(cls, arena: Arena, items: list[tuple[Challenge, str]]) -> "Preparation":
        """Steps for ``(challenge, agent_spec)`` pairs run on ``arena``'s backend and judge."""
        from arena.agents.factory import make_agent  # noqa: PLC0415

        shared = arena.shared
        backend = shared.backend
        name = getattr(backend, "name", "local")
        prep = cls(backend=name)
        seen: set[str] = set()
        for challenge, spec in items:
            agent = make_agent(spec, challenge)
            image = challenge.manifest.sandbox.image
            if name == "docker" and f"image:{image}" not in seen:
                seen.add(f"image:{image}")
                prep._add(
                    f"image {image}",
                    _image_key(image),
                    lambda log, i=image: asyncio.to_thread(cast(_Images, backend).image_ref, i, log),
                )
            adapter = getattr(agent, "adapter", None)
            if adapter is not None and f"agent:{adapter.name}" not in seen:
                seen.add(f"agent:{adapter.name}")
                prep._add_agent(adapter.name, name == "docker" and agent.needs_sandbox)
            warm = getattr(shared.judge, "warm", None)
            if warm is not None and f"warm:{challenge.manifest.id}" not in seen:
                seen.add(f"warm:{challenge.manifest.id}")
                key = f"warm-{name}-{challenge.manifest.id}"
                prep._add(
                    f"warm judge sandbox for {challenge.manifest.id}",
                    key,
                    lambda log, c=challenge, w=warm: w(c, [1]),
                    record=True,
                )
            if f"starter:{challenge.manifest.id}" not in seen:
                seen.add(f"starter:{challenge.manifest.id}")
                prep._add(
                    f"judge the starter of {challenge.manifest.id}",
                    f"starter-{name}-{challenge.manifest.id}",
                    lambda log, c=challenge: _judge_starter(shared, c, log),
                    record=True,
                )
        return prep

    def _add(self, label: str, key: str, work, record: bool = False) -> None:
        self.steps.append(Step(label, key, work, last_build_seconds(key), record=record))

    def _add_agent(self, agent: str, image: bool) -> None:
        from arena.adapters import build as b  # noqa: PLC0415

        if image:
            self._add(
                f"agent image {b.image_ref(agent)}",
                b.agent_build_key(agent),
                lambda log: asyncio.to_thread(b.build_agent_image, agent, False, log),
            )
        else:
            self._add(
                f"agent tree {agent}",
                b.tree_build_key(agent),
                lambda log: asyncio.to_thread(b.ensure_agent_tree, agent, log),
            )

    async def run(self, on_change: Callable[["Preparation"], None] | None = None) -> None:
        """Every step in order; raises ``PrepareError`` at the first failure."""
        notify = on_change or (lambda _p: None)
        try:
            for step in self.steps:
                step.state, step.started = "running", time.monotonic()
                notify(self)

                def log(msg: str, s: Step = step) -> None:
                    s.detail = str(msg).splitlines()[0][:200] if msg else ""

                try:
                    await step.work(log)
                except Exception as exc:  # noqa: BLE001 — one clear reason, then stop
                    step.state, step.seconds = "failed", step.elapsed()
                    self.error = f"{step.label} failed: {exc}"
                    if self.backend == "docker":
                        self.error += f" — {LOCAL_HINT}"
                    notify(self)
                    raise PrepareError(self.error) from None
                step.state, step.seconds = "done", step.elapsed()
                if step.record:
                    record_build_seconds(step.key, step.seconds)
                notify(self)
        finally:
            self.finished = True

    def summary(self, step: Step) -> str:
        """One line for a command line: label, state, time (and last time)."""
        last = f" (last time {step.last_s:.0f}s)" if step.last_s else ""
        if step.state == "done":
            return f"ready: {step.label} in {step.seconds:.1f}s"
        if step.state == "failed":
            return f"FAILED: {step.label} after {step.seconds:.1f}s"
        return f"preparing: {step.label}{last}"


async def _judge_starter(shared: Shared, challenge: Challenge, log: Callable[[str], None]) -> None:
    """Judge the starter into its cache (``arena.attempt.starter``), so no attempt's clock
    waits for it. Never fails the preparation: an attempt meets the error and records it."""
    from arena.attempt.starter import judge_starter_ahead  # noqa: PLC0415

    try:
        ok = await judge_starter_ahead(shared, challenge)
    except Exception as exc:  # noqa: BLE001 — the attempts judge it themselves then
        ok, why = False, f"{type(exc).__name__}: {exc}"
    else:
        why = "the judge could not run"
    log("judged (cached)" if ok else f"not judged ({why}): each attempt tries again")


def _image_key(image: str) -> str:
    from arena.sandbox.image import BASE_IMAGE, base_build_key  # noqa: PLC0415

    return base_build_key() if image.split(":")[0] == BASE_IMAGE else f"image-{image}"


async def run_printing(prep: Preparation, out: TextIO, every_s: float = 5.0) -> None:
    """``prep.run()`` with progress lines on ``out`` (a command line's stderr): each step
    as it starts (with last time's duration), while it runs a line each time its detail
    changes (looked at every ``every_s``), and done."""
    if not prep.steps:
        return
    said: dict[int, str] = {}

    def on_change(p: Preparation) -> None:
        for i, s in enumerate(p.steps):
            if said.get(i) != s.state and s.state != "pending":
                said[i] = s.state
                out.write(f"gauntlet: {p.summary(s)}\n")
                out.flush()

    task = asyncio.ensure_future(prep.run(on_change))
    shown: tuple[str, str] | None = None
    while not task.done():
        await asyncio.wait([task], timeout=every_s)
        running = [s for s in prep.steps if s.state == "running"]
        if not task.done() and running:
            s = running[0]
            if (s.label, s.detail) == shown:
                continue  # one line per change: a step still at the same point says nothing
            shown = (s.label, s.detail)
            last = f" of ~{s.last_s:.0f}s" if s.last_s else ""
            out.write(f"gauntlet:   ... {s.label}: {s.elapsed():.0f}s{last} {s.detail}\n")
            out.flush()
    await task
