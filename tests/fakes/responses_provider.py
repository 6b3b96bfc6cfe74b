"""A stand-in for the OpenAI Responses API (``POST /v1/responses``, streamed as the real
API streams), replaying a script of turns, for Codex CLI tests (issue 21).

    with ResponsesProvider([{"call": "shell", "arguments": {"command": ["cat", "x"]}},
                            {"text": "Done."}]) as fp:
        env = {"OPENAI_BASE_URL": fp.base_url, "OPENAI_API_KEY": "k"}
        fp.requests  # every request: {"path", "headers", "body"}

A turn is ``{"text": TEXT}`` (an assistant message) or ``{"call": NAME, "arguments":
MAPPING}`` (a ``function_call`` item), optionally with ``when: REGEX`` matched against
the last input item's text (a user message or a function_call_output; ``"$1"`` in the
arguments is the match's first group, ``repeat: true`` answers every match); the first
unused turn without ``when`` answers otherwise. Streams are server-sent events with ``event:``
lines: response.created, response.in_progress, response.output_item.added, the text
deltas or function-call argument deltas, response.output_item.done and
response.completed with ``usage`` (input tokens = words of the input, output = words of
the answer, ``cached_tokens`` a fixed 3 and ``reasoning_tokens`` a fixed 2 so the tests
can check they are read). ``GET /v1/models`` lists the model.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _words(obj: Any) -> int:
    return max(1, len(json.dumps(obj).split()))


def _last_text(body: dict) -> str:
    items = body.get("input")
    if isinstance(items, str):
        return items
    for item in reversed(items or []):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call_output":
            out = item.get("output")
            return out if isinstance(out, str) else json.dumps(out)
        if item.get("role") == "user":
            c = item.get("content")
            if isinstance(c, list):
                return " ".join(p.get("text", "") for p in c if isinstance(p, dict))
            return str(c or "")
    return ""


def _filled(turn: dict, m: re.Match) -> dict:
    """``"$1"`` in a turn's arguments is the ``when`` match's first group (a number when it
    is digits): a model answering what the tool said, e.g. polling the session id that Codex
    gives a command still running after its 30 s yield."""
    args = turn.get("arguments")
    if not isinstance(args, dict) or "$1" not in args.values():
        return turn
    g = m.group(1)
    value: Any = int(g) if g.isdigit() else g
    return {**turn, "arguments": {k: value if v == "$1" else v for k, v in args.items()}}


class ResponsesProvider:
    CACHED, REASONING = 3, 2

    def __init__(self, turns: list[dict], model: str = "fake-model", exhausted: str = "I am done.") -> None:
        self.turns = [dict(t) for t in turns]
        self.used = [False] * len(self.turns)
        self.model, self.exhausted = model, exhausted
        self.requests: list[dict] = []
        self.usages: list[dict] = []  # the usage of every answer, in order
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- answers ----------------------------------------------------------------------
    def pick(self, body: dict) -> dict:
        last = _last_text(body)
        with self._lock:
            for i, t in enumerate(self.turns):
                m = re.search(t["when"], last, re.S) if t.get("when") and not self.used[i] else None
                if m:
                    self.used[i] = not t.get("repeat")  # ``repeat: true``: answers every match
                    return _filled(t, m)
            for i, t in enumerate(self.turns):
                if not self.used[i] and not t.get("when"):
                    self.used[i] = True
                    return t
        return {"text": self.exhausted}

    def events(self, body: dict, turn: dict) -> list[tuple[str, dict]]:
        n = len(self.requests)
        rid = f"resp_fake_{n}"
        base = {
            "id": rid,
            "object": "response",
            "created_at": int(time.time()),
            "model": self.model,
            "status": "in_progress",
            "output": [],
        }
        out: list[tuple[str, dict]] = [
            ("response.created", {"response": base}),
            ("response.in_progress", {"response": base}),
        ]
        if "call" in turn:
            args = turn.get("arguments", {})
            args = args if isinstance(args, str) else json.dumps(args)
            item = {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": turn["call"],
                "arguments": "",
                "status": "in_progress",
            }
            if turn.get("namespace"):  # a tool of a namespace tool (Codex's MCP servers: mcp__NAME)
                item["namespace"] = turn["namespace"]
            out.append(("response.output_item.added", {"output_index": 0, "item": item}))
            for i in range(0, len(args), 30):
                out.append(
                    (
                        "response.function_call_arguments.delta",
                        {"item_id": item["id"], "output_index": 0, "delta": args[i : i + 30]},
                    )
                )
            done = {**item, "arguments": args, "status": "completed"}
            out.append(
                ("response.function_call_arguments.done", {"item_id": item["id"], "output_index": 0, "arguments": args})
            )
        else:
            text = turn["text"]
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "in_progress", "content": []}
            out.append(("response.output_item.added", {"output_index": 0, "item": item}))
            part = {"type": "output_text", "text": "", "annotations": []}
            out.append(
                (
                    "response.content_part.added",
                    {"item_id": item["id"], "output_index": 0, "content_index": 0, "part": part},
                )
            )
            for i in range(0, len(text), 20):
                out.append(
                    (
                        "response.output_text.delta",
                        {"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": text[i : i + 20]},
                    )
                )
            out.append(
                (
                    "response.output_text.done",
                    {"item_id": item["id"], "output_index": 0, "content_index": 0, "text": text},
                )
            )
            done = {**item, "status": "completed", "content": [{**part, "text": text}]}
            out.append(
                (
                    "response.content_part.done",
                    {"item_id": item["id"], "output_index": 0, "content_index": 0, "part": done["content"][0]},
                )
            )
        out.append(("response.output_item.done", {"output_index": 0, "item": done}))
        usage = {
            "input_tokens": _words(body.get("input")) + _words(body.get("instructions") or ""),
            "input_tokens_details": {"cached_tokens": self.CACHED},
            "output_tokens": _words(done),
            "output_tokens_details": {"reasoning_tokens": self.REASONING},
        }
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        with self._lock:
            self.usages.append(usage)
        out.append(
            ("response.completed", {"response": {**base, "status": "completed", "output": [done], "usage": usage}})
        )
        return [(kind, {"type": kind, "sequence_number": i, **data}) for i, (kind, data) in enumerate(out)]

    # -- server -----------------------------------------------------------------------
    def start(self) -> "ResponsesProvider":
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_a) -> None:
                pass

            def _json(self, code: int, obj: dict) -> None:
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models"):
                    return self._json(200, {"object": "list", "data": [{"id": provider.model, "object": "model"}]})
                self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    return self._json(400, {"error": {"message": "body is not JSON"}})
                if not self.path.split("?")[0].rstrip("/").endswith("/responses"):
                    return self._json(404, {"error": {"message": f"no route {self.path}"}})
                turn = provider.pick(body)
                events = provider.events(body, turn)
                with provider._lock:
                    provider.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if not body.get("stream"):
                    return self._json(200, events[-1][1]["response"])
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for kind, data in events:
                    self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "ResponsesProvider":
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"
