"""`gauntlet agents` (issue 21 item 6): every built-in adapter with its PyPI package, the
version its lock file pins, the APIs it speaks, and the state of its tree and image for
the current recipe, with the command that builds them (text and --json)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from arena.adapters import get_adapter, names
from arena.adapters.inventory import agent_rows

ROOT = Path(__file__).resolve().parents[1]


def gauntlet(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gauntlet_tui", *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120
    )


class _Images:
    """The engine's image collection, holding images of the given labels only."""

    def __init__(self, labels: set[str]) -> None:
        self.labels, self.asked = labels, []

    def list(self, *, filters: dict[str, str]) -> list[object]:
        self.asked.append(filters["label"])
        return [object()] if filters["label"] in self.labels else []


def test_json_lists_every_adapter_with_its_pinned_package(tmp_path):
    env = dict(os.environ, GAUNTLET_CACHE=str(tmp_path / "cache"))  # nothing built here
    r = gauntlet("agents", "--json", env=env)
    assert r.returncode == 0, r.stderr
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert set(rows) == set(names()) and {"mini-swe-agent", "aider", "codex", "claude-code"} <= set(rows)
    for name, row in rows.items():
        ad = get_adapter(name)
        assert (row["package"], row["version"]) == (ad.package, ad.version)
        assert ad.pins()[ad.package] == row["version"]  # the lock file pins what is shown
        assert row["tree"]["state"] == "missing" and row["tree"]["path"].startswith(str(tmp_path / "cache"))
        assert row["build"] == f"gauntlet sandbox build --agent {name}"
    assert "Responses" in rows["codex"]["api"] and "Messages" in rows["claude-code"]["api"]
    assert rows["codex"]["mcp"] is True and rows["aider"]["mcp"] is False


def test_text_names_each_adapter_and_how_to_build_what_is_missing(tmp_path):
    env = dict(os.environ, GAUNTLET_CACHE=str(tmp_path / "cache"))
    r = gauntlet("agents", env=env)
    assert r.returncode == 0, r.stderr
    for name in names():
        ad = get_adapter(name)
        assert f"{name}  {ad.package}=={ad.version}" in r.stdout
        assert f"gauntlet sandbox build --agent {name}" in r.stdout  # its tree is not built here


def test_image_state_is_the_current_recipes(tmp_path, monkeypatch):
    from arena.adapters.build import AGENT_LABEL, image_label

    monkeypatch.setenv("GAUNTLET_CACHE", str(tmp_path / "cache"))
    images = _Images({f"{AGENT_LABEL}={image_label('codex')}"})
    rows = {r["name"]: r for r in agent_rows(images)}
    assert rows["codex"]["image"]["state"] == "present"
    assert all(r["image"]["state"] == "missing" for n, r in rows.items() if n != "codex")
    assert len(images.asked) == len(rows)  # by the recipe's label, one question per adapter
    unknown = agent_rows(None, "Docker does not answer: DockerException")
    assert {r["image"]["state"] for r in unknown} == {"unknown"}
    assert unknown[0]["image"]["detail"].startswith("Docker does not answer")
