"""Result files of a judge command in any language (manifest ``judge.results``).

A package whose judge is not pytest names the file its command writes and its format:

- ``junit``: JUnit XML (``junit.py``, the default when ``judge.results`` is absent);
- ``ctrf``: CTRF JSON (``{"results": {"tests": [{"name", "status", "message"...}]}}``);
- ``tap``: TAP 12/13/14 (``ok``/``not ok`` lines, a plan, ``# SKIP``/``# TODO``,
  ``Bail out!``), from a file or from the command's standard output (``path: stdout``);
- ``reward``: a reward file as Harbor writes it: ``reward.txt`` (one number) or
  ``reward.json`` (a number or ``{"name": number, ...}``); each reward is one test,
  passed when it is 1 (a partial reward is a failure whose message gives the value:
  ``reward 0.0 of 1.0``). When the script also wrote a CTRF report beside it
  (``ctrf.json``, as Harbor's template has pytest write), its tests are the results
  instead of the one ``reward`` (issue 37), and a reward below 1 with no CTRF test failed
  still fails (as the test ``reward``).

Every parser maps onto the same ``RawCase`` list the JUnit reader gives, so feedback
and the scorecard are unchanged. The file is hostile input (written beside the
submission): size-capped, messages capped, never followed through a link. A file that
cannot be read as its format raises ``ResultsError`` naming the file and what is wrong;
the runner turns it into ``infra_error``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from arena.judge.verdict.junit import JUnitError, RawCase, cap_message, parse_junit, read_report
from arena.results import Outcome
from arena.challenge.models import RESULTS_FORMATS as FORMATS, RESULTS_STDOUT as STDOUT

MAX_TESTS = 20000
REWARD_PASS = 1.0 - 1e-9


class ResultsError(ValueError):
    """A result file that is not what its declared format says."""


def parse(fmt: str, data: bytes, name: str) -> list[RawCase]:
    """The tests of a result file of format ``fmt`` (``name``: for messages and reward files)."""
    try:
        if fmt == "junit":
            return parse_junit(data)
        if fmt == "ctrf":
            return parse_ctrf(data)
        if fmt == "tap":
            return parse_tap(data)
        if fmt == "reward":
            return parse_reward(data, json_file=name.endswith(".json"))
    except JUnitError as e:
        raise ResultsError(str(e)) from None
    raise ResultsError(f"unknown result format {fmt!r}: expected one of {', '.join(FORMATS)}")


def read(fmt: str, path: str, out_dir: Path, stdout: bytes = b"") -> list[RawCase] | None:
    """The tests of the run's result file (``path`` relative to the run's output
    directory), None when the command wrote none; ``ResultsError`` names the file."""
    if fmt == "tap" and path == STDOUT:
        data: bytes | None = stdout or None
        where = "the judge command's standard output"
    else:
        where = path
        candidates = [path]
        if fmt == "reward" and Path(path).name in ("reward.txt", "reward.json"):
            # Harbor writes either: the other one, next to it, when the named one is absent
            other = "reward.json" if path.endswith(".txt") else "reward.txt"
            candidates.append(str(Path(path).with_name(other)))
        data = None
        for cand in candidates:
            try:
                data = read_report(str(out_dir / cand))
            except JUnitError as e:
                raise ResultsError(f"{fmt} result file {cand}: {e}") from None
            if data is not None:
                where = path = cand
                break
    if data is None:
        return None
    try:
        cases = parse(fmt, data, path)
    except ResultsError as e:
        raise ResultsError(f"{fmt} result file {where}: {e}") from None
    if fmt == "reward":
        return _with_ctrf(cases, out_dir / Path(path).with_name(CTRF_NAME))
    return cases


CTRF_NAME = "ctrf.json"  # beside a reward file: per-test results (Harbor's pytest --ctrf)


def _with_ctrf(rewards: list[RawCase], ctrf: Path) -> list[RawCase]:
    """The CTRF report's tests in place of the reward's, when the script wrote one that reads."""
    try:
        data = read_report(str(ctrf))
        tests = parse_ctrf(data) if data is not None else []
    except (JUnitError, ResultsError):  # an unreadable CTRF report: the reward stands
        return rewards
    if not tests:
        return rewards
    if not any(t.outcome in ("failed", "error") for t in tests):
        tests += [r for r in rewards if r.outcome != "passed"]  # the reward still decides a failure
    return tests


# -- CTRF --------------------------------------------------------------------------
_CTRF_STATUS: dict[str, Outcome] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "pending": "skipped",
    "other": "error",
}


def _json(data: bytes) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ResultsError(f"not UTF-8 text ({e})") from None
    except (json.JSONDecodeError, RecursionError) as e:
        raise ResultsError(f"not valid JSON ({e})") from None


def parse_ctrf(data: bytes) -> list[RawCase]:
    doc = _json(data)
    results = doc.get("results") if isinstance(doc, dict) else None
    tests = results.get("tests") if isinstance(results, dict) else None
    if not isinstance(tests, list):
        raise ResultsError('expected a CTRF document: {"results": {"tests": [...]}}')
    if len(tests) > MAX_TESTS:
        raise ResultsError(f"{len(tests)} tests, over the {MAX_TESTS} cap")
    out = []
    for i, t in enumerate(tests):
        if not isinstance(t, dict) or not isinstance(t.get("name"), str) or not t["name"]:
            raise ResultsError(f"results.tests[{i}]: expected an object with a non-empty string name")
        status = t.get("status")
        if status not in _CTRF_STATUS:
            raise ResultsError(
                f"results.tests[{i}] ({t['name']}): status {status!r}: expected one of {', '.join(_CTRF_STATUS)}"
            )
        msg = t.get("message") or t.get("trace") or ""
        suite = t.get("suite")
        if isinstance(suite, list):
            suite = ".".join(str(s) for s in suite)
        out.append(
            RawCase(
                classname=str(suite or ""),
                name=t["name"],
                file=t["filePath"] if isinstance(t.get("filePath"), str) else None,
                outcome=_CTRF_STATUS[status],
                message=cap_message(msg if isinstance(msg, str) else json.dumps(msg)),
            )
        )
    return out


# -- TAP ---------------------------------------------------------------------------
_PLAN = re.compile(r"^1\.\.(\d+)(\s*#.*)?$")
# a test line is "ok" or "not ok" then a space or the line's end ("ok, I guess" is not one)
_TEST = re.compile(r"^(not ok|ok)(?=\s|$)\s*(\d+)?\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$")
_BAIL = re.compile(r"^Bail out!\s*(.*)$", re.IGNORECASE)


def parse_tap(data: bytes) -> list[RawCase]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultsError(f"not UTF-8 text ({e})") from None
    plan: int | None = None
    out: list[RawCase] = []
    numbers: set[int] = set()
    diag: list[str] | None = None  # the YAML block after a test line
    bailed = ""
    for raw in text.splitlines():
        if diag is not None:
            if raw.strip() == "...":
                if out and out[-1].outcome != "passed" and not out[-1].message:
                    out[-1].message = cap_message(_diag_message(diag))
                diag = None
            else:
                diag.append(raw)
            continue
        if raw.startswith((" ", "\t")):
            if raw.strip() == "---" and out:
                diag = []
            continue  # subtests and comments of a test: the parent line counts
        line = raw.strip()
        if m := _PLAN.match(line):
            if plan is not None:
                raise ResultsError("two plans (1..N lines)")
            plan = int(m.group(1))
        elif m := _BAIL.match(line):
            bailed = m.group(1) or "the test run bailed out"
            break
        elif m := _TEST.match(line):
            ok, num, desc, directive = m.group(1) == "ok", m.group(2), m.group(3).strip(), (m.group(4) or "").strip()
            n = int(num) if num else len(out) + 1
            numbers.add(n)
            word = directive.split(None, 1)[0].upper() if directive else ""
            outcome: Outcome
            if word == "SKIP":
                outcome = "skipped"
            elif word == "TODO":
                outcome = "skipped" if not ok else "passed"
            else:
                outcome = "passed" if ok else "failed"
            out.append(RawCase("", desc or f"test {n}", None, outcome, cap_message(directive if not ok else "")))
            if len(out) > MAX_TESTS:
                raise ResultsError(f"over {MAX_TESTS} test lines")
    if plan is None and not out and not bailed:
        raise ResultsError("no TAP plan (1..N) and no ok/not ok line")
    if plan is not None:
        for n in range(1, plan + 1):
            if n not in numbers:
                out.append(RawCase("", f"test {n}", None, "error", bailed or f"planned (1..{plan}) but not reported"))
    elif bailed:
        out.append(RawCase("", "bail out", None, "error", cap_message(bailed)))
    return out


def _diag_message(lines: list[str]) -> str:
    for ln in lines:
        s = ln.strip()
        if s.startswith("message:"):
            return s.split(":", 1)[1].strip().strip("'\"")
    return "\n".join(s.strip() for s in lines)


# -- reward files (Harbor) --------------------------------------------------------
def _reward_value(v: object, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ResultsError(f"{where}: {v!r} is not a number: expected a reward such as 0, 0.5 or 1")
    if not math.isfinite(v):
        raise ResultsError(f"{where}: {v!r} is not a finite number")
    return float(v)


def _reward_case(name: str, value: float) -> RawCase:
    if value >= REWARD_PASS:
        return RawCase("reward", name, None, "passed")
    return RawCase("reward", name, None, "failed", f"reward {reward_text(value)} of 1.0")


def reward_text(value: float) -> str:
    """A reward as a number reads: 0.0, 0.5, 1.0 (never '0', which reads as a count)."""
    s = f"{value:.4g}"
    return s if any(c in s for c in ".en") else f"{s}.0"


def parse_reward(data: bytes, *, json_file: bool) -> list[RawCase]:
    """reward.txt: one number (one test, ``reward``); reward.json: a number or an object
    of named numbers (one test each)."""
    if json_file:
        doc = _json(data)
        if isinstance(doc, dict):
            if not doc:
                raise ResultsError("an empty object: expected {name: reward, ...}")
            if len(doc) > MAX_TESTS:
                raise ResultsError(f"{len(doc)} rewards, over the {MAX_TESTS} cap")
            return [_reward_case(str(k), _reward_value(v, f"key {k!r}")) for k, v in doc.items()]
        return [_reward_case("reward", _reward_value(doc, "the document"))]
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError as e:
        raise ResultsError(f"not UTF-8 text ({e})") from None
    if not text:
        raise ResultsError("empty: expected one number such as 0 or 1")
    try:
        value = float(text)
    except ValueError:
        raise ResultsError(f"{text[:40]!r} is not a number: expected one number such as 0 or 1") from None
    return [_reward_case("reward", _reward_value(value, "the value"))]
