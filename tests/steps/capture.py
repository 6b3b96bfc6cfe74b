"""Capture an adapter's real output for the step parsers' fixtures (not a test).

    python tests/steps/capture.py ADAPTER SCRIPT.yaml OUT.jsonl [--sandbox local|docker]

Runs ``gauntlet run off-by-one --agent ADAPTER`` (in this process) against the adapter's
stand-in provider replaying SCRIPT.yaml (tests/fakes/scripts), and writes every line of the
agent's output as the arena received it (before ``agent.output``'s 4 KiB cut: what the
step parser is fed) as one JSON line ``{"stream": ..., "text": ...}`` to OUT.jsonl; then
prints the attempt's ``agent.step`` events for a look.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests" / "fakes")]

from anthropic_provider import AnthropicProvider  # noqa: E402
from provider import FakeProvider  # noqa: E402
from responses_provider import ResponsesProvider  # noqa: E402

from arena.agents.command import CommandAgent  # noqa: E402
from gauntlet_tui.cli import main as gauntlet  # noqa: E402

PROVIDERS = {
    "claude-code": (AnthropicProvider, "anthropic/fake-model", "ANTHROPIC"),
    "codex": (ResponsesProvider, "openai/fake-model", "OPENAI"),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("adapter")
    ap.add_argument("script")
    ap.add_argument("out")
    ap.add_argument("--sandbox", default="local")
    a = ap.parse_args()
    cls, model, prefix = PROVIDERS.get(a.adapter, (FakeProvider, "openai/fake-model", "OPENAI"))
    turns = yaml.safe_load(Path(a.script).read_text())["turns"]
    with tempfile.TemporaryDirectory() as tmp, cls(turns) as fp:
        db = Path(tmp) / "g.db"
        env = dict(os.environ, GAUNTLET_SOCKETS=str(Path(tmp) / "s"))
        env[f"{prefix}_BASE_URL"], env[f"{prefix}_API_KEY"] = fp.base_url, "sk-capture"

        os.environ.update(env)
        lines: list[tuple[str, str]] = []
        emit = CommandAgent._emit_output

        def record(self: CommandAgent, ctx: object, stream: str, text: str) -> None:
            lines.append((stream, text))
            emit(self, ctx, stream, text)  # type: ignore[arg-type]

        CommandAgent._emit_output = record  # type: ignore[method-assign]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = gauntlet(["run", "off-by-one", "--agent", a.adapter, "--model", model, "--sandbox", a.sandbox,
                         "--headless", "--store", str(db)])  # fmt: skip
        if code:
            sys.exit(out.getvalue()[-3000:])
        aid = out.getvalue().strip().splitlines()[-1]
        show = subprocess.run(
            [sys.executable, "-m", "gauntlet_tui", "show", aid, "--json", "--store", str(db)],
            env=env, cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
    events = json.loads(show.stdout)["events"]
    with open(a.out, "w", encoding="utf-8") as f:
        for stream, text in lines:
            f.write(json.dumps({"stream": stream, "text": text}) + "\n")
    for e in events:
        if e["kind"] == "agent.step":
            print(f"{e['t']:7.1f} {e['step']:8} {e['text']}")
    print(f"{len(lines)} output lines -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
