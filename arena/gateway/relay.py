#!/usr/bin/env python3
"""The gateway relay, run INSIDE a sandbox: 127.0.0.1:PORT -> the bind-mounted unix socket.

Standard library only (any python3 >= 3.8), mounted read-only into the sandbox. The
sandbox has no network but its own loopback; each TCP connection accepted on
``127.0.0.1:PORT`` is joined byte for byte, both ways, to a new connection to ``--unix``
(the attempt's ``gateway.sock``), so streamed answers flow through as they come.

    python3 relay.py --port 4000 --unix /run/gauntlet/gateway.sock            # foreground
    python3 relay.py --port 4000 --unix /run/gauntlet/gateway.sock -- AGENT ARGV...

With an agent argv the relay binds and listens first, forks itself into the background
(stdio to /dev/null, same process group, ends when the agent ends) and then execs the
agent in its own process: the agent's first connection can never be refused. ``--port 0``
(foreground only) picks a free port; the relay prints ``READY <port>`` once listening.
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import sys

CHUNK = 64 * 1024


def _bad_gateway(detail):
    body = json.dumps({"error": {"type": "relay_error", "message": detail}}).encode()
    return (
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
    )


async def _pump(reader, writer):
    try:
        while True:
            data = await reader.read(CHUNK)
            if not data:
                break
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass


async def _serve_one(path, c_reader, c_writer):
    sock = c_writer.get_extra_info("socket")
    if sock is not None:  # asyncio skips this for sockets made with proto 0: 40 ms stalls
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
    try:
        u_reader, u_writer = await asyncio.open_unix_connection(path)
    except OSError as exc:
        c_writer.write(_bad_gateway(f"gateway socket {path} unreachable: {exc}"))
        try:
            await c_writer.drain()
        except OSError:
            pass
        c_writer.close()
        return
    try:
        await asyncio.gather(_pump(c_reader, u_writer), _pump(u_reader, c_writer))
    finally:
        for w in (u_writer, c_writer):
            w.close()


async def _main(lsock, path, watch_parent=None):
    server = await asyncio.start_server(lambda r, w: _serve_one(path, r, w), sock=lsock, limit=CHUNK)
    async with server:
        if watch_parent is None:
            await server.serve_forever()
        while os.getppid() == watch_parent:  # the agent (our parent, exec'd) still runs
            await asyncio.sleep(0.5)


def listen(port, host="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(256)
    return s


def _set_pdeathsig():
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 — the ppid poll still ends us
        pass


def _daemon(lsock, path, parent):
    _set_pdeathsig()
    if os.getppid() != parent:
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    keep = lsock.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, 65536)
    try:
        asyncio.run(_main(lsock, path, watch_parent=parent))
    finally:
        os._exit(0)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    agent = []
    if "--" in argv:
        i = argv.index("--")
        argv, agent = argv[:i], argv[i + 1 :]
    ap = argparse.ArgumentParser(prog="relay.py", description=__doc__.splitlines()[1])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--unix", required=True, help="the gateway's unix socket")
    ap.add_argument("--host", default="127.0.0.1")
    args = ap.parse_args(argv)
    if not os.path.exists(args.unix):
        print(f"relay: warning: gateway socket {args.unix} does not exist", file=sys.stderr)
    try:
        lsock = listen(args.port, args.host)
    except OSError as exc:
        print(f"relay: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    if not agent:
        print(f"READY {lsock.getsockname()[1]}", flush=True)
        try:
            asyncio.run(_main(lsock, args.unix))
        except KeyboardInterrupt:
            pass
        return 0
    parent = os.getpid()
    if os.fork() == 0:
        _daemon(lsock, args.unix, parent)
    lsock.close()
    try:
        os.execvp(agent[0], agent)
    except OSError as exc:
        print(f"relay: cannot run {agent[0]}: {exc}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main())
