"""A judge that cannot run is an infra_error naming what is missing, never 0/N "not
reported" (issue 26 item 7); ``gauntlet doctor`` says what the local judge lacks.

Nothing is uninstalled: the local judge is pointed at the host's python3 with its site
packages off (``-S``: no dist-packages, so no pytest), the Docker judge at an image built
from gauntlet-base with pytest removed, the doctor at a venv without pytest.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.challenge import load_challenge
from arena.judge import Judge, JudgeSpec, take_snapshot
from arena.judge.run import command as cmd
from arena.sandbox import get_backend

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "calc"
NO_PYTEST_IMAGE = "gauntlet-test-nopytest:issue26"


def _spec() -> JudgeSpec:
    return JudgeSpec.from_challenge(load_challenge(FIXTURE), [1])


async def _judge(backend, spec, tmp_path: Path, *, prepared: bool):
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE / "solution", ws)
    snap = take_snapshot(ws, tmp_path / "snaps")
    judge = Judge(backend, pool_size=1, prestart=1 if prepared else 0)
    try:
        if prepared:
            await judge.warm(spec, [1])
        return await judge.run(spec, snap, submission=1, phases=[1])
    finally:
        await judge.aclose()


def _assert_named_infra_error(r) -> None:
    assert r.infra_error and "no module pytest" in r.infra_error, r.infra_error
    assert "python3-pytest" in r.infra_error
    assert r.tests == []  # not 0/N "not reported: no result for this test"


@pytest.mark.parametrize("prepared", [False, True], ids=["cold", "prepared"])
async def test_local_judge_without_pytest_is_an_infra_error_naming_it(tmp_path, monkeypatch, prepared):
    monkeypatch.setattr(cmd, "BOOTSTRAP", ["python3", "-I", "-S", "-B", f"{cmd.CONFIG_DIR}/run.py"])
    _assert_named_infra_error(await _judge(get_backend("local"), _spec(), tmp_path, prepared=prepared))


@pytest.fixture(scope="module")
def no_pytest_image(tmp_path_factory):
    d = tmp_path_factory.mktemp("nopytest")
    (d / "Dockerfile").write_text(
        "FROM gauntlet-base\nUSER root\n"
        "RUN rm -rf /usr/lib/python3/dist-packages/pytest /usr/lib/python3/dist-packages/_pytest\n"
    )
    subprocess.run(
        ["docker", "build", "-q", "--network", "none", "-t", NO_PYTEST_IMAGE, str(d)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    yield NO_PYTEST_IMAGE
    subprocess.run(["docker", "rmi", "-f", NO_PYTEST_IMAGE], capture_output=True, timeout=60)


@pytest.mark.docker
@pytest.mark.parametrize("prepared", [False, True], ids=["cold", "pooled"])
async def test_docker_judge_without_pytest_is_an_infra_error_naming_it(tmp_path, no_pytest_image, prepared):
    spec = _spec()
    spec.image = no_pytest_image
    _assert_named_infra_error(await _judge(get_backend("docker"), spec, tmp_path, prepared=prepared))


def _venv_without_pytest(tmp_path: Path) -> str:
    subprocess.run(
        ["/usr/bin/python3", "-m", "venv", "--without-pip", str(tmp_path / "venv")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    python = str(tmp_path / "venv" / "bin" / "python3")
    probe = subprocess.run([python, "-I", "-c", "import pytest"], capture_output=True)
    assert probe.returncode != 0  # really without pytest
    return python


def test_doctor_says_the_local_judge_lacks_pytest(tmp_path, monkeypatch, capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from gauntlet_tui.cli import doctor_cmd
    from arena.judge.run import requirements

    python = _venv_without_pytest(tmp_path)
    [c] = doctor_cmd.judge_checks(python)
    assert not c.ok and "has no pytest" in c.detail and python in c.detail
    assert "python3-pytest" in c.fix and "python3-coverage" in c.fix
    [ok] = doctor_cmd.judge_checks("/usr/bin/python3")  # the host's own: ready
    assert ok.ok, ok.detail

    monkeypatch.setattr(requirements, "local_judge_python", lambda: python)
    assert doctor_cmd.cmd_doctor(type("A", (), {"cluster": None})()) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "judge (local)" in ln)
    assert line.startswith("MISS") and "has no pytest" in line
    assert "NOT ready" in out
