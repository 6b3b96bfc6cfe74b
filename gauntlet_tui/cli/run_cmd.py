"""``gauntlet run`` (one live attempt) and ``gauntlet arena`` (a plan of many).

Both first look for attempts a crash left running (resumed or closed interrupted)
and run the resumable ones alongside. ``--headless`` prints one line per event that
matters and, last, the attempt id(s) alone. Without it the TUI attempt view opens
(``gauntlet_tui``, imported lazily); if the TUI is not available the run falls back
to headless with a note on stderr. Exit: 0 ran to the end, 1 an infrastructure
error ended an attempt, 2 bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from arena import paths
from arena.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="one live attempt: a challenge and an agent",
        description="Run one attempt of challenge DIR (a package directory or a bundled challenge id) with agent A.",
    )
    p.add_argument("challenge", metavar="DIR", help="challenge package directory or bundled id")
    p.add_argument(
        "--agent",
        required=True,
        metavar="A",
        help="scripted:<name>, human, a built-in adapter (mini-swe-agent, aider) "
        "with --model, or the path of an agent file",
    )
    p.add_argument(
        "--model",
        metavar="PROVIDER/MODEL",
        default=None,
        help="the model of a built-in adapter, e.g. openai/gpt-4.1-mini (CONTRACT §8)",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="attempt seconds per real second (default 1; scripted agents only: an agent that calls a model runs at 1)",
    )
    p.add_argument(
        "--sandbox",
        choices=("docker", "local"),
        default=None,
        help="sandbox backend (default: docker when the engine answers, else local)",
    )
    p.add_argument("--store", metavar="DB", help="store file (default $GAUNTLET_STORE or ./gauntlet.db)")
    p.add_argument("--headless", action="store_true", help="no TUI: progress lines, then the attempt id")
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="run on a Ray cluster (ray://head:10001, host:6379, auto; default $RAY_ADDRESS)",
    )
    p.set_defaults(func=cmd_run)

    a = sub.add_parser(
        "arena",
        help="many attempts at once from a plan (challenges x agents)",
        description="Run the attempts of PLAN.yaml (schema gauntlet.plan/v1).",
    )
    a.add_argument("plan", metavar="PLAN.yaml")
    a.add_argument("--store", metavar="DB", help="store file (default $GAUNTLET_STORE or ./gauntlet.db)")
    a.add_argument("--sandbox", choices=("docker", "local"), default=None, help="override the plan's sandbox backend")
    a.add_argument("--headless", action="store_true", help="no TUI: progress lines, then the attempt ids")
    a.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="run on a Ray cluster (ray://head:10001, host:6379, auto; default $RAY_ADDRESS)",
    )
    a.set_defaults(func=cmd_arena)


def _challenge(ref: str) -> Any:
    from arena.challenge import load_challenge, resolve_challenge

    try:
        return load_challenge(resolve_challenge(ref))
    except ValueError as exc:  # ChallengeError
        findings = getattr(exc, "findings", None) or []
        text = "; ".join(f.detail for f in findings) or str(exc)
        raise UsageError(f"challenge {ref}: {text}") from None


def _scale(x: float, key: str = "--time-scale") -> float:
    if not (x > 0) or x != x or x == float("inf"):
        raise UsageError(f"{key}: expected a positive number, got {x}")
    return x


def _backend(name: str | None) -> Any:
    from arena.sandbox import SandboxError, get_backend

    try:
        return get_backend(name)
    except SandboxError as exc:
        raise UsageError(f"--sandbox {name or '(auto)'}: {exc}") from None


def agent_spec(agent: str, model: str | None) -> str:
    """``--agent NAME --model M`` is the adapter spec ``NAME@M`` (arena/agents/agent_file.py)."""
    if model is None:
        return agent
    from arena.agents.agent_file import adapter_names, check_model

    name = agent.partition("@")[0]
    if name not in adapter_names() and not Path(agent).exists():
        import difflib

        close = difflib.get_close_matches(name, adapter_names(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(
            f"--agent {agent}: no built-in adapter of that name{hint}: with --model, expected one of "
            f"{', '.join(adapter_names())}"
        )
    if name not in adapter_names():
        raise UsageError(
            f"--model: only for a built-in adapter ({', '.join(adapter_names())}); "
            f"--agent {agent} names its model in its agent file"
        )
    if "@" in agent:
        raise UsageError(f"--agent {agent}: already names a model: drop --model or the @MODEL")
    from arena.adapters import get_adapter

    get_adapter(name).check_provider(check_model(model, "--model"), f"--model (--agent {name})")
    return f"{agent}@{model}"


def cmd_run(args: argparse.Namespace) -> int:
    challenge = _challenge(args.challenge)
    scale = _scale(args.time_scale)
    from arena.agents.agent_file import require_real_time
    from arena.agents.factory import make_agent

    args.agent = agent_spec(args.agent, args.model)
    require_real_time(args.agent, scale, "--time-scale")  # CONTRACT §11: nothing stored yet

    make_agent(args.agent, challenge)  # bad agent names fail here, before anything starts
    store = paths.store_path(args.store)
    backend = _backend(args.sandbox)
    jobs = [(challenge, args.agent, scale)]
    return _launch(
        store,
        backend,
        jobs,
        parallel=1,
        headless=args.headless,
        kind="run",
        argv={"challenge": args.challenge, "agent": args.agent, "time_scale": scale, "sandbox": backend.name},
        cluster=_cluster(args.cluster, jobs=jobs),
    )


def cmd_arena(args: argparse.Namespace) -> int:
    from arena.agents.factory import make_agent
    from arena.attempt.plan import load_plan

    plan = load_plan(Path(args.plan))  # refuses sped-up model agents, duplicate names (exit 2)
    loaded: dict[Path, Any] = {}
    jobs = []
    for pa in plan.attempts:
        if pa.challenge not in loaded:
            loaded[pa.challenge] = _challenge(str(pa.challenge))
        make_agent(pa.agent, loaded[pa.challenge])
        jobs.append((loaded[pa.challenge], pa.spec, pa.time_scale))  # pa.spec carries its display name
    from arena.cluster import resolve_address

    if resolve_address(args.cluster, plan.cluster) is None:  # a cluster's capacity is its nodes'
        _capacity(Path(args.plan), plan, jobs)
    backend = _backend(args.sandbox or plan.sandbox)
    return _launch(
        paths.store_path(args.store),
        backend,
        jobs,
        parallel=plan.parallel,
        headless=args.headless,
        kind="arena",
        argv={"plan": str(args.plan), "attempts": len(jobs), "sandbox": backend.name},
        cluster=_cluster(args.cluster, plan.cluster, jobs),
    )


def _cluster(flag: str | None, plan: str | None = None, jobs: list | tuple = ()) -> Any:
    """The ClusterPlacer when --cluster / the plan's cluster: / $RAY_ADDRESS names one."""
    from arena.cluster import resolve_address

    address = resolve_address(flag, plan)
    if address is None:
        return None
    if any(agent == "human" for _c, agent, _s in jobs):  # its socket and shell would be on the node
        raise UsageError(f"--cluster {address}: --agent human runs on this machine only (drop --cluster for it)")
    from arena.cluster import connect  # imports Ray: only now

    return connect(address)


def _capacity(path: Path, plan: Any, jobs: list) -> None:
    """A heat over this machine's memory is refused (arena/attempt/plan.py check_capacity)."""
    from arena.attempt.plan import check_capacity
    from arena.sandbox.base import Limits

    def need(c: Any) -> float:
        return Limits(memory_mb=int(c.manifest.sandbox.memory_mb)).cgroup_memory_mb(workspace_tmpfs=True)

    check_capacity(path, [(pa.entry, need(c)) for pa, (c, _a, _s) in zip(plan.attempts, jobs)], plan.parallel)


def _preflight(jobs: list) -> None:
    """One cheap call per provider the jobs' models use (arena/gateway/preflight.py)."""
    from arena.agents.factory import make_agent
    from arena.gateway.preflight import preflight

    agents = [make_agent(agent, c) for c, agent, _s in jobs if agent != "human" and not agent.startswith("scripted:")]
    if agents:
        for check in preflight(agents):
            print(f"gauntlet: provider {check.provider}: {check.detail}", file=sys.stderr)


def _launch(
    store: Path, backend: Any, jobs: list, *, parallel: int, headless: bool, kind: str, argv: dict, cluster: Any = None
) -> int:
    from gauntlet_tui.cli.lifecycle import admit_all, monitor_all

    _preflight(jobs)  # the agents' providers answer, before any attempt is stored (exit 2)
    admit_all(store, jobs)  # a published challenge's lifecycle may refuse (exit 2)
    try:
        if cluster is None:
            return _launch_admitted(store, backend, jobs, parallel=parallel, headless=headless, kind=kind, argv=argv)
        try:
            return _launch_admitted(
                store,
                backend,
                jobs,
                parallel=parallel,
                headless=headless,
                kind=kind,
                argv={**argv, "cluster": cluster.address},
                cluster=cluster,
            )
        finally:
            cluster.close()
    finally:
        try:
            monitor_all(store, jobs)
        except Exception as exc:  # noqa: BLE001 — a monitor failure never hides the run's result
            print(f"gauntlet: challenge monitors did not run: {exc}", file=sys.stderr)


def _launch_admitted(
    store: Path, backend: Any, jobs: list, *, parallel: int, headless: bool, kind: str, argv: dict, cluster: Any = None
) -> int:
    if not headless and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("gauntlet: not a terminal: running headless (pass --headless to say so)", file=sys.stderr)
        headless = True
    if not headless:
        try:
            from gauntlet_tui.app import GauntletApp  # noqa: PLC0415,F401 — lazily: TUI only
            from gauntlet_tui.engine import EngineAdapter  # noqa: PLC0415,F401
        except ImportError as exc:
            print(f"gauntlet: the TUI is not available ({exc}); running headless", file=sys.stderr)
        else:
            return run_tui(store, backend, jobs, parallel=parallel, kind=kind, argv=argv, cluster=cluster)
    return asyncio.run(run_headless(store, backend, jobs, parallel=parallel, kind=kind, argv=argv, cluster=cluster))


async def run_headless(
    store: Path, backend: Any, jobs: list, *, parallel: int, kind: str, argv: dict, out=None, cluster: Any = None
) -> int:
    from arena.attempt import Arena
    from arena.attempt.progress import printer

    out = out or sys.stdout
    _stop_on_signals()
    try:
        arena = await Arena.open(store, backend=backend, parallel=parallel)
    except Exception as exc:  # noqa: BLE001 - e.g. StoreError: an unusable store file
        raise UsageError(f"--store {store}: {exc}") from None
    if cluster is not None:
        cluster.attach(arena)
    unsub = lambda: None  # noqa: E731
    try:
        resumed = await arena.recover()
        arena.widen(len(resumed))
        unsub = arena.bus.subscribe(printer(out, prefix=len(jobs) > 1 or bool(resumed)))
        run_id = await arena.store.create_run(kind, argv)
        attempts = [arena.attempt(c, agent, time_scale=scale) for c, agent, scale in jobs]
        if not await _prepare_printing(arena, jobs):
            await arena.store.finish_run(run_id)
            return 1
        for a in attempts:
            a.run_id = run_id
            if a.agent.spec == "human":
                out.write(
                    f"{a.id}: human agent: export GAUNTLET_SOCKET={a.env['GAUNTLET_SOCKET']} "
                    "and use `gauntlet agent status|briefing|submit|feedback`\n"
                )
        try:
            statuses = await arena.run_all([*resumed, *attempts])
        except asyncio.CancelledError:  # Ctrl-C / SIGTERM: attempts closed as interrupted
            print("gauntlet: stopped; running attempts closed as interrupted", file=sys.stderr)
            statuses = None
        await arena.store.finish_run(run_id)
    finally:
        unsub()
        await arena.close()
    if statuses is None:
        return 130
    mine = statuses[len(resumed) :]
    ids = [a.id for a in attempts]
    standings = await _heat_standings(store, run_id, ids)
    # `arena` ends with the heat's standings; `run` keeps its attempt id alone on the last line
    lines = [*standings, *ids] if kind == "run" else [*ids, *standings]
    out.write("".join(f"{line}\n" for line in lines))
    out.flush()
    return 1 if "infra_error" in mine else 0


async def _heat_standings(store: Path, heat: str, ids: list[str]) -> list[str]:
    """The heat's standings as the demo's Standings screen computes them (arena/scoring/
    standings.py), as text lines; none (and a note on stderr) if they cannot be computed."""
    from arena.pipeline.boards import standings
    from arena.scoring.standings import heat_lines

    try:
        return heat_lines(await standings(store, ids, heat=heat), heat)
    except Exception as exc:  # noqa: BLE001 - the standings never change the run's result
        print(f"gauntlet: no standings for heat {heat}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return []


async def _prepare_printing(arena: Any, jobs: list) -> bool:
    """Images and warm sandboxes before any clock starts (progress on stderr)."""
    from arena.attempt.prepare import Preparation, PrepareError, run_printing

    try:
        await run_printing(Preparation.plan(arena, [(c, agent) for c, agent, _s in jobs]), sys.stderr)
    except PrepareError as exc:
        print(f"gauntlet: {exc}", file=sys.stderr)
        return False
    return True


def run_tui(store: Path, backend: Any, jobs: list, *, parallel: int, kind: str, argv: dict, cluster: Any = None) -> int:
    """The live view: the TUI app runs the arena in its own event loop (``on_ready``),
    fed by the same bus; the attempt screen opens once the attempt has started. The
    app stays open after the end; quitting early stops the attempts (interrupted)."""
    import contextlib

    app, done = tui_app(store, backend, jobs, parallel=parallel, kind=kind, argv=argv, cluster=cluster)
    quiet: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if cluster is not None:
        from gauntlet_tui.cluster import ray_logs_to_file

        quiet = ray_logs_to_file()
    with quiet:
        app.run()
    for aid in done["ids"]:
        print(aid)
    if app.return_code:  # the app crashed (gauntlet_tui.guard logged why)
        return app.return_code
    return 1 if "infra_error" in done["statuses"] else 0


def tui_app(
    store: Path,
    backend: Any,
    jobs: list,
    *,
    parallel: int,
    kind: str,
    argv: dict,
    cluster: Any = None,
    status: Any = None,
) -> tuple[Any, dict]:
    """The app of ``run_tui``, not yet run (tests drive it with ``run_test``), and the dict
    its run fills in (``ids``, ``statuses``). With ``cluster`` (a ClusterPlacer) the
    attempts run on its nodes: their clocks follow their events, their handles stop them
    through the placing task, and the dashboard's cluster line polls ``status.poll()``
    (default an ``arena.cluster.status.ClusterStatus`` on the same connection; the app
    closes it when it ends)."""
    from gauntlet_tui.app import GauntletApp
    from gauntlet_tui.engine import EngineAdapter, attempt_elapsed

    from arena.attempt import Arena
    from arena.bus import EventBus

    bus = EventBus()
    adapter = EngineAdapter(bus)
    done: dict[str, Any] = {"ids": [], "statuses": []}
    if cluster is not None and status is None:
        from arena.cluster.status import ClusterStatus

        status = ClusterStatus(cluster.address)

    async def on_ready(app: Any) -> None:
        arena = await Arena.open(store, backend=backend, parallel=parallel, bus=bus)
        if cluster is not None:
            cluster.attach(arena)
        try:
            resumed = await arena.recover()
            arena.widen(len(resumed))
            run_id = await arena.store.create_run(kind, argv)
            app.heat = run_id  # the heat the screens show first (arena.heats), older attempts a key away
            attempts = [arena.attempt(c, agent, time_scale=scale) for c, agent, scale in jobs]
            if not await app.prepare(arena, [(c, agent) for c, agent, _s in jobs]):
                done["statuses"] = ["infra_error"]
                return
            for a in attempts:
                a.run_id = run_id
            done["ids"] = [a.id for a in attempts]
            from gauntlet_tui.live import LiveHandle, RemoteHandle  # stop / submit / workspace

            tasks = []
            for a in [*resumed, *attempts]:
                task = asyncio.ensure_future(arena.run_one(a))
                tasks.append(task)
                if cluster is not None:  # nothing runs here: the node's events are the clock
                    adapter.follow_clock(a.id, a.time_scale)
                    adapter.attach_handle(a.id, RemoteHandle(a, task))
                else:
                    adapter.attach_clock(a.id, attempt_elapsed(a))
                    adapter.attach_handle(a.id, LiveHandle(a))
            runs = asyncio.gather(*tasks, return_exceptions=True)
            if len(attempts) == 1:
                while attempts[0].id not in adapter.views and not runs.done():
                    await asyncio.sleep(0.1)  # UI glue: wait for the view to exist
                if attempts[0].id in adapter.views:
                    app.open_attempt_screen(attempts[0].id)
            statuses = [_status(r) for r in await runs]
            done["statuses"] = statuses[len(resumed) :]
            await arena.store.finish_run(run_id)
        finally:
            await arena.close()
        if kind == "arena":  # the heat ends on its Standings, as the demo's round does
            app.tick(full=True)
            await app.show_standings(done["ids"])

    app = GauntletApp(adapter, title="Gauntlet", store=store, on_ready=on_ready, cluster_status=status, own_heat=True)
    return app, done


def _status(result: Any) -> str:
    """An attempt task's result: its status; a stopped task is ``interrupted``."""
    if isinstance(result, asyncio.CancelledError):
        return "interrupted"
    if isinstance(result, BaseException):
        raise result
    return str(result)


def _stop_on_signals() -> None:
    """SIGINT/SIGTERM cancel the run: every attempt ends ``interrupted`` with its events
    committed and its sandbox closed, instead of the process dying mid-attempt."""
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is None:
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, task.cancel)
        except (NotImplementedError, RuntimeError, ValueError):
            pass
