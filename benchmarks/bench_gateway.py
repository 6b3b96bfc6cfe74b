"""Added latency of a model call through the gateway against the same call made directly.

    python benchmarks/bench_gateway.py [--calls 400] [--batch 50] [--where sandbox|host]
                                       [--series chat,chat-stream,responses,messages]

Three processes besides this one: the stand-in provider (its own process, one aiohttp
server: Chat Completions from tests/gateway/gw_upstream.py, and the OpenAI Responses and
Anthropic Messages streams of tests/fakes/responses_provider.py and anthropic_provider.py,
event for event as those APIs stream), the gateway (in this process's event loop, as in the
arena) and a stdlib HTTP client that makes the calls and times each one to the last byte
of the answer (one keep-alive connection per batch, as SDK clients do). Direct: the client
on the host calls the provider. Through: the client runs inside a local bubblewrap sandbox
(``--where sandbox``, the default; no network) behind relay.py, so each call goes sandbox
client -> relay (127.0.0.1 in the sandbox) -> the attempt's unix socket -> gateway -> provider;
``--where host`` runs the client and relay on the host instead. Batches of the two series
alternate, so machine load hits both alike. Four series: Chat Completions not streamed
and streamed, ``POST /v1/responses`` streamed (Responses SSE, to ``response.completed``)
and ``POST /v1/messages`` streamed (Anthropic SSE, to ``message_stop``); p50 and p99.
Targets (issues 10, 21): <= 3 ms added at p50, <= 15 ms at p99, on each.
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
sys.path.insert(0, str(ROOT / "tests" / "fakes"))

from arena.gateway import (  # noqa: E402
    RELAY_PATH,
    RELAY_PORT,
    SANDBOX_RELAY_DIR,
    SANDBOX_SOCKET_DIR,
    Gateway,
    UsageLimits,
    wrap_agent_argv,
)

TARGET_P50, TARGET_P99 = 0.003, 0.015
# series -> (path called, streamed, the attempt's model: its provider picks the upstream)
SERIES = {
    "chat": ("/v1/chat/completions", False, "openai/gpt-4.1-mini"),
    "chat-stream": ("/v1/chat/completions", True, "openai/gpt-4.1-mini"),
    "responses": ("/v1/responses", True, "openai/gpt-4.1-mini"),
    "messages": ("/v1/messages", True, "anthropic/claude-sonnet-4-20250514"),
}
LABELS = {"chat": "chat", "chat-stream": "chat, streamed", "responses": "responses, SSE", "messages": "messages, SSE"}
CLIENT = r"""
import http.client, json, sys, time
host, port, path, token, stream, n, warm = sys.argv[1:8]
port, n, warm = int(port), int(n), int(warm)
stream = stream == "1"
msgs = [{"role": "user", "content": "hi"}]
hdrs = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
if path == "/v1/responses":
    body = {"model": "gpt-4.1-mini", "stream": stream, "input": msgs}
    last = b"event: response.completed\n"
elif path == "/v1/messages":
    body = {"model": "claude-sonnet-4-20250514", "stream": stream, "max_tokens": 256, "messages": msgs,
            "tools": [{"name": "bash", "input_schema": {"type": "object"}}]}
    hdrs.update({"x-api-key": token, "anthropic-version": "2023-06-01"})
    last = b"event: message_stop\n"
else:
    body = {"model": "gpt-4.1-mini", "stream": stream, "messages": msgs}
    last = b"data: [DONE]\n\n"
body = json.dumps(body).encode()
conn = http.client.HTTPConnection(host, port, timeout=30)
out = []
for i in range(warm + n):
    t = time.perf_counter()
    conn.request("POST", path, body, hdrs)
    r = conn.getresponse()
    data = r.read()
    dt = time.perf_counter() - t
    tail = data[data.rfind(b"event: "):] if path != "/v1/chat/completions" else data[-len(last):]
    if r.status != 200 or (stream and not tail.startswith(last)):
        sys.exit(f"bad answer {r.status}: {data[-300:]!r}")
    if i >= warm:
        out.append(dt)
print(json.dumps(out))
"""


def serve_upstream() -> None:
    """``--serve-upstream``: run the stand-in provider until stdin closes: Chat Completions
    (gw_upstream's), and the Responses and Messages streams of tests/fakes, on one aiohttp
    server with keep-alive (the fakes' own stdlib servers close the connection after each
    stream, which would time a TCP connect into every call)."""
    from aiohttp import web  # noqa: PLC0415
    from anthropic_provider import AnthropicProvider  # noqa: PLC0415
    from gw_upstream import FakeUpstream  # noqa: PLC0415
    from responses_provider import ResponsesProvider  # noqa: PLC0415

    chat = FakeUpstream()
    fakes = {"/v1/responses": ResponsesProvider([]), "/v1/messages": AnthropicProvider([])}

    async def sse(request: web.Request) -> web.StreamResponse:
        fake = fakes[request.path]
        body = await request.json()
        events = fake.events(body, fake.pick(body))  # the fake's own stream, event for event
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for kind, data in events:
            await resp.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
        await resp.write_eof()
        return resp

    async def run():
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat._openai)
        for path in fakes:
            app.router.add_post(path, sse)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        print(site._server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await runner.cleanup()

    asyncio.run(run())


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


async def run_client(argv: list[str], env: dict | None = None) -> list[float]:
    p = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    out, err = await p.communicate()
    if p.returncode != 0:
        raise SystemExit(f"client failed: {err.decode()[-500:]}")
    return json.loads(out)


async def main(calls: int, batch: int, where: str, series: list[str]) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="gw-bench-", dir="/tmp"))
    up = subprocess.Popen(
        [sys.executable, __file__, "--serve-upstream"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    port = int(up.stdout.readline())
    env = {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": "sk-bench",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-ant-bench",
    }
    gw = Gateway(root=tmp / "gw", env=env)
    await gw.start()
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "client.py").write_text(CLIENT)
    grants, boxes = {}, {}  # per provider: its attempt's grant, and (sandbox) its sandbox
    results: dict[tuple[str, str], list[float]] = {}
    try:
        for name in series:
            model = SERIES[name][2]
            prov = model.split("/")[0]
            if prov in grants:
                continue
            grants[prov] = gw.register(f"bench-{prov}", model=model, limits=UsageLimits(), emit=lambda kind, data: None)
            if where == "sandbox":
                from arena.sandbox import Limits, Mount, get_backend  # noqa: PLC0415

                box_ws = tmp / f"ws-{prov}"  # a workspace per sandbox (its quota mount)
                box_ws.mkdir()
                (box_ws / "client.py").write_text(CLIENT)
                boxes[prov] = sb = await get_backend("local").create(
                    box_ws,
                    Limits(wall_s=120),
                    mounts=[
                        Mount(grants[prov].socket_dir, SANDBOX_SOCKET_DIR, True),
                        Mount(Path(RELAY_PATH).parent, SANDBOX_RELAY_DIR, True),
                    ],
                )
                gw.allow_uid(f"bench-{prov}", sb.uid)  # the socket is the sandbox user's alone
        for name in series:
            path, stream, model = SERIES[name]
            grant, sb = grants[model.split("/")[0]], boxes.get(model.split("/")[0])
            s = "1" if stream else "0"
            direct = [
                sys.executable,
                str(ws / "client.py"),
                "127.0.0.1",
                str(port),
                path,
                "sk-bench",
                s,
                str(batch),
                "5",
            ]
            for k in range(max(1, calls // batch)):
                order = ("direct", "gateway") if k % 2 == 0 else ("gateway", "direct")
                for how in order:
                    if how == "direct":
                        lat = await run_client(direct)
                    elif sb is not None:
                        argv = wrap_agent_argv(
                            [
                                "python3",
                                "/workspace/client.py",
                                "127.0.0.1",
                                str(RELAY_PORT),
                                path,
                                grant.token,
                                s,
                                str(batch),
                                "5",
                            ],
                            RELAY_PORT,
                        )
                        r = await sb.exec(argv, env=grant.sandbox_env(RELAY_PORT), timeout=120)
                        if r.exit_code != 0:
                            raise SystemExit(f"sandbox client failed: {r.stderr.decode()}")
                        lat = json.loads(r.stdout)
                    else:
                        rport = 20000 + os.getpid() % 20000
                        argv = wrap_agent_argv(
                            [
                                sys.executable,
                                str(ws / "client.py"),
                                "127.0.0.1",
                                str(rport),
                                path,
                                grant.token,
                                s,
                                str(batch),
                                "5",
                            ],
                            rport,
                            str(grant.socket_path),
                            relay=RELAY_PATH,
                            python=sys.executable,
                        )
                        lat = await run_client(argv)
                    results.setdefault((how, name), []).extend(lat)
    finally:
        for sb in boxes.values():
            await sb.close()
        await gw.aclose()
        up.stdin.close()
        up.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    n = len(results[("direct", series[0])])
    print(
        f"{n} calls per series, batches of {batch} alternating; client "
        f"{'inside a local sandbox' if boxes else 'on the host'} behind relay.py; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(
        f"{'series':16} {'direct p50':>11} {'gw p50':>9} {'added p50':>10} {'ratio':>6} "
        f"{'direct p99':>11} {'gw p99':>9} {'added p99':>10}  targets <= 3 / 15 ms"
    )
    ok = True
    for name in series:
        d, g = results[("direct", name)], results[("gateway", name)]
        a50, a99 = pct(g, 0.5) - pct(d, 0.5), pct(g, 0.99) - pct(d, 0.99)
        met = a50 <= TARGET_P50 and a99 <= TARGET_P99
        ok &= met
        print(
            f"{LABELS[name]:16} {pct(d, 0.5) * 1e3:9.2f}ms "
            f"{pct(g, 0.5) * 1e3:7.2f}ms {a50 * 1e3:8.2f}ms {pct(g, 0.5) / pct(d, 0.5):6.2f} "
            f"{pct(d, 0.99) * 1e3:9.2f}ms {pct(g, 0.99) * 1e3:7.2f}ms {a99 * 1e3:8.2f}ms  "
            f"{'met' if met else 'MISSED'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve-upstream"]:
        serve_upstream()
        sys.exit(0)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--where", choices=("sandbox", "host"), default="sandbox")
    ap.add_argument(
        "--series", default=",".join(SERIES), help=f"comma-separated, of {', '.join(SERIES)} (default: all)"
    )
    a = ap.parse_args()
    chosen = [x.strip() for x in a.series.split(",") if x.strip()]
    bad = [x for x in chosen if x not in SERIES]
    if bad or not chosen:
        ap.error(f"--series: unknown {', '.join(bad) or '(none given)'}; expected some of {', '.join(SERIES)}")
    sys.exit(asyncio.run(main(a.calls, a.batch, a.where, chosen)))
