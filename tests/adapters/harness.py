"""Run a real agent from its built tree on the host against the fake provider.

The agent runs as inside the local sandbox: Debian's /usr/bin/python3, a clean
environment (the adapter's env plus the gateway's four variables), cwd a copy of the
off-by-one starter, and ``gauntlet-agent`` replaced by a stub on PATH that records each
call and prints a feedback document (failing first, then passing)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "fakes"))
from provider import FakeProvider  # noqa: E402

REPO = HERE.parents[1]
STARTER = REPO / "arena" / "bundled" / "off-by-one" / "starter"
SCRIPTS = HERE.parent / "fakes" / "scripts"
TOKEN = "gw-attempt-token-1234"

FEEDBACK = [
    """submission: 1
iteration: 0
build:
  status: success
tests:
  total: 9
  passed: 8
  failed: 1
  failures:
    - name: test_all_equal_keys_keep_input_order
      message: "stability: equal keys were reordered"
      category: stability
hidden:
  total: 8
  passed: 5
""",
    """submission: 2
iteration: 1
build:
  status: success
tests:
  total: 9
  passed: 9
  failed: 0
hidden:
  total: 8
  passed: 8
""",
]

STUB = """#!/usr/bin/python3
import json, os, sys
log = os.environ["STUB_LOG"]
with open(log, "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd()}) + "\\n")
calls = [json.loads(l) for l in open(log)]
subs = sum(1 for c in calls if c["argv"][:1] == ["submit"])
docs = json.loads(os.environ["STUB_FEEDBACK"])
if sys.argv[1:2] == ["submit"]:
    sys.stdout.write(docs[min(subs, len(docs)) - 1])
elif sys.argv[1:2] == ["feedback"]:
    sys.stdout.write(docs[max(0, min(subs, len(docs)) - 1)])
else:
    sys.stdout.write("ok: true\\nsubmissions_used: %d\\nsubmissions_left: %d\\n" % (subs, 2 - subs))
"""


@dataclass
class Run:
    proc: subprocess.CompletedProcess
    provider: FakeProvider
    workspace: Path
    stub_calls: list[dict]
    seconds: float


def run_agent(
    adapter, tree: Path, script: str, tmp: Path, *, model: str = "openai/fake-model", timeout: float = 240
) -> Run:
    ws = tmp / "workspace"
    shutil.copytree(STARTER, ws)
    home = tmp / "home"
    home.mkdir()
    stubs = tmp / "stubs"
    stubs.mkdir()
    (stubs / "gauntlet-agent").write_text(STUB)
    (stubs / "gauntlet-agent").chmod(0o755)
    task = tmp / "task.md"
    task.write_text(adapter.task_text((STARTER.parent / "briefing.md").read_text(), str(ws)))
    provider = FakeProvider.from_yaml(SCRIPTS / script).start()
    env = adapter.env(model)
    # what the sandbox has, in host paths: HOME and the rest under a private /tmp stand-in
    env = {k: v.replace("/tmp", str(home)) for k, v in env.items()}
    env.update(
        PATH=f"{stubs}:/usr/bin:/bin",
        LANG="C.UTF-8",
        OPENAI_BASE_URL=provider.base_url,
        OPENAI_API_KEY=TOKEN,
        STUB_LOG=str(tmp / "stub.log"),
        STUB_FEEDBACK=json.dumps(FEEDBACK),
    )
    argv = [
        a.replace("/tmp/", f"{home}/", 1) if a.startswith(("/tmp/mini", "/tmp/aider")) else a
        for a in adapter.command(model, str(task), str(ws), root=str(tree))
    ]
    t0 = time.monotonic()
    try:
        proc = subprocess.run(
            argv, cwd=ws, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    finally:
        provider.stop()
    log = tmp / "stub.log"
    calls = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return Run(proc, provider, ws, calls, time.monotonic() - t0)


def describe(run: Run) -> str:
    return textwrap.shorten(run.proc.stdout[-3000:], 3000) + "\n--- stderr ---\n" + run.proc.stderr[-3000:]
