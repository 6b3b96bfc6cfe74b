"""Agent files (CONTRACT §3): a small real program that edits the workspace, runs the
tests and submits through ``gauntlet-agent submit`` inside the sandbox (and through
``gauntlet agent submit`` on the host)."""

from __future__ import annotations

import textwrap

import pytest
import yaml

from arena.challenge import load_challenge
from arena.errors import UsageError
from arena.agents.command import load_agent_file
from arena import events as ev
from attempt_kit import CALC_FIXED, make_package, of, open_arena, stored

PROGRAM = textwrap.dedent(f"""
    import os, pathlib, subprocess, sys
    ws = pathlib.Path(os.environ["GAUNTLET_WORKSPACE"])
    assert pathlib.Path(os.environ["GAUNTLET_BRIEFING"]).read_text().startswith("# Kit")
    print("attempt", os.environ["GAUNTLET_ATTEMPT"])
    (ws / "calc.py").write_text({CALC_FIXED!r})
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ws,
                           capture_output=True, text=True)
    print("local tests exit", tests.returncode)
    VERB = sys.argv[1:]
    r = subprocess.run(VERB + ["submit"], capture_output=True, text=True)
    print("submit exit", r.returncode)
    print(r.stdout)
    fb = subprocess.run(VERB + ["feedback", "1"], capture_output=True, text=True)
    print("feedback exit", fb.returncode)
    r2 = subprocess.run(VERB + ["message", "fixed", "add", "and", "mul"], capture_output=True, text=True)
    sys.exit(0 if r.returncode == 0 and "passed: 4" in r.stdout else 7)
""")


def _agent_file(tmp_path, where: str, verb: list[str]) -> str:
    path = tmp_path / f"agent-{where}.yaml"
    path.write_text(
        yaml.safe_dump({"name": f"fixer-{where}", "where": where, "command": ["python3", "-c", PROGRAM, *verb]})
    )
    return str(path)


@pytest.mark.parametrize(
    "where,verb,sandbox",
    [
        ("sandbox", ["gauntlet-agent"], "local"),
        ("host", ["gauntlet-agent"], "local"),  # host agents run unprivileged: the dependency-free client
        pytest.param("sandbox", ["gauntlet-agent"], "docker", marks=pytest.mark.docker),
    ],
)
async def test_agent_file_edits_runs_tests_and_submits(tmp_path, where, verb, sandbox):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    arena = await open_arena(tmp_path, None, sandbox=sandbox)  # real time: the program is quick
    try:
        # x10: the sprint holds its feedback for a 30 s double-submit window of attempt time,
        # which `feedback 1` waits out (3 real seconds instead of 30)
        a = arena.attempt(load_challenge(pkg), _agent_file(tmp_path, where, verb), time_scale=10)
        status = await arena.run_one(a)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    out = "\n".join(e.data["text"] for e in of(events, ev.AGENT_OUTPUT))
    assert status == "finished", out
    exited = of(events, ev.AGENT_EXITED)
    assert exited and exited[0].data["exit_code"] == 0, out
    assert "submit exit 0" in out and "feedback exit 0" in out
    assert f"attempt {a.id}" in out
    received = of(events, ev.SUBMISSION_RECEIVED)
    assert len(received) == 1 and received[0].data["diff"]["changed_files"] == ["calc.py"]
    judged = of(events, ev.SUBMISSION_JUDGED)[0].data
    assert judged["score"] == 100.0
    assert [e.data["op"] for e in of(events, ev.PROTOCOL_CALL)] == ["submit", "feedback", "message"]
    assert of(events, ev.FEEDBACK_READ)[0].data == {"submission": 1}
    assert of(events, ev.AGENT_MESSAGE)[0].data["text"] == "fixed add and mul"
    changed = {e.data["path"] for e in of(events, ev.FILE_CHANGED)}
    assert "calc.py" in changed
    fin = events[-1]
    assert fin.kind == ev.ATTEMPT_FINISHED and fin.data["reason"] == "agent done: exited normally"


async def test_crashing_agent_is_its_own_failure(tmp_path):
    pkg = make_package(tmp_path / "pkg", fmt="sprint")
    path = tmp_path / "crash.yaml"
    path.write_text(yaml.safe_dump({"name": "crasher", "command": ["sh", "-c", "echo boom >&2; exit 3"]}))
    arena = await open_arena(tmp_path, None)
    try:
        a = arena.attempt(load_challenge(pkg), str(path))
        status = await arena.run_one(a)
        events = await stored(arena, a.id)
    finally:
        await arena.close()
    assert status == "finished"
    assert not of(events, ev.INFRA_ERROR)
    assert of(events, ev.AGENT_EXITED)[0].data == {"exit_code": 3, "detail": "exited with code 3"}
    assert {"stream": "stderr", "text": "boom"} in [e.data for e in of(events, ev.AGENT_OUTPUT)]
    fin = events[-1].data
    assert fin["reason"] == "agent failed: exited with code 3" and fin["scored_submission"] is None


@pytest.mark.parametrize(
    "text,msg",
    [
        ("[1, 2]", "expected a mapping"),
        ("name: x\ncommand: []\n", "key 'command'"),
        ("name: x\ncommand: [a]\nwhere: moon\n", "key 'where'"),
        ("name: x\ncommand: [a]\ncommnd: [b]\n", "unknown key 'commnd'"),
        ("command: [a]\n", "key 'name'"),
        ("name: [unclosed\n", "cannot read it as YAML"),
    ],
)
def test_bad_agent_files_name_the_key(tmp_path, text, msg):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(UsageError, match=msg) as info:
        load_agent_file(p)
    assert str(p) in str(info.value) and "\n" not in str(info.value)
