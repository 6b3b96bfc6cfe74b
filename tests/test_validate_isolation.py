"""`gauntlet challenge validate --run` refuses a package whose reference needs the test process
(issue 27 item 3): the reference's judge result carries an isolation notice, and the finding
names the test and the construct and says the package needs ``judge.isolation: in_process``."""

import shutil
from pathlib import Path

import yaml

from arena.challenge import load_challenge
from arena.pipeline.package_runs import run_checks
from gauntlet_tui.cli import main

MINIMAL = Path(__file__).parent / "fixtures" / "minimal"

MONEY = """
class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        if isinstance(other, int):
            return self.cents == other
        return isinstance(other, Money) and self.cents == other.cents
"""
TEST = """from calc import Money


def test_money_equals_its_cents():
    assert Money(5) == 5
"""


def package(tmp_path: Path, isolation: str | None = None) -> Path:
    pkg = tmp_path / "pkg"
    shutil.copytree(MINIMAL, pkg, symlinks=True)
    (pkg / "tests/static/test_money.py").write_text(TEST)
    sol = pkg / "solution/calc.py"
    sol.write_text(sol.read_text() + MONEY)
    st = pkg / "starter/calc.py"
    st.write_text(st.read_text() + MONEY.replace("return self.cents == other", "return False"))
    if isolation:
        data = yaml.safe_load((pkg / "challenge.yaml").read_text())
        data["judge"]["isolation"] = isolation
        (pkg / "challenge.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return pkg


def test_validate_run_refuses_a_reference_with_isolation_notices(tmp_path, capsys):
    pkg = package(tmp_path)
    found, _ = run_checks(load_challenge(pkg), "local")
    iso = [f for f in found if f.check == "isolation"]
    assert [f.severity for f in iso] == ["error"], found
    d = iso[0].detail
    assert "static/test_money.py::test_money_equals_its_cents" in d
    assert "eq-test-value" in d and "needs judge.isolation: in_process" in d
    # the CLI shows it and fails
    assert main(["challenge", "validate", "--run", "--sandbox", "local", str(pkg)]) != 0
    out = capsys.readouterr().out
    assert "test_money_equals_its_cents" in out and "judge.isolation: in_process" in out


def test_the_same_package_in_process_has_no_isolation_finding(tmp_path):
    found, _ = run_checks(load_challenge(package(tmp_path, "in_process")), "local")
    assert [f for f in found if f.check == "isolation"] == []
    assert any(f.check == "solution_run" and "passes all" in f.detail for f in found), found


def test_a_test_subclassing_the_submission_class_is_refused_by_name(tmp_path):
    pkg = package(tmp_path)
    (pkg / "tests/static/test_money.py").write_text(
        "from calc import Money\n\n\nclass Euros(Money):\n    pass\n\n\ndef test_euros():\n    assert Euros(5).cents == 5\n"
    )
    found, _ = run_checks(load_challenge(pkg), "local")
    iso = [f.detail for f in found if f.check == "isolation"]
    assert len(iso) == 1 and iso[0].startswith("solution/: static/test_money.py: "), found
    assert "cannot subclass the submission's calc.Money" in iso[0] and "needs judge.isolation: in_process" in iso[0]
    sol = [f.detail for f in found if f.check == "solution_run"]
    assert "TypeError: judge: a test class cannot subclass" in sol[0], sol
