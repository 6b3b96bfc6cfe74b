"""Attempts on a Ray cluster: a head and two worker nodes, each a privileged container with
its own hostname and address on a private Docker network (arena.cluster.testbed). The
command runs here and connects with Ray Client (``--cluster ray://head:10001``).

1. A plan of 6 attempts (3 bundled challenges x 2 scripted agents) with ``--cluster``
   runs on both workers, and every attempt's events (minus times, node and host paths),
   submissions and scorecard equal the same plan run locally.
2. An agent with a model on a worker node reaches the gateway on this machine (relay in its
   sandbox, the node's tunnel, the gateway with the host's key, the test's fake provider):
   model.call and limit.reached events are stored, the provider saw the host's key, and the
   key is nowhere on any node (files, object store, process environments).
3. ``gauntlet doctor --cluster``: a line per node, every node's own sandbox checked in a
   task pinned to it; a worker without bubblewrap is a MISS line with its fix, exit 1.
4. The live TUI with ``--cluster`` (pilot): a short plan runs through the TUI's engine,
   the dashboard shows the Node column and the cluster line, and every attempt equals
   the same plan run headless with ``--cluster`` at the same time.
   Quitting the TUI mid-run (q, y) ends the nodes' attempts ``interrupted`` in seconds.
5. A worker killed mid-attempt: its attempts end ``infra_error`` naming the node, every
   submission acknowledged before the kill is in the store, the others finish. (Last: it
   leaves the cluster one worker short.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
import time
from pathlib import Path

import pytest
import yaml

# the first test also pays for the module's cluster start-up (143-245 s seen): 30 minutes
# alone: a plan at x30 on the nodes against the same plan here; scripts/test.sh runs these
# with nothing else running (under the other half's load, a node's start-up latency pushed
# an elite script's second submission past the cutoff on the cluster only).
pytestmark = [pytest.mark.cluster, pytest.mark.docker, pytest.mark.slow, pytest.mark.alone, pytest.mark.timeout(1800)]
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fakes"))  # the fake provider
TIMING = {
    "run",
    "t",
    "duration_s",
    "elapsed_s",
    "remaining_s",
    "at",
    "runner_pid",
    "workspace",
    "challenge_path",
    "node",
    "started_at",
    "finished_at",
    "wall_s",
    "seconds",
    "ended_s",
}


def _have_docker() -> bool:
    if shutil.which("docker") is None:
        return False
    p = subprocess.run(["docker", "image", "inspect", "gauntlet-base:latest"], capture_output=True)
    return p.returncode == 0


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("ray")
    if not _have_docker():
        pytest.skip("needs the Docker engine and the gauntlet-base image")
    from arena.cluster.image import build_node_image
    from arena.cluster.testbed import DockerCluster

    image = build_node_image(log=lambda m: print(m, file=sys.stderr))  # this checkout's id
    with DockerCluster(workers=2, slots=2, image=image) as c:
        yield c


def gauntlet(*args, timeout=600, extra_env=None, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_SOCKETS": "/tmp/gs-cluster", **(extra_env or {})}
    env.pop("RAY_ADDRESS", None)
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        **kw,
    )


def gauntlet_popen(*args, extra_env=None) -> subprocess.Popen:
    """``gauntlet ARGS`` started in the background, as ``gauntlet()`` runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_SOCKETS": "/tmp/gs-cluster", **(extra_env or {})}
    env.pop("RAY_ADDRESS", None)
    return subprocess.Popen(
        [sys.executable, "-m", "gauntlet_tui", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def write_plan(path: Path, entries: list[dict], scale: float, parallel: int = 6) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "schema": "gauntlet.plan/v1",
                "parallel": parallel,
                "time_scale": scale,
                "sandbox": "local",
                "attempts": entries,
            }
        )
    )
    return path


def docs(db: Path) -> dict[tuple, dict]:
    rows = json.loads(gauntlet("attempts", "--json", "--store", db).stdout)
    out = {}
    for r in rows:
        d = json.loads(gauntlet("show", r["attempt"], "--json", "--store", db).stdout)
        out[(d["challenge"], d["agent"])] = d
    return out


def scrub(x):
    if isinstance(x, dict):
        return {k: scrub(v) for k, v in x.items() if k not in TIMING}
    if isinstance(x, list):
        return [scrub(v) for v in x]
    return x


def comparable(doc: dict) -> dict:
    """What must be equal for a scripted agent wherever it ran: the status and reason, the
    order of the events that matter, each judged submission's score and test counts, and
    every submission's feedback minus times and the test runner's text (failure messages
    carry object addresses such as ``at 0x7f...``, different in any two runs)."""
    evs = doc["events"]
    # Clock marks are on the attempt clock, but where they fall among the submissions moves
    # with real judge latency at a high time scale (in any two runs): compared as a set.
    key_kinds = ("submission.", "feedback.delivered", "phase.revealed", "attempt.finished", "integrity.", "infra.")

    def counts(r: dict) -> dict:
        return {
            k: {c: v for c, v in r[k].items() if c in ("total", "passed", "failed")}
            for k in ("tests", "hidden", "adversarial")
            if isinstance(r.get(k), dict)
        }

    judged = [
        (e["submission"], e["score"], e["phase"], counts(e["result"])) for e in evs if e["kind"] == "submission.judged"
    ]
    fin = scrub(next(e for e in evs if e["kind"] == "attempt.finished"))
    # Whether a script whose last step falls near the time limit ends before the cutoff
    # ("agent done: script finished") or at it ("time limit reached", with the cutoff and
    # grace marks) moves with real judge latency x the time scale: seen both ways under
    # load for the same plan on one machine. Which of the two it was is not compared; what
    # the agent did (submissions, hashes, scores, feedback) is.
    raced = fin.get("reason") in {"agent done: script finished", "time limit reached"}
    if raced:
        fin["reason"] = "script finished or time limit reached"
    ends = {"clock.cutoff", "clock.grace_end"} if raced else set()
    return {
        "status": doc["status"],
        "finished": fin,
        "kinds": [e["kind"] for e in evs if e["kind"].startswith(key_kinds)],
        # The 80%/90% warnings an agent that ends early lives to see move with real latency
        # x the time scale (seen both ways under load); the cutoff and grace end with the
        # reason above.
        "clock": sorted(
            {e["kind"] for e in evs if e["kind"].startswith("clock.") and not e["kind"].endswith("_warning")} - ends
        ),
        "judged": judged,
        "hashes": [e["hash"] for e in evs if e["kind"] == "submission.received"],
        "submissions": [(s["submission"], s["feedback"] is not None) for s in doc["submissions"]],
    }


PLAN6 = [
    {"challenge": c, "agents": ["scripted:naive", "scripted:elite"]}
    for c in ("off-by-one", "rate-limiter", "task-store")
]


def test_plan_on_cluster_equals_local_run(cluster, tmp_path):
    # x30, not x60: a node's first sandbox command starts a few real seconds later than on
    # this machine (seen ~4 s under CI load: 4 minutes of a 15-minute clock at x60), and the
    # elite off-by-one script's second submission then fell past the cutoff on the cluster
    # only. At x30 the same script keeps minutes of margin, so what is compared is what the
    # agents did, not the nodes' start-up latency.
    # Both runs at once (most of an attempt is its script waiting on the clock: run one
    # after the other they took 7 minutes of CI, side by side about half that).
    plan = write_plan(tmp_path / "plan.yaml", PLAN6, scale=30)
    t0 = time.monotonic()
    local = gauntlet_popen("arena", plan, "--headless", "--store", tmp_path / "local.db")
    remote = gauntlet_popen(
        "arena", plan, "--headless", "--store", tmp_path / "cluster.db", "--cluster", cluster.address
    )
    try:  # both read at once: a full pipe must not stall the run not being read
        with ThreadPoolExecutor(2) as pool:
            (_, local_err), (_, remote_err) = pool.map(lambda p: p.communicate(timeout=900), (local, remote))
    finally:
        for proc in (local, remote):
            if proc.poll() is None:
                proc.kill()
    assert local.returncode == 0, local_err[-3000:]
    assert remote.returncode == 0, remote_err[-3000:]
    print(f"both runs {time.monotonic() - t0:.1f}s", file=sys.stderr)
    here, there = docs(tmp_path / "local.db"), docs(tmp_path / "cluster.db")
    assert len(here) == len(there) == 6 and set(here) == set(there)
    hosts = {d["node"]["host"] for d in there.values()}
    assert hosts <= {"w1", "w2"} and len(hosts) == 2, hosts
    for key in here:
        assert there[key]["node"]["id"] and there[key]["node"]["address"] in cluster.ips.values()
        a, b = comparable(here[key]), comparable(there[key])
        assert a["status"] == b["status"] == "finished", key
        assert a == b, key
        judged = [e for e in there[key]["events"] if e["kind"] == "submission.judged"]
        assert judged, key
    for key in here:  # the scorecards (gauntlet judge --json) of both runs
        sa = json.loads(gauntlet("judge", here[key]["attempt"], "--json", "--store", tmp_path / "local.db").stdout)
        sb = json.loads(gauntlet("judge", there[key]["attempt"], "--json", "--store", tmp_path / "cluster.db").stdout)
        # strategy (and so total) weighs when submissions came in attempt seconds: at a high
        # time scale real latency moves that by a few seconds between any two runs.
        same = ("scored_submission", "status", "flags", "trajectory")
        assert {k: sa.get(k) for k in same} == {k: sb.get(k) for k in same}, key
        # Process also reads the agent's observed actions: how many test runs and reads fell
        # between its edits, in which order, how far apart in attempt seconds. Two runs of the
        # same script, side by side under load, record those with other interleavings (seen
        # in CI: time_distribution +2 on one run and -2 on the other; test_driven_iteration
        # on one run only). Every rule computed from the submissions and their verdicts must
        # fire the same on both, the process difference is bounded by the telemetry rules'
        # difference, and objective and integrity must be identical.
        ca, cb = dict(sa["components"]), dict(sb["components"])
        assert abs(ca.pop("strategy") - cb.pop("strategy")) <= 10, key
        assert untimed(sa["process_adjustments"]) == untimed(sb["process_adjustments"]), key
        swing = abs(timed(sa["process_adjustments"]) - timed(sb["process_adjustments"]))
        assert abs(ca.pop("process") - cb.pop("process")) <= swing + 0.1 and ca == cb, key  # clamping only narrows


# The process rules that read the observed actions of each iteration (arena/scoring/process.py:
# the record's test runs, reads, edits, their order and timing), not only the submissions.
TELEMETRY_PROCESS_RULES = (
    "time_distribution",
    "diagnostic_first",
    "edits_without_reading",
    "no_local_validation",
    "test_driven_iteration",
    "shotgun_debugging",
    "scope_creep",
)


def untimed(adjustments: list[dict]) -> list[tuple[str, float]]:
    """The process adjustments computed from the submissions and their verdicts alone."""
    return sorted((a["rule"], a["points"]) for a in adjustments if a["rule"] not in TELEMETRY_PROCESS_RULES)


def timed(adjustments: list[dict]) -> float:
    return sum(a["points"] for a in adjustments if a["rule"] in TELEMETRY_PROCESS_RULES)


HOST_KEY = "sk-host-cluster-5e6f7a8b9c0d"
MODEL_AGENT = textwrap.dedent("""
    import hashlib, json, os, pathlib, sys, time, urllib.request, urllib.error
    digest = sys.argv[1]  # of the host's key: the key itself is never in this file
    def leaked(value):
        return hashlib.sha256(value).hexdigest() == digest
    hits = [k for k, v in os.environ.items() if leaked(v.encode())]
    for p in pathlib.Path("/proc").glob("[0-9]*/environ"):
        try:
            hits += [str(p) for kv in p.read_bytes().split(b"\\0") if leaked(kv.partition(b"=")[2])]
        except OSError:
            pass
    print("HITS", json.dumps(hits), flush=True)
    for i in range(3):
        req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
            data=json.dumps({"model": "m", "messages": [{"role": "user", "content": f"call {i}"}]}).encode(),
            headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                said = json.loads(r.read())["choices"][0]["message"]["content"]
                pathlib.Path("model_said.txt").write_text(said)
                print("CALL", r.status, said, f"{(time.monotonic() - t0) * 1000:.1f}ms", flush=True)
        except urllib.error.HTTPError as e:
            print("CALL", e.code, json.loads(e.read())["error"].get("limit"), flush=True)
""")


def _on_nodes(cluster, *needles: str) -> dict[str, dict[str, list[str]]]:
    """Where each needle is, per node: files under /tmp (Ray's session, object spill, the
    node's data), /root and /dev/shm (the object store), and every process's environment
    and command line. The needles come on stdin, so grep never matches itself."""
    script = (
        'read a; read b; grep -rsoaHF -D skip -e "$a" -e "$b" /tmp /root /dev/shm 2>/dev/null | sort -u; '
        "for d in /proc/[0-9]*; do case $d in /proc/$$) continue;; esac; "
        'for f in $d/environ $d/cmdline; do grep -soaF -e "$a" -e "$b" $f | sort -u | sed "s|^|$f:|"; '
        "done; done; true"
    )
    assert len(needles) == 2
    out = {}
    for node in ["head", *cluster.workers]:
        p = subprocess.run(
            ["docker", "exec", "-i", cluster.name(node), "sh", "-c", script],
            input="\n".join(needles) + "\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
        lines = p.stdout.splitlines()
        out[node] = {n: [ln[: -len(n) - 1] for ln in lines if ln.endswith(":" + n)] for n in needles}
    return out


def test_model_agent_on_a_node_uses_this_machines_gateway(cluster, tmp_path):
    from provider import FakeProvider

    agent = tmp_path / "model-agent.yaml"
    agent.write_text(
        yaml.safe_dump(
            {
                "name": "urllib-model-agent",
                "where": "sandbox",
                "model": "openai/fake-model",
                "limits": {"calls": 2},
                "command": ["python3", "-u", "-c", MODEL_AGENT, hashlib.sha256(HOST_KEY.encode()).hexdigest()],
            }
        )
    )
    db = tmp_path / "gw.db"
    turns = [{"content": "answer-one-7f3a9c"}, {"content": "answer-two-7f3a9c"}]
    with FakeProvider(turns) as fp:
        env = {"OPENAI_BASE_URL": fp.base_url, "OPENAI_API_KEY": HOST_KEY}
        run = gauntlet(
            "run",
            "off-by-one",
            "--agent",
            agent,
            "--headless",
            "--store",
            db,
            "--cluster",
            cluster.address,
            extra_env=env,
            timeout=300,
        )
        requests = list(fp.requests)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    (doc,) = docs(db).values()
    assert doc["node"]["host"] in cluster.workers, doc["node"]
    evs = doc["events"]
    out = "\n".join(e.get("text", "") for e in evs if e["kind"] == "agent.output")
    assert "HITS []" in out, out  # the key is not in the sandbox's environment or /proc
    assert "CALL 200 answer-one-7f3a9c" in out and "CALL 200 answer-two-7f3a9c" in out, out
    calls = [e for e in evs if e["kind"] == "model.call"]
    assert [c["status"] for c in calls] == [200, 200, 429], calls
    print(
        "through relay, tunnel and gateway (agent's view):",
        re.findall(r"CALL 200 \S+ (\S+)", out),
        "; at the gateway:",
        [c["latency_ms"] for c in calls[:2]],
        file=sys.stderr,
    )
    assert all(c["provider"] == "openai" and c["model"] == "fake-model" for c in calls)
    assert calls[0]["input_tokens"] > 0 and calls[0]["output_tokens"] > 0
    reached = [e for e in evs if e["kind"] == "limit.reached"]
    assert [(e["limit"], e["used"], e["allowed"]) for e in reached] == [("calls", 2, 2)]
    fin = next(e for e in evs if e["kind"] == "attempt.finished")
    assert doc["status"] == "finished" and "usage limit reached" in fin["reason"], fin
    # every model.call counts (arena/usage.py): the two answered and the one refused at the limit
    u = doc["usage"]
    assert (u["calls"], u["calls_ok"], u["calls_refused"]) == (3, 2, 1), u
    # the provider saw the calls with this machine's key, never the attempt's token
    assert len(requests) == 2 and all(r["headers"]["Authorization"] == f"Bearer {HOST_KEY}" for r in requests)
    transcript = gauntlet("show", doc["attempt"], "--transcript", "--store", db).stdout
    assert "answer-two-7f3a9c" in transcript and HOST_KEY not in transcript
    # nothing shipped to a node holds the key; the same search finds the model's answer there
    found = _on_nodes(cluster, HOST_KEY, "answer-two-7f3a9c")
    assert not any(f[HOST_KEY] for f in found.values()), found
    assert found[doc["node"]["host"]]["answer-two-7f3a9c"], found


def _node_line(out: str, host: str) -> str:
    return next(line for line in out.splitlines() if line[5:].split()[:1] == [host])


def test_doctor_checks_every_node(cluster):
    ok = gauntlet("doctor", "--cluster", cluster.address, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr[-2000:]
    assert f"cluster {cluster.address}: 3 node(s), 4 gauntlet_slot(s)" in ok.stdout
    for host in ("head", "w1", "w2"):
        line = _node_line(ok.stdout, host)
        assert line.startswith("ok ") and "a sandbox ran python3" in line, line
        assert cluster.ips[host] in line
    assert "2 slots" in _node_line(ok.stdout, "w1") and "head, 0 slots" in _node_line(ok.stdout, "head")
    w2 = cluster.name("w2")  # w2 loses its sandbox backend for a moment
    subprocess.run(["docker", "exec", w2, "mv", "/usr/bin/bwrap", "/usr/bin/bwrap.off"], check=True)
    try:
        bad = gauntlet("doctor", "--cluster", cluster.address, timeout=300)
    finally:
        subprocess.run(["docker", "exec", w2, "mv", "/usr/bin/bwrap.off", "/usr/bin/bwrap"], check=True)
    assert bad.returncode == 1, bad.stdout + bad.stderr[-2000:]
    line = _node_line(bad.stdout, "w2")
    assert line.startswith("MISS") and "bubblewrap" in line and "fix: apt-get install -y bubblewrap" in line, line
    assert _node_line(bad.stdout, "w1").startswith("ok ")
    assert "NOT ready" in bad.stdout


async def test_tui_on_cluster_equals_headless(cluster, tmp_path):
    """The TUI's engine (run_cmd.tui_app, driven by the pilot) and a headless run of the
    same plan, both with --cluster, at the same time on the same nodes."""
    import asyncio

    from arena.challenge import load_challenge, resolve_challenge
    from arena.cluster import connect
    from arena.sandbox import get_backend
    from gauntlet_tui.cli.run_cmd import tui_app
    from gauntlet_tui.widgets import AttemptTable
    from gauntlet_tui.widgets.cluster_line import ClusterLine

    # x20, not x60: real latency (two runs at once on a shared machine) is multiplied by the
    # scale, and at x60 a loaded machine pushes the elite's 2nd submission past the cutoff
    entries = [{"challenge": "off-by-one", "agents": ["scripted:naive", "scripted:elite"]}]
    plan = write_plan(tmp_path / "plan.yaml", entries, scale=20)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_SOCKETS": "/tmp/gs-cluster"}
    env.pop("RAY_ADDRESS", None)
    headless = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "arena",
            str(plan),
            "--headless",
            "--store",
            str(tmp_path / "headless.db"),
            "--cluster",
            cluster.address,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    challenge = load_challenge(resolve_challenge("off-by-one"))
    jobs = [(challenge, "scripted:naive", 20.0), (challenge, "scripted:elite", 20.0)]
    placer = connect(cluster.address)
    db = tmp_path / "tui.db"
    try:
        app, done = tui_app(
            db, get_backend("local"), jobs, parallel=2, kind="arena", argv={"plan": str(plan)}, cluster=placer
        )
        async with app.run_test(size=(170, 24)) as pilot:
            deadline = time.monotonic() + 300
            while not done["statuses"] and time.monotonic() < deadline:
                await pilot.pause(0.5)  # the attempts run on the nodes, in real time
            assert done["statuses"] == ["finished", "finished"], done
            app.tick(full=True)
            await pilot.pause()
            home = next(s for s in app.screen_stack if type(s).__name__ == "HomeScreen")  # under the Standings
            table = home.query_one(AttemptTable)
            assert "Node" in [c.label.plain for c in table.columns.values()]
            nodes = {str(table.get_cell(a, "node")) for a in done["ids"]}
            assert nodes <= {"w1", "w2"} and nodes, nodes
            assert app.cluster is not None and app.cluster.polls >= 1
            line = home.query_one(ClusterLine)
            assert line.display and "2 nodes" not in line.text and "w1" in line.text and "w2" in line.text
            assert "3 nodes · 4 slots" in line.text
            if os.environ.get("GAUNTLET_SHOTS"):  # for a person to look at
                Path(os.environ["GAUNTLET_SHOTS"]).mkdir(parents=True, exist_ok=True)
                app.save_screenshot("cluster_tui_run.svg", os.environ["GAUNTLET_SHOTS"])
    finally:
        placer.close()
    out, err = await asyncio.to_thread(headless.communicate, timeout=300)
    assert headless.returncode == 0, err[-3000:]
    tui, head = docs(db), docs(tmp_path / "headless.db")
    assert set(tui) == set(head) and len(tui) == 2
    for key in tui:
        assert tui[key]["node"]["host"] in ("w1", "w2")
        a, b = comparable(tui[key]), comparable(head[key])
        # which clock marks an attempt reaches moves with real latency times the scale (the
        # two runs share the nodes and the machine): everything else must be equal
        a.pop("clock"), b.pop("clock")
        assert a == b, key


async def test_tui_stop_on_cluster_ends_attempts_interrupted(cluster, tmp_path):
    """Quitting the live TUI while attempts run on nodes (q, then y): each ends
    ``interrupted`` on its node within seconds, its last events committed here."""
    from arena.challenge import load_challenge, resolve_challenge
    from arena.cluster import connect
    from arena.sandbox import get_backend
    from gauntlet_tui.cli.run_cmd import tui_app

    challenge = load_challenge(resolve_challenge("off-by-one"))
    jobs = [(challenge, "scripted:naive", 5.0), (challenge, "scripted:elite", 5.0)]  # slow: still running
    placer = connect(cluster.address)
    db = tmp_path / "stop.db"
    try:
        app, done = tui_app(db, get_backend("local"), jobs, parallel=2, kind="arena", argv={}, cluster=placer)
        async with app.run_test(size=(170, 24)) as pilot:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline and not (
                done["ids"] and all(app.adapter.is_live(a) for a in done["ids"])
            ):
                await pilot.pause(0.5)  # until both have started on their nodes
            assert done["ids"] and all(app.adapter.is_live(a) for a in done["ids"]), done
            await pilot.press("q")
            await pilot.pause(0.5)
            await pilot.press("y")
            t0 = time.monotonic()
            while not done["statuses"] and time.monotonic() - t0 < 60:
                await pilot.pause(0.2)
            stopped_in = time.monotonic() - t0
    finally:
        placer.close()
    assert done["statuses"] == ["interrupted", "interrupted"], done
    assert stopped_in < 15, stopped_in  # not the driver's 20 s grace: the node answered
    final = docs(db)
    assert len(final) == 2
    for d in final.values():
        assert d["status"] == "interrupted" and d["node"]["host"] in ("w1", "w2")
        fin = [e for e in d["events"] if e["kind"] == "attempt.finished"]
        assert len(fin) == 1 and fin[0]["status"] == "interrupted"


def _committed(db: Path) -> list[tuple[str, str, dict]]:
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return [
            (a, k, json.loads(d))
            for a, k, d in con.execute("SELECT attempt, kind, data FROM events ORDER BY attempt, seq")
        ]
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def test_node_lost_mid_attempt(cluster, tmp_path):
    entries = [
        {"challenge": "task-store", "agents": ["scripted:elite", "scripted:standard"]},
        {"challenge": "rate-limiter", "agents": ["scripted:elite", "scripted:standard"]},
    ]
    plan = write_plan(tmp_path / "plan.yaml", entries, scale=60)
    db = tmp_path / "lost.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GAUNTLET_SOCKETS": "/tmp/gs-cluster"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gauntlet_tui",
            "arena",
            str(plan),
            "--headless",
            "--store",
            str(db),
            "--cluster",
            cluster.address,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    victim, acked = None, {}
    deadline = time.monotonic() + 300
    try:
        while victim is None and time.monotonic() < deadline and proc.poll() is None:
            rows = _committed(db)
            host = {a: d["node"]["host"] for a, k, d in rows if k == "attempt.started"}
            done = {a for a, k, _ in rows if k == "attempt.finished"}
            for a, k, d in rows:
                if k == "feedback.delivered" and a not in done:
                    victim = host[a]
                    break
            if victim is None:
                time.sleep(0.2)  # polling a real store file written by another process
        assert victim is not None, "no attempt had an acknowledged submission in time"
        rows = _committed(db)
        host = {a: d["node"]["host"] for a, k, d in rows if k == "attempt.started"}
        for a, k, d in rows:
            if k == "feedback.delivered":
                acked.setdefault(a, set()).add(d["submission"])
        cluster.kill(victim)
        out, err = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err[-3000:]  # an attempt ended in an infrastructure error
    final = docs(db)
    assert len(final) == 4
    lost = [d for d in final.values() if d["node"]["host"] == victim]
    assert lost and all(d["status"] == "infra_error" for d in lost)
    for d in lost:
        infra = [e for e in d["events"] if e["kind"] == "infra.error"]
        assert infra and victim in infra[-1]["detail"] and infra[-1]["source"] == "node"
    others = [d for d in final.values() if d["node"]["host"] != victim]
    assert others and all(d["status"] == "finished" for d in others)
    for d in final.values():  # acknowledged submissions are all still there, with feedback
        kept = {s["submission"] for s in d["submissions"] if s["feedback"]}
        assert acked.get(d["attempt"], set()) <= kept, d["attempt"]
        assert sum(e["kind"] == "attempt.finished" for e in d["events"]) == 1
