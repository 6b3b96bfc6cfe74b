"""The CI counter of bare ``Any`` in signatures (.ci/count_any.py), run as CI runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "count_any.py"

SAMPLE = """\
from typing import Any, Optional, Union
import typing


def counted_param(x: Any) -> int: ...
def counted_return(x: int) -> Any: ...
def counted_optional(x: Any | None, y: Optional[Any], z: Union[int, Any]) -> None: ...
def counted_star(*args: Any, **kw: Any) -> None: ...
def counted_string(x: "Any") -> None: ...
async def counted_async(x: typing.Any) -> None: ...


class C:
    # Any: a reason
    def explained(self, x: Any) -> None: ...

    def inline(self, x: Any) -> None:  # Any: its reason
        ...


def not_counted(a: dict[str, Any], b: list[Any], c: "typing.Callable[..., Any]") -> dict[str, Any]: ...
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_counts_bare_any_in_signatures_only(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(SAMPLE)
    p = run("--limit", "100", "pkg", cwd=tmp_path)
    lines = p.stdout.splitlines()
    hits = [ln for ln in lines if ln.startswith("pkg/m.py:")]
    where = sorted(ln.split(": ")[1] for ln in hits)
    assert where == sorted(
        [
            "counted_param(x)",
            "counted_return(return)",
            "counted_optional(x)",
            "counted_optional(y)",
            "counted_optional(z)",
            "counted_star(*args)",
            "counted_star(**kw)",
            "counted_string(x)",
            "counted_async(x)",
            "explained(x)",
            "inline(x)",
        ]
    )
    assert "pkg/m.py:5: counted_param(x): Any  (no comment saying why)" in lines
    assert [ln for ln in hits if "no comment" not in ln] == [
        "pkg/m.py:15: explained(x): Any",
        "pkg/m.py:17: inline(x): Any",
    ]
    assert lines[-1] == "11 bare Any in signatures (limit: under 100); 9 without a reason"
    assert p.returncode == 1  # uncommented ones fail even under the limit


def test_limit_and_reasons_decide_the_exit_code(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("from typing import Any\n\n\ndef f(x: Any) -> None:  # Any: why\n    ...\n")
    assert run("ok.py", cwd=tmp_path).returncode == 0
    assert run("--limit", "1", "ok.py", cwd=tmp_path).returncode == 1  # the count reaches the limit


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    p = run("nowhere", cwd=tmp_path)
    assert p.returncode == 2
    assert "no such path: nowhere" in p.stderr


def test_the_project_is_under_the_limit() -> None:
    p = run(cwd=ROOT)
    assert p.returncode == 0, p.stdout
