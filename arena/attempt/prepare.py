"""Ready everything a run needs before any attempt's clock starts.

``Preparation.plan(arena, items)`` lists the steps for ``(challenge, agent spec)`` pairs:
the base image of each challenge (Docker), each adapter agent's image (Docker) or tree
(local), a warm judge sandbox per challenge and the judged starter of each (cached, so
no attempt's clock waits for it). ``await prep.run()`` first asks every step whether
its result is already there (an image or tree that exists is ready at once, issue 34),
then runs the rest side by side, each once the steps it needs (``Step.after``) are done:
the agents' images after the base image, a challenge's warm judge sandbox after its image
and its starter after that. Builds run in threads, each under its cross-process lock
(``arena.sandbox.buildlock``: a second process waits for the first one's build and then
finds it done). Each step carries what is being done and how long it took last time, for
a progress display that polls ``prep.steps``. A failed step raises ``PrepareError``
saying why and what to try; steps that needed it (and any not started yet) are skipped.
"""

from __future__ import annotations

import asyncio
import functools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, TextIO, cast

from arena.clock import RealTime, TimeSource
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
    state: str = "pending"  # pending | running | done | failed | skipped
    started: float | None = None
    seconds: float | None = None
    detail: str = ""  # the last log line of the step
    detail_at: float | None = None  # when it came (the preparation's clock)
    record: bool = False  # record the duration here (builds record their own)
    after: tuple[str, ...] = ()  # keys of the steps that must be done first (absent keys: none)
    ready: Callable[[], bool] | None = field(default=None, repr=False)  # quick "already there?"
    present: bool = False  # found ready without running
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def elapsed(self, now: float | None = None) -> float:
        if self.seconds is not None:
            return self.seconds
        if self.started is None:
            return 0.0
        return (self.clock() if now is None else now) - self.started

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
    time: TimeSource = field(default_factory=RealTime, repr=False)

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
                    ready=functools.partial(_image_present, image),
                )
            after_image = (_image_key(image),) if name == "docker" else ()
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
                    after=after_image,
                )
            if f"starter:{challenge.manifest.id}" not in seen:
                seen.add(f"starter:{challenge.manifest.id}")
                prep._add(
                    f"judge the starter of {challenge.manifest.id}",
                    f"starter-{name}-{challenge.manifest.id}",
                    lambda log, c=challenge: _judge_starter(shared, c, log),
                    record=True,
                    after=(*after_image, f"warm-{name}-{challenge.manifest.id}"),
                )
        return prep

    def _add(
        self,
        label: str,
        key: str,
        work,
        record: bool = False,
        after: tuple[str, ...] = (),
        ready: Callable[[], bool] | None = None,
    ) -> None:
        self.steps.append(Step(label, key, work, last_build_seconds(key), record=record, after=after, ready=ready))

    def _add_agent(
        self, agent: str, image: bool, force: bool = False, echo: Callable[[str], None] | None = None
    ) -> None:
        """The agent's image (after the base image, when that is a step too) or its tree.
        ``echo`` also hears every log line of the build (a command line's stderr)."""
        from arena.adapters import build as b  # noqa: PLC0415
        from arena.sandbox.image import base_build_key  # noqa: PLC0415

        def both(log: Callable[[str], None]) -> Callable[[str], None]:
            if echo is None:
                return log

            def tell(msg: str, shout: Callable[[str], None] = echo) -> None:
                shout(msg)
                log(msg)

            return tell

        if image:
            self._add(
                f"agent image {b.image_ref(agent)}",
                b.agent_build_key(agent),
                lambda log: asyncio.to_thread(b.build_agent_image, agent, force, both(log)),
                after=(base_build_key(),),
                ready=None if force else (lambda: b.agent_image_present(agent)),
            )
        else:
            self._add(
                f"agent tree {agent}",
                b.tree_build_key(agent),
                lambda log: asyncio.to_thread(b.ensure_agent_tree, agent, both(log)),
                ready=lambda: b.agent_tree_present(agent),
            )

    @classmethod
    def agent_image(cls, agent: str, force: bool = False, echo: Callable[[str], None] | None = None) -> "Preparation":
        """One step: the adapter's Docker image (``gauntlet sandbox build --agent NAME``)."""
        prep = cls(backend="docker")
        prep._add_agent(agent, True, force, echo)
        return prep

    async def run(self, on_change: Callable[["Preparation"], None] | None = None) -> None:
        """Every step, side by side as their ``after`` allow; raises ``PrepareError`` once the
        running steps have ended if one failed (``error`` says which, as soon as it fails)."""
        notify = on_change or (lambda _p: None)
        for step in self.steps:
            step.clock = self.time.now
        try:
            await self._find_ready(notify)
            ended = {s.key: asyncio.Event() for s in self.steps}
            for s in self.steps:
                if s.state != "pending":
                    ended[s.key].set()
            await asyncio.gather(*(self._run_step(s, ended, notify) for s in self.steps if s.state == "pending"))
            if self.error is not None:
                raise PrepareError(self.error)
        finally:
            self.finished = True

    async def _find_ready(self, notify: Callable[["Preparation"], None]) -> None:
        """Ask every step with a presence check at once (threads: Docker, the file system)."""

        async def check(step: Step) -> None:
            assert step.ready is not None
            try:
                ok = await asyncio.to_thread(step.ready)
            except Exception:  # noqa: BLE001 — cannot tell: the step itself finds out
                ok = False
            if ok:
                step.state, step.present, step.seconds, step.detail = "done", True, 0.0, "already there"

        await asyncio.gather(*(check(s) for s in self.steps if s.ready is not None))
        if any(s.present for s in self.steps):
            notify(self)

    async def _run_step(self, step: Step, ended: dict[str, asyncio.Event], notify) -> None:
        try:
            for key in step.after:
                if key in ended and key != step.key:
                    await ended[key].wait()
            needed = [s for s in self.steps if s.key in step.after and s.state != "done" and s is not step]
            if needed:  # a step it needs failed (or was skipped): independent ones still run
                step.state, step.detail = "skipped", f"not started: {needed[0].label} {needed[0].state}"
                notify(self)
                return
            step.state, step.started = "running", self.time.now()
            notify(self)

            def log(msg: str, s: Step = step) -> None:
                s.detail = str(msg).splitlines()[0][:200] if msg else ""
                s.detail_at = self.time.now()

            try:
                await step.work(log)
            except Exception as exc:  # noqa: BLE001 — one clear reason, then stop
                step.state, step.seconds = "failed", step.elapsed()
                if self.error is None:
                    self.error = f"{step.label} failed: {exc}"
                    if self.backend == "docker":
                        self.error += f" — {LOCAL_HINT}"
                notify(self)
                return
            step.state, step.seconds = "done", step.elapsed()
            if step.record:
                record_build_seconds(step.key, step.seconds)
            notify(self)
        finally:
            ended[step.key].set()

    def summary(self, step: Step) -> str:
        """One line for a command line: label, state, time (and last time)."""
        last = f" (last time {step.last_s:.0f}s)" if step.last_s else ""
        if step.state == "done" and step.present:
            return f"ready: {step.label} (already there)"
        if step.state == "done":
            return f"ready: {step.label} in {step.seconds:.1f}s"
        if step.state == "failed":
            return f"FAILED: {step.label} after {step.seconds:.1f}s"
        if step.state == "skipped":
            return f"skipped: {step.label} ({step.detail})"
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


def _image_present(image: str) -> bool:
    """The challenge's image is there (the base one: this recipe's, tagged latest)."""
    from arena.sandbox.image import BASE_IMAGE, BASE_TAG, _client, find_recipe_image, recipe_hash  # noqa: PLC0415

    client = _client()
    ref = image if ":" in image.rsplit("/", 1)[-1] else f"{image}:latest"
    if ref == f"{BASE_IMAGE}:{BASE_TAG}":
        found = find_recipe_image(client, recipe_hash())
        return found is not None and ref in found.tags
    try:
        client.images.get(ref)
    except Exception:  # noqa: BLE001 — not there (or cannot tell): the step finds out
        return False
    return True


async def run_printing(
    prep: Preparation, out: TextIO, every_s: float = 5.0, beat_s: float = 10.0, echoed: bool = False
) -> None:
    """``prep.run()`` with progress lines on ``out`` (a command line's stderr): each step as
    it starts (with last time's duration), ends or is found already there; while it runs, a
    line when its detail changed (looked at every ``every_s``) and at least one every
    ``beat_s`` with the step and its detail, so no build is silent for longer (issue 34).
    ``echoed``: the steps' log lines are printed elsewhere as they come; only the beats here."""
    if not prep.steps:
        return
    said: dict[int, str] = {}
    clock = prep.time
    shown: dict[int, tuple[str, float]] = {}  # running step: (detail, when its last line was)

    def say(text: str) -> None:
        out.write(f"gauntlet: {text}\n")
        out.flush()

    def on_change(p: Preparation) -> None:
        for i, s in enumerate(p.steps):
            if said.get(i) != s.state and s.state != "pending":
                said[i] = s.state
                say(p.summary(s))
                if s.state == "running":
                    shown[i] = (s.detail, clock.now())

    def last_line(i: int) -> float:
        at = shown[i][1]
        echo_at = prep.steps[i].detail_at
        return max(at, echo_at) if echoed and echo_at is not None else at  # echoed as it came

    task = asyncio.ensure_future(prep.run(on_change))
    try:
        while not task.done():
            now = clock.now()
            beats = [last_line(i) + beat_s for i in shown]
            wake = max(now, min([now + every_s, *beats]))
            tick = asyncio.ensure_future(clock.sleep_until(wake))
            await asyncio.wait([task, tick], return_when=asyncio.FIRST_COMPLETED)
            tick.cancel()
            if task.done():
                break
            now = clock.now()
            for i, s in enumerate(prep.steps):
                if s.state != "running":
                    shown.pop(i, None)
                    continue
                detail, at = shown.get(i, ("", now))
                at = last_line(i) if i in shown else at
                if (s.detail == detail or echoed) and now - at < beat_s:
                    continue  # one line per change, and one per beat_s: never silent longer
                shown[i] = (s.detail, now)
                last = f" of ~{s.last_s:.0f}s" if s.last_s else ""
                say(f"  ... {s.label}: {s.elapsed(now):.0f}s{last} {s.detail}".rstrip())
    finally:
        if not task.done():
            task.cancel()
    await task
