"""Issue 23 item 4: gauntlet challenge export harbor PKG DIR, and the round trip back."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from arena.challenge import load_challenge
from arena.pipeline.task_export import export_harbor
from arena.pipeline.task_import import import_task
from arena.sandbox.base import SandboxError
from arena.sandbox.image import _client
from tests.support import harbor_env
from tests.task_import.fixtures import harbor_python
from tests.task_import.test_task_import import DOCKER, gauntlet, objective

OFF_BY_ONE = Path(__file__).resolve().parents[2] / "arena" / "bundled" / "off-by-one"


def harbor_check(task: Path) -> None:
    """Harbor's own task model (harbor 0.25, Python 3.13) on an exported task, in the
    gauntlet-harbor image .ci/run builds (tests/support/harbor_env.py): TaskConfig, Task's
    own input-path and test-script checks, each [[steps]] step's instruction and solution."""
    try:
        client = _client()
    except SandboxError as exc:
        pytest.skip(f"Harbor's task model runs in Docker (it needs Python >= 3.12): {exc}")
    ref = harbor_env.present(client)
    if ref is None:
        pytest.fail(
            f"{harbor_env.image_ref()} is missing: `python -m tests.support.harbor_env` builds it (.ci/run does)"
        )
    found = harbor_env.check_task(task, ref)
    assert found["workdir"] == "/app"
    steps = tomllib.loads((task / "task.toml").read_text()).get("steps", [])
    assert [s["name"] for s in found["steps"]] == [s["name"] for s in steps]
    for step in found["steps"]:
        assert step["instruction"].strip(), step
        assert step["solve"] is not None, step


def test_export_writes_the_harbor_layout(tmp_path):
    r = gauntlet("challenge", "export", "harbor", str(OFF_BY_ONE), str(tmp_path / "t"))
    assert r.returncode == 0, r.stderr
    t = tmp_path / "t"
    cfg = tomllib.loads((t / "task.toml").read_text())
    assert cfg["agent"]["timeout_sec"] == 900.0 and cfg["verifier"]["timeout_sec"] == 60.0
    assert cfg["metadata"]["gauntlet_id"] == "off-by-one"
    assert (t / "instruction.md").read_text() == (OFF_BY_ONE / "briefing.md").read_text()
    for rel in (
        "tests/static/test_sort_static.py",
        "tests/hidden/test_sort_hidden.py",
        "tests/test.sh",
        "solution/solve.sh",
        "solution/files/sorter.py",
        "environment/Dockerfile",
        "environment/starter/sorter.py",
    ):
        assert (t / rel).is_file(), rel
    assert "/logs/verifier" in (t / "tests" / "test.sh").read_text()
    harbor_check(t)
    again = gauntlet("challenge", "export", "harbor", str(OFF_BY_ONE), str(t))
    assert again.returncode == 2 and "not empty" in again.stderr


def test_an_imported_task_round_trips_to_an_equivalent_package(tmp_path):
    src = harbor_python(tmp_path / "add-task")
    import_task(src, tmp_path / "p1")
    export_harbor(tmp_path / "p1", tmp_path / "t")
    harbor_check(tmp_path / "t")
    import_task(tmp_path / "t", tmp_path / "p2")
    a, b = load_challenge(tmp_path / "p1"), load_challenge(tmp_path / "p2")
    assert a.briefing == b.briefing
    assert (a.starter_dir / "calc.py").read_text() == (b.starter_dir / "calc.py").read_text()
    for rel in ("tests/static/test.sh", "tests/static/test_calc.py", "agents/reference/1/.gauntlet-solution/solve.sh"):
        assert (a.root / rel).read_text() == (b.root / rel).read_text(), rel
    ma, mb = a.manifest, b.manifest
    assert (ma.format, ma.time_limit_s, ma.judge.command, ma.judge.results, ma.judge.timeout_s) == (
        mb.format,
        mb.time_limit_s,
        mb.judge.command,
        mb.judge.results,
        mb.judge.timeout_s,
    )


@pytest.mark.skipif(not DOCKER, reason="needs Docker")
def test_a_bundled_challenge_exported_and_reimported_runs_live(tmp_path):
    export_harbor(OFF_BY_ONE, tmp_path / "t")
    r = gauntlet("challenge", "import", str(tmp_path / "t"), "--out", str(tmp_path / "p"), timeout=600)
    assert r.returncode == 0, r.stderr
    store = tmp_path / "s.db"
    assert objective(tmp_path / "p", "reference", "docker", store) == 100.0
    assert objective(tmp_path / "p", "noop", "docker", store) == 0.0  # reward < 1: the one test fails


def test_harbor_check_runs_harbors_model_and_rejects_a_bad_task(tmp_path):
    """Not vacuous: the same check fails on a task.toml Harbor's TaskConfig refuses."""
    export_harbor(OFF_BY_ONE, tmp_path / "t")
    toml = tmp_path / "t" / "task.toml"
    toml.write_text(toml.read_text().replace("timeout_sec = 900.0", 'timeout_sec = "soon"', 1))
    with pytest.raises(AssertionError, match="agent.timeout_sec"):
        harbor_check(tmp_path / "t")
