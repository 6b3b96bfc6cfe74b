"""Issue 34, done means: a heat of three real adapters (codex, claude-code, aider: the three
quickest to start here) plus a scripted agent, one `gauntlet arena PLAN --headless` on each
backend, against the stand-in providers replaying recorded answers (tests/fakes/scripts).
Every real contestant is observed (observed `command.run` events: the shared observer's
start-up race left most of them unobserved), none is hung, every `attempt.started` carries
the one heat id, and the run ends with the Standings of exactly this heat (an older heat in
the same store is not in them).

codex (Responses API) and aider (Chat Completions) share the OpenAI upstream, as they would
share api.openai.com: a small router in front of the two stand-ins sends each API's path to
its own. The real agents run at x1 (CONTRACT §11); the scripted one at x20.

Measured here (2 cores, 7 Dec 2026): the heat 137 s on local (aider, two submissions, ends
last at 128 s; codex 57 s; claude-code 76 s), 174 s on Docker; the whole test 175 s and 197 s. CI runs both
(issue 34's first Done-means line, the only test of several real agents racing at once):
with the suite on two xdist workers there is room for the Docker heat's 3.5 minutes again.
Both passed here on 7 Dec 2026."""

from __future__ import annotations

import http.client
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from anthropic_provider import AnthropicProvider
from e2e_kit import BACKENDS, cli
from provider import FakeProvider
from responses_provider import ResponsesProvider

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "fakes" / "scripts"
OPENAI_KEY, ANTHROPIC_KEY = "sk-host-codex-SECRET-77", "sk-host-claude-SECRET-66"  # the scripts' scans
REAL = {"codex": "openai/fake-model", "claude-code": "anthropic/fake-model", "aider": "openai/fake-model"}
pytestmark = [pytest.mark.slow]


class OpenAIRouter:
    """One OpenAI base URL: ``/responses`` to one stand-in, everything else to the other."""

    def __init__(self, responses_url: str, chat_url: str) -> None:
        self.routes = (urlsplit(responses_url).netloc, urlsplit(chat_url).netloc)
        router = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_a) -> None:
                pass

            def _forward(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(size) if size else None
                path = self.path.split("?")[0].rstrip("/")
                conn = http.client.HTTPConnection(router.routes[0 if path.endswith("/responses") else 1], timeout=120)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()  # the stand-ins answer at once: the whole stream, then passed on
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            do_GET = do_POST = _forward  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True

    def __enter__(self) -> "OpenAIRouter":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def _turns(name: str) -> list[dict]:
    return yaml.safe_load((SCRIPTS / name).read_text())["turns"]


def _show(aid: str, db: Path, env: dict) -> dict:
    return json.loads(cli("show", aid, "--json", "--store", str(db), env=env).stdout)


@pytest.mark.parametrize("sandbox", BACKENDS)
def test_a_heat_of_three_real_agents_and_a_scripted_one(tmp_path, sandbox):
    db = tmp_path / "g.db"
    plan = tmp_path / "heat.yaml"
    entries = [{"challenge": "off-by-one", "agents": [f"{a}@{m}"], "time_scale": 1} for a, m in REAL.items()]
    # x20: 45 real seconds, within the real agents' time (at x60 under Docker it once reached
    # the cutoff before its first submission)
    entries.append({"challenge": "off-by-one", "agents": ["scripted:elite"], "time_scale": 20})
    doc = {"schema": "gauntlet.plan/v1", "parallel": 4, "time_scale": 1, "sandbox": sandbox, "attempts": entries}
    plan.write_text(yaml.safe_dump(doc))
    with (
        ResponsesProvider(_turns("codex.yaml")) as codex,
        FakeProvider.from_yaml(SCRIPTS / "aider.yaml") as chat,
        AnthropicProvider(_turns("claude_code.yaml")) as claude,
        OpenAIRouter(codex.base_url, chat.base_url) as router,
    ):
        env = dict(
            os.environ,
            OPENAI_BASE_URL=router.base_url,
            OPENAI_API_KEY=OPENAI_KEY,
            ANTHROPIC_BASE_URL=claude.base_url,
            ANTHROPIC_API_KEY=ANTHROPIC_KEY,
            GAUNTLET_SOCKETS=str(tmp_path / "s"),
        )
        older = cli("run", "off-by-one", "--agent", "scripted:naive", "--time-scale", "200", "--sandbox", sandbox,
                    "--headless", "--store", str(db), env=env)  # fmt: skip
        assert older.returncode == 0, older.stderr[-2000:]
        older_id = older.stdout.strip().splitlines()[-1]
        t0 = time.monotonic()
        run = cli("arena", str(plan), "--headless", "--store", str(db), env=env, timeout=900)
        took = time.monotonic() - t0
    print(f"heat on {sandbox}: {took:.1f} s")
    if os.environ.get("GAUNTLET_HEAT_LOG"):  # for a look at what it printed
        Path(os.environ["GAUNTLET_HEAT_LOG"]).write_text(run.stdout + "\n----\n" + run.stderr)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Unclosed" not in run.stderr, run.stderr[-2000:]
    out = run.stdout.strip().splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("Standings"))
    ids, standings = [line for line in out[:at] if re.fullmatch(r"a-[0-9a-f]+", line)], out[at:]
    assert len(ids) == 4, out
    shows = {aid: _show(aid, db, env) for aid in ids}
    # one heat: every attempt.started carries it, and the Standings are that heat's
    heats = {next(e for e in s["events"] if e["kind"] == "attempt.started").get("heat") for s in shows.values()}
    assert len(heats) == 1 and None not in heats, heats
    (heat,) = heats
    assert standings[0].startswith(f"Standings — heat {heat}: 4 contestants"), standings
    listed = [line for line in standings[1:] if re.search(r"\ba-[0-9a-f]+\b", line)]
    assert sorted(re.search(r"\ba-[0-9a-f]+\b", line).group() for line in listed) == sorted(ids), standings
    assert older_id not in "\n".join(standings)
    by_agent = {}
    for aid, s in shows.items():
        kinds = [e["kind"] for e in s["events"]]
        assert s["status"] == "finished" and "agent.hung" not in kinds, (aid, s["status"], kinds[-5:])
        by_agent[s["agent"].split("@")[0]] = s
    assert set(by_agent) == {*REAL, "scripted:elite"}, set(by_agent)
    for name in REAL:  # every real contestant observed, and it did its work
        events = by_agent[name]["events"]
        notes = [e["text"] for e in events if e["kind"] == "agent.output" and e.get("stream") == "arena"]
        assert not [n for n in notes if "unavailable" in n], (name, notes)
        observed = [e for e in events if e["kind"] == "command.run" and e.get("observed")]
        assert observed, (name, [e["kind"] for e in events])
        assert any(e["kind"] == "model.call" for e in events), name
        assert [s for s in by_agent[name]["submissions"] if s["feedback"]], (name, by_agent[name]["submissions"])
