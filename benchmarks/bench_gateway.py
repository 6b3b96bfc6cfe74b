"""Added latency of a model call through the gateway against the same call made directly.

    python benchmarks/bench_gateway.py [--calls 400] [--batch 50] [--where sandbox|host]

Three processes besides this one: the fake provider of the tests (tests/gateway/
gw_upstream.py, its own process), the gateway (in this process's event loop, as in the
arena) and a stdlib HTTP client that makes the calls and times each one to the last byte
of the answer (one keep-alive connection per batch, as SDK clients do). Direct: the client
on the host calls the provider. Through: the client runs inside a local bubblewrap sandbox
(``--where sandbox``, the default; no network) behind relay.py, so each call goes sandbox
client -> relay (127.0.0.1 in the sandbox) -> the attempt's unix socket -> gateway -> provider;
``--where host`` runs the client and relay on the host instead. Batches of the two series
alternate, so machine load hits both alike. Streamed and not; p50 and p99.
Targets (issue 10): <= 3 ms added at p50, <= 15 ms at p99.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "gateway"))

from arena.gateway import (RELAY_PATH, RELAY_PORT, SANDBOX_RELAY_DIR,  # noqa: E402
                           SANDBOX_SOCKET_DIR, Gateway, UsageLimits, wrap_agent_argv)

TARGET_P50, TARGET_P99 = 0.003, 0.015
CLIENT = r'''
import http.client, json, sys, time
host, port, path, token, stream, n, warm = sys.argv[1:8]
port, n, warm = int(port), int(n), int(warm)
body = json.dumps({"model": "gpt-4.1-mini", "stream": stream == "1",
                   "messages": [{"role": "user", "content": "hi"}]}).encode()
hdrs = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
conn = http.client.HTTPConnection(host, port, timeout=30)
out = []
for i in range(warm + n):
    t = time.perf_counter()
    conn.request("POST", path, body, hdrs)
    r = conn.getresponse()
    data = r.read()
    dt = time.perf_counter() - t
    if r.status != 200 or (stream == "1" and not data.endswith(b"data: [DONE]\n\n")):
        sys.exit(f"bad answer {r.status}: {data[:200]!r}")
    if i >= warm:
        out.append(dt)
print(json.dumps(out))
'''


def serve_upstream() -> None:
    """``--serve-upstream``: run the fake provider until stdin closes."""
    from gw_upstream import FakeUpstream  # noqa: PLC0415

    async def run():
        up = await FakeUpstream().start()
        print(up.port, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await up.aclose()
    asyncio.run(run())


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


async def run_client(argv: list[str], env: dict | None = None) -> list[float]:
    p = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE,
                                             stderr=asyncio.subprocess.PIPE, env=env)
    out, err = await p.communicate()
    if p.returncode != 0:
        raise SystemExit(f"client failed: {err.decode()[-500:]}")
    return json.loads(out)


async def main(calls: int, batch: int, where: str) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="gw-bench-", dir="/tmp"))
    up = subprocess.Popen([sys.executable, __file__, "--serve-upstream"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    port = int(up.stdout.readline())
    env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "sk-bench"}
    gw = Gateway(root=tmp / "gw", env=env)
    await gw.start()
    grant = gw.register("bench", model="openai/gpt-4.1-mini", limits=UsageLimits(),
                        emit=lambda kind, data: None)
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "client.py").write_text(CLIENT)
    sb = None
    if where == "sandbox":
        from arena.sandbox import Limits, Mount, get_backend  # noqa: PLC0415

        sb = await get_backend("local").create(ws, Limits(wall_s=120), mounts=[
            Mount(grant.socket_dir, SANDBOX_SOCKET_DIR, True),
            Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True)])
    results: dict[tuple[str, bool], list[float]] = {}
    try:
        for stream in (False, True):
            s = "1" if stream else "0"
            direct = [sys.executable, str(ws / "client.py"), "127.0.0.1", str(port),
                      "/v1/chat/completions", "sk-bench", s, str(batch), "5"]
            for k in range(max(1, calls // batch)):
                order = ("direct", "gateway") if k % 2 == 0 else ("gateway", "direct")
                for name in order:
                    if name == "direct":
                        lat = await run_client(direct)
                    elif sb is not None:
                        argv = wrap_agent_argv(
                            ["python3", "/workspace/client.py", "127.0.0.1", str(RELAY_PORT),
                             "/v1/chat/completions", grant.token, s, str(batch), "5"],
                            RELAY_PORT)
                        r = await sb.exec(argv, env=grant.sandbox_env(RELAY_PORT), timeout=120)
                        if r.exit_code != 0:
                            raise SystemExit(f"sandbox client failed: {r.stderr.decode()}")
                        lat = json.loads(r.stdout)
                    else:
                        rport = 20000 + os.getpid() % 20000
                        argv = wrap_agent_argv(
                            [sys.executable, str(ws / "client.py"), "127.0.0.1", str(rport),
                             "/v1/chat/completions", grant.token, s, str(batch), "5"],
                            rport, str(grant.socket_path), relay=RELAY_PATH,
                            python=sys.executable)
                        lat = await run_client(argv)
                    results.setdefault((name, stream), []).extend(lat)
    finally:
        if sb is not None:
            await sb.close()
        await gw.aclose()
        up.stdin.close()
        up.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    n = len(results[("direct", False)])
    print(f"{n} calls per series, batches of {batch} alternating; client "
          f"{'inside a local sandbox' if sb else 'on the host'} behind relay.py; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'series':12} {'direct p50':>11} {'gw p50':>9} {'added p50':>10} {'ratio':>6} "
          f"{'direct p99':>11} {'gw p99':>9} {'added p99':>10}  targets <= 3 / 15 ms")
    ok = True
    for stream in (False, True):
        d, g = results[("direct", stream)], results[("gateway", stream)]
        a50, a99 = pct(g, .5) - pct(d, .5), pct(g, .99) - pct(d, .99)
        met = a50 <= TARGET_P50 and a99 <= TARGET_P99
        ok &= met
        print(f"{'streamed' if stream else 'not streamed':12} {pct(d, .5) * 1e3:9.2f}ms "
              f"{pct(g, .5) * 1e3:7.2f}ms {a50 * 1e3:8.2f}ms {pct(g, .5) / pct(d, .5):6.2f} "
              f"{pct(d, .99) * 1e3:9.2f}ms {pct(g, .99) * 1e3:7.2f}ms {a99 * 1e3:8.2f}ms  "
              f"{'met' if met else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve-upstream"]:
        serve_upstream()
        sys.exit(0)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--where", choices=("sandbox", "host"), default="sandbox")
    a = ap.parse_args()
    sys.exit(asyncio.run(main(a.calls, a.batch, a.where)))
