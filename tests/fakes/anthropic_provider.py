"""A stand-in for the Anthropic Messages API as Claude Code calls it (``POST
/v1/messages?beta=true``, streamed as server-sent events with ``event:`` lines:
message_start with the input usage, content_block_start/delta/stop per block,
message_delta with the output usage, message_stop), replaying a script of turns.

A turn is ``{"text": TEXT}`` or ``{"tool": NAME, "input": MAPPING}`` (a ``tool_use``
block after a short text), optionally with ``when: REGEX`` matched against the last
``tool_result`` (or user text) of the request; otherwise the first unused turn without
``when`` answers. Input tokens = words of the messages, split as the real API does into
``input_tokens`` and a fixed ``cache_read_input_tokens`` of 4 and
``cache_creation_input_tokens`` of 1 (so tests check they are counted); output tokens =
words of the answer. Requests that are not the agent's own turn (Claude Code's side calls
with no ``tools``, e.g. a title) answer a short text and do not use a turn.
``POST /v1/messages/count_tokens`` and ``GET /v1/models`` answer too.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _words(obj: Any) -> int:
    return max(1, len(json.dumps(obj).split()))


def _last_text(body: dict) -> str:
    for m in reversed(body.get("messages") or []):
        c = m.get("content")
        if isinstance(c, str):
            return c
        for part in reversed(c or []):
            if part.get("type") == "tool_result":
                inner = part.get("content")
                if isinstance(inner, list):
                    return " ".join(p.get("text", "") for p in inner if isinstance(p, dict))
                return str(inner or "")
            if part.get("type") == "text":
                return part.get("text", "")
    return ""


class AnthropicProvider:
    CACHE_READ, CACHE_CREATE = 4, 1

    def __init__(self, turns: list[dict], exhausted: str = "I am done.") -> None:
        self.turns = [dict(t) for t in turns]
        self.used = [False] * len(self.turns)
        self.exhausted = exhausted
        self.requests: list[dict] = []
        self.usages: list[dict] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def pick(self, body: dict) -> dict:
        if not body.get("tools"):
            return {"text": "Gauntlet task"}
        last = _last_text(body)
        with self._lock:
            for i, t in enumerate(self.turns):
                if not self.used[i] and t.get("when") and re.search(t["when"], last, re.S):
                    self.used[i] = True
                    return t
            for i, t in enumerate(self.turns):
                if not self.used[i] and not t.get("when"):
                    self.used[i] = True
                    return t
        return {"text": self.exhausted}

    def events(self, body: dict, turn: dict) -> list[tuple[str, dict]]:
        n = len(self.requests)
        blocks: list[dict] = []
        if "tool" in turn:
            blocks.append({"type": "text", "text": turn.get("say", "Running it.")})
            blocks.append(
                {"type": "tool_use", "id": f"toolu_{n}", "name": turn["tool"], "input": turn.get("input", {})}
            )
        else:
            blocks.append({"type": "text", "text": turn["text"]})
        total = _words(body.get("messages")) + _words(body.get("system") or "")
        usage_in = {
            "input_tokens": total,
            "cache_read_input_tokens": self.CACHE_READ,
            "cache_creation_input_tokens": self.CACHE_CREATE,
            "output_tokens": 1,
        }
        out_tokens = _words(blocks)
        msg = {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage_in,
        }
        ev: list[tuple[str, dict]] = [("message_start", {"type": "message_start", "message": msg})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                ev.append(
                    (
                        "content_block_start",
                        {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                    )
                )
                for j in range(0, len(b["text"]), 20):
                    ev.append(
                        (
                            "content_block_delta",
                            {
                                "type": "content_block_delta",
                                "index": i,
                                "delta": {"type": "text_delta", "text": b["text"][j : j + 20]},
                            },
                        )
                    )
            else:
                ev.append(
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}},
                        },
                    )
                )
                js = json.dumps(b["input"])
                for j in range(0, len(js), 30):
                    ev.append(
                        (
                            "content_block_delta",
                            {
                                "type": "content_block_delta",
                                "index": i,
                                "delta": {"type": "input_json_delta", "partial_json": js[j : j + 30]},
                            },
                        )
                    )
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        ev.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use" if "tool" in turn else "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": out_tokens},
                },
            )
        )
        ev.append(("message_stop", {"type": "message_stop"}))
        with self._lock:
            self.usages.append({**usage_in, "output_tokens": out_tokens})
        return ev

    def start(self) -> "AnthropicProvider":
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
                self._json(200, {"data": [{"id": "fake-model", "type": "model"}], "has_more": False})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    return self._json(200, {"input_tokens": _words(body.get("messages"))})
                if not path.endswith("/v1/messages"):
                    return self._json(404, {"type": "error", "error": {"type": "not_found", "message": self.path}})
                turn = provider.pick(body)
                events = provider.events(body, turn)
                with provider._lock:
                    provider.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
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

    def __enter__(self) -> "AnthropicProvider":
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"
