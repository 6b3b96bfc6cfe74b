"""Judge-side test text never reaches feedback (issue 11, item 2).

In-process (``judge.isolation: in_process``), where the submission can read the hidden and
adversarial test files (through the calling test's own path), each case tries to carry
them out in a feedback field, however encoded: the one filter (arena/judge/verdict/redact.py)
must withhold it and raise ``judge.leak_redacted``, and the honest part of the code must
still earn its score. Under process isolation (the default) the worker cannot read them
at all (Landlock: arena/judge/in_sandbox/landlock.py), by any path. Both backends.
"""

from __future__ import annotations

import re

import pytest

from hostile import ALL, MUL, calc
from test_hostile_submissions import assert_nothing_left_behind, judge_files

_READ_HIDDEN = """
    import os, sys
    here = sys._getframe(1).f_code.co_filename  # the calling judge test's own file (in-process)
    root = os.path.dirname(os.path.dirname(here))
    blob = b""
    for d, _dirs, files in sorted(os.walk(root)):
        for n in sorted(files):
            if n.endswith(".py") and "static" not in d:
                with open(os.path.join(d, n), "rb") as f:
                    blob += f.read()
"""

LEAKS = {
    "zlib_base64": calc(
        _READ_HIDDEN
        + """
    import base64, zlib
    return base64.b64encode(zlib.compress(blob)).decode()"""
    ),
    "lzma_base85": calc(
        _READ_HIDDEN
        + """
    import base64, lzma
    return base64.b85encode(lzma.compress(blob)).decode()"""
    ),
    "hex_in_chunks": calc(
        _READ_HIDDEN
        + """
    return "leak:" + blob.hex()[:200]"""
    ),
    "reversed": calc(
        _READ_HIDDEN
        + """
    return blob.decode()[::-1]"""
    ),
    "raised_verbatim": calc(
        _READ_HIDDEN
        + """
    raise ValueError(blob.decode())"""
    ),
    "double_base64_gzip": calc(
        _READ_HIDDEN
        + """
    import base64, gzip
    return base64.b64encode(base64.b64encode(gzip.compress(blob))).decode()"""
    ),
}

IMPORT_ERROR_QUOTING = calc(
    "    return a * b",
    prelude="""
import os as _os, sys as _sys
for _depth in range(1, 60):  # the judge test module importing this one
    try:
        _f = _sys._getframe(_depth).f_code.co_filename
    except ValueError:
        break
    if _os.path.basename(_f).startswith("test_"):
        _root = _os.path.dirname(_os.path.dirname(_f))
        _hidden = _os.path.join(_root, "hidden", "test_calc_hidden.py")
        raise ImportError("cannot import calc (" + _hidden + "):\\n" + open(_hidden).read())
""",
)


def _hidden_material(challenge) -> tuple[list[str], list[str]]:
    lines, names = [], []
    for rel in ("tests/hidden/test_calc_hidden.py", "tests/adversarial/test_calc_adversarial.py"):
        text = (challenge.root / rel).read_text()
        lines += [
            ln.strip()
            for ln in text.splitlines()
            if len(ln.strip()) >= 12 and not ln.strip().startswith(("def ", "from ", "import "))
        ]
        names += re.findall(r"def (test\w+)", text) + [rel.rsplit("/", 1)[1][:-3]]
    assert lines and names
    return lines, names


def feedback_fields(result) -> list[str]:
    """Every text field of a result that carries what the run printed or raised."""
    return (
        [t.message for t in result.tests]
        + result.build.errors
        + result.build.warnings
        + result.lint.issues
        + result.notices
        + [result.infra_error or ""]
    )


def assert_no_hidden_text(result, challenge):
    lines, names = _hidden_material(challenge)
    for field in feedback_fields(result):
        for ln in lines:
            assert ln not in field, (ln, field)
        for name in names:
            assert name not in field, (name, field)


@pytest.mark.parametrize("case", sorted(LEAKS))
async def test_encoded_hidden_tests_are_withheld(case, backend, calc_in_process, tmp_path):
    calc_challenge = calc_in_process
    result, _, work = await judge_files(tmp_path, backend, calc_challenge, {"calc.py": LEAKS[case]})
    assert result.isolation == "in_process"
    assert result.infra_error is None, result.infra_error
    passed = {t.id for t in result.tests if t.outcome == "passed"}
    assert passed == ALL - {MUL}, sorted(passed)  # the honest add and sub still count
    assert_no_hidden_text(result, calc_challenge)
    assert "judge.leak_redacted" in {f.check for f in result.integrity}, result.integrity
    mul = next(t for t in result.tests if t.id == MUL)
    assert "withheld" in mul.message, mul.message
    assert_nothing_left_behind(work)


PEEK = calc("""
    import os
    got = []
    for how, path in (("read", "/judge/tests/1/hidden/test_calc_hidden.py"), ("list", "/judge/tests/1"),
                      ("list", "/judge"), ("read", "/proc/self/root/judge/tests/1/hidden/test_calc_hidden.py"),
                      ("list", "/judge-out")):
        try:
            got.append(str(len(open(path).read()) if how == "read" else len(os.listdir(path))))
        except PermissionError:
            got.append("refused")
    return " ".join(got)""")


def _landlock_abi() -> int:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))


async def test_isolated_worker_cannot_read_judge_files(backend, calc_challenge, tmp_path):
    """Under process isolation the submission's process has no judge-side file in its view:
    every read or listing of ``/judge`` and ``/judge-out``, by any path, is refused."""
    if _landlock_abi() < 1:
        pytest.skip("this kernel has no Landlock: the worker runs with /judge in reach (README)")
    result, _, work = await judge_files(tmp_path, backend, calc_challenge, {"calc.py": PEEK})
    assert result.isolation == "process" and result.infra_error is None, result.infra_error
    passed = {t.id for t in result.tests if t.outcome == "passed"}
    assert passed == ALL - {MUL}, sorted(passed)
    mul = next(t for t in result.tests if t.id == MUL)
    assert "'refused refused refused refused refused' == 42" in mul.message, mul.message
    assert_no_hidden_text(result, calc_challenge)
    assert_nothing_left_behind(work)


async def test_import_error_quoting_the_hidden_module(backend, calc_in_process, tmp_path):
    """In-process, the submission is imported at collection: its ImportError is a build error."""
    calc_challenge = calc_in_process
    result, _, work = await judge_files(tmp_path, backend, calc_challenge, {"calc.py": IMPORT_ERROR_QUOTING})
    assert result.isolation == "in_process"
    assert result.infra_error is None, result.infra_error
    assert result.build.status == "failure" and result.build.errors
    assert_no_hidden_text(result, calc_challenge)
    assert "judge.leak_redacted" in {f.check for f in result.integrity}, result.integrity
    # the static suite's own error (the agent's test file to look at) is still named
    assert any(e.startswith("static/test_calc_static.py") for e in result.build.errors), result.build.errors
    assert_nothing_left_behind(work)


async def test_honest_messages_pass_unchanged(backend, calc_challenge, tmp_path):
    result, _, work = await judge_files(tmp_path, backend, calc_challenge, {"calc.py": calc("    return a * b + 1")})
    mul = next(t for t in result.tests if t.id == MUL)
    assert mul.outcome == "failed" and mul.message == "assert 43 == 42\n +  where 43 = mul(6, 7)", mul.message
    assert "judge.leak_redacted" not in {f.check for f in result.integrity}
    assert_nothing_left_behind(work)


async def test_runner_patch_padded_past_512_kib_is_still_found(backend, calc_challenge, tmp_path):
    """The scan sees it however large the file (it used to skip files over 512 KiB); the
    verdict is the honest one under isolation (hostile.py, forgery_runner_patch_padded)."""
    from hostile import CASES

    forged = next(c for c in CASES if c.name == "patch_runner_and_judge_plugin")
    padded = forged.files["calc.py"] + "\n" + "#" + "x" * (600 * 1024) + "\n"
    result, _, work = await judge_files(tmp_path, backend, calc_challenge, {"calc.py": padded})
    found = {f.check: f.severity for f in result.integrity}
    assert found.get("tamper.runner_internals") == "error", result.integrity
    assert_nothing_left_behind(work)


# alone (scripts/test.sh): assert_nothing_left_behind looks for hostile processes machine-wide
# (GHOSTILE in a command line): beside another xdist worker's hostile runs it saw theirs.
pytestmark = pytest.mark.alone
