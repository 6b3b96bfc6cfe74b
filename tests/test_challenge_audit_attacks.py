"""`gauntlet challenge audit` runs seed 003 gate 4's three attacks (issue 20 item 4): deletion,
regex and copying, each a real attempt in the local sandbox, judged on the objective. A
shallow package, the minimal fixture with a bug one common regex fixes (``b + a - 1``: "drop
- 1"), is rejected by the regex attack (critical above 50); the copy attack is a high above 40."""

import json
import shutil
from pathlib import Path

from arena.pipeline.baselines import GATE_4
from gauntlet_tui.cli import main

MINIMAL = Path(__file__).parent / "fixtures" / "minimal"


def test_audit_runs_the_three_attacks_on_the_objective(tmp_path, capsys):
    pkg = tmp_path / "pkg"
    shutil.copytree(MINIMAL, pkg, symlinks=True)
    (pkg / "starter/calc.py").write_text('def add(a, b):\n    """Return the sum of a and b."""\n    return b + a - 1\n')
    rc = main(["challenge", "audit", "--json", "--sandbox", "local", "--time-scale", "200", str(pkg)])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1 and doc["verdict"] == "reject"
    attacks = doc["attacks"]
    assert set(attacks) == {"attack-delete", "attack-regex", "attack-copy"}
    assert all(len(v) == 1 and 0.0 <= v[0] <= 100.0 for v in attacks.values())
    shortcut = {f["detail"].split(" ")[0]: f for f in doc["findings"] if f["check"] == "trivial_shortcut"}
    assert set(shortcut) == set(attacks)
    for name, (limit, severity) in GATE_4.items():  # each judged on its objective, as the seed writes
        assert shortcut[name]["severity"] == (severity if attacks[name][0] > limit else "info")
        assert f"objective {attacks[name][0]:g}" in shortcut[name]["detail"]
    assert attacks["attack-regex"][0] > 50 and "critical: challenge too shallow" in shortcut["attack-regex"]["detail"]
    assert attacks["attack-delete"][0] <= 30  # deleting code fixes nothing
    assert attacks["attack-copy"][0] > 40 and shortcut["attack-copy"]["severity"] == "warning"
