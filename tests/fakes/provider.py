"""A fake OpenAI-compatible provider that replays a script of assistant answers.

    with FakeProvider.from_yaml("tests/fakes/scripts/aider.yaml") as fp:
        env = {"OPENAI_BASE_URL": fp.base_url, "OPENAI_API_KEY": "tok"}
        ...
        fp.requests  # every request: {"path", "headers", "body"}

``POST /v1/chat/completions`` (streamed as SSE when the body says ``stream: true``, with a
final ``usage`` chunk when ``stream_options.include_usage`` asks, and always in a plain
answer); ``GET /v1/models``. A script is a list of turns answered in order; a turn may
carry ``when: REGEX`` and is then used only when the last user (or tool) message matches;
otherwise the first unused turn without ``when`` answers. A turn is ``content: TEXT``
and/or ``tool_calls: [{name, arguments}]`` (arguments a mapping or JSON string). When the
script is spent the provider answers ``exhausted`` (a plain text turn), or 500 if
``strict``. Token counts are whitespace-split word counts (deterministic, not real).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def _tokens(text: str) -> int:
    return max(1, len(text.split()))


class FakeProvider:
    def __init__(
        self, turns: list[dict], *, exhausted: str = "I am done.", strict: bool = False, model: str = "fake-model"
    ) -> None:
        self.turns = [dict(t) for t in turns]
        self.used = [False] * len(self.turns)
        self.exhausted, self.strict, self.model = exhausted, strict, model
        self.requests: list[dict] = []
        self.answers: list[dict] = []
        self._lock = threading.Lock()
        self.arrived = threading.Event()  # set by each request
        self.hold: threading.Event | None = None  # set it to make every answer wait for it
        self.delay_s = 0.0  # every answer waits this many real seconds (a slow model)
        self.key: str | None = None  # set it to refuse any other key with 401
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_yaml(cls, path: str | Path, **kw) -> "FakeProvider":
        data = yaml.safe_load(Path(path).read_text())
        turns = data["turns"] if isinstance(data, dict) else data
        return cls(turns, **kw)

    # -- lifecycle --------------------------------------------------------------------
    def start(self) -> "FakeProvider":
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_a) -> None:
                pass

            def _refused(self) -> bool:  # a provider that checks keys: 401 for a wrong one
                if provider.key and self.headers.get("Authorization") != f"Bearer {provider.key}":
                    self._json(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
                    return True
                return False

            def do_GET(self) -> None:  # noqa: N802
                if self._refused():
                    return
                if self.path.rstrip("/").endswith("/models"):
                    self._json(
                        200, {"object": "list", "data": [{"id": provider.model, "object": "model", "owned_by": "fake"}]}
                    )
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n)
                if self._refused():
                    return
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    return self._json(400, {"error": {"message": "body is not JSON"}})
                with provider._lock:
                    provider.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body, "t": time.monotonic()}
                    )
                provider.arrived.set()
                if provider.hold is not None:  # a slow model: answers once the test says so
                    provider.hold.wait(120)
                if provider.delay_s > 0:
                    time.sleep(provider.delay_s)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._json(404, {"error": {"message": f"no route {self.path}"}})
                turn = provider.pick(body)
                if turn is None:
                    return self._json(500, {"error": {"message": "fake provider: script spent"}})
                if body.get("stream"):
                    return self._stream(body, turn)
                return self._json(200, provider.completion(body, turn))

            def _json(self, code: int, obj: dict) -> None:
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict, turn: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in provider.chunks(body, turn):
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeProvider":
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- answers ----------------------------------------------------------------------
    def pick(self, body: dict) -> dict | None:
        msgs = body.get("messages") or []
        last = next((_text(m.get("content")) for m in reversed(msgs) if m.get("role") in ("user", "tool")), "")
        with self._lock:
            for i, t in enumerate(self.turns):
                if not self.used[i] and t.get("when") and re.search(t["when"], last, re.S):
                    self.used[i] = True
                    return t
            for i, t in enumerate(self.turns):
                if not self.used[i] and not t.get("when"):
                    self.used[i] = True
                    return t
        return None if self.strict else {"content": self.exhausted}

    def _message(self, turn: dict, n: int) -> dict:
        msg: dict[str, Any] = {"role": "assistant", "content": turn.get("content")}
        calls = []
        for j, c in enumerate(turn.get("tool_calls") or []):
            args = c.get("arguments", {})
            calls.append(
                {
                    "id": f"call_{n}_{j}",
                    "type": "function",
                    "function": {"name": c["name"], "arguments": args if isinstance(args, str) else json.dumps(args)},
                }
            )
        if calls:
            msg["tool_calls"] = calls
        return msg

    def _usage(self, body: dict, msg: dict) -> dict:
        prompt = sum(_tokens(_text(m.get("content"))) for m in body.get("messages") or [])
        out = _tokens(_text(msg.get("content")) + json.dumps(msg.get("tool_calls") or ""))
        return {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out}

    def completion(self, body: dict, turn: dict) -> dict:
        with self._lock:
            n = len(self.answers)
            msg = self._message(turn, n)
            self.answers.append(msg)
        return {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [
                {"index": 0, "message": msg, "finish_reason": "tool_calls" if msg.get("tool_calls") else "stop"}
            ],
            "usage": self._usage(body, msg),
        }

    def chunks(self, body: dict, turn: dict):
        full = self.completion(body, turn)
        msg, base = full["choices"][0]["message"], {k: full[k] for k in ("id", "created", "model")}
        base["object"] = "chat.completion.chunk"

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        text = msg.get("content") or ""
        for i in range(0, len(text), 40):  # several deltas, as a real stream
            yield chunk({"content": text[i : i + 40]})
        for j, c in enumerate(msg.get("tool_calls") or []):
            yield chunk({"tool_calls": [{"index": j, **c}]})
        yield chunk({}, full["choices"][0]["finish_reason"])
        if (body.get("stream_options") or {}).get("include_usage"):
            yield {**base, "choices": [], "usage": full["usage"]}
