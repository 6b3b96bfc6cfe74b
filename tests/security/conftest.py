"""Fixtures of the security suite: the calc fixture challenge and a judge per backend.

Docker cases carry ``@pytest.mark.docker`` and FAIL (never skip) when no engine or image
is there: creating the backend raises.
"""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "calc"

BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(scope="session")
def calc_challenge():
    from arena.challenge import load_challenge

    return load_challenge(FIXTURE)


@pytest.fixture(scope="session")
def calc_in_process(tmp_path_factory):
    """The calc fixture with ``judge.isolation: in_process`` (the submission imported into
    the test process, as before issue 11)."""
    import shutil

    from hostile import make_in_process

    from arena.challenge import load_challenge

    root = tmp_path_factory.mktemp("calc-in-process") / "calc"
    shutil.copytree(FIXTURE, root)
    make_in_process(root)
    ch = load_challenge(root)
    assert ch.manifest.judge.isolation == "in_process"
    return ch


@pytest.fixture(params=BACKENDS)
def backend(request):
    from arena.sandbox import get_backend

    return get_backend(request.param)
