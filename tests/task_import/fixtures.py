"""Harbor and Terminal-Bench task directories written by the tests (issue 23)."""

from __future__ import annotations

from pathlib import Path


def _w(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def harbor_python(root: Path) -> Path:
    _w(
        root / "task.toml",
        'version = "1.0"\n[metadata]\ndifficulty = "easy"\n'
        "[verifier]\ntimeout_sec = 60.0\n[agent]\ntimeout_sec = 600.0\n[environment]\ncpus = 1\nmemory_mb = 512\n",
    )
    _w(root / "instruction.md", "Fix `add` in /app/calc.py: it must return the sum of its arguments.\n")
    _w(root / "environment" / "Dockerfile", "FROM gauntlet-base\nWORKDIR /app\nCOPY calc.py /app/calc.py\n")
    _w(root / "environment" / "calc.py", "def add(a, b):\n    return a - b\n")
    _w(root / "tests" / "test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    _w(
        root / "tests" / "test.sh",
        "#!/bin/bash\ncd /app\n"
        "if PYTHONPATH=/app python3 -m pytest -q -p no:cacheprovider /tests/test_calc.py; then\n"
        "  echo 1 > /logs/verifier/reward.txt\nelse\n  echo 0 > /logs/verifier/reward.txt\nfi\n",
    )
    _w(
        root / "solution" / "solve.sh",
        "#!/bin/bash\ncat > /app/calc.py <<'EOF'\ndef add(a, b):\n    return a + b\nEOF\n",
    )
    return root


def harbor_c(root: Path) -> Path:
    """A C task: gcc from Debian's packages, installed by the task's own Dockerfile (the one
    step declared to need the network: ``RUN --network=default``)."""
    _w(
        root / "task.toml",
        '[metadata]\ndifficulty = "medium"\n[verifier]\ntimeout_sec = 60\n[agent]\ntimeout_sec = 900\n',
    )
    _w(root / "instruction.md", "Make /app/fact.c print the factorial of its argument.\n")
    _w(
        root / "environment" / "Dockerfile",
        "FROM gauntlet-base\nUSER root\n"
        "RUN --network=default apt-get update -qq && apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null"
        " && rm -rf /var/lib/apt/lists/*\n"
        "USER 1000:1000\nWORKDIR /app\nCOPY fact.c /app/\n",
    )
    _w(
        root / "environment" / "fact.c",
        "#include <stdio.h>\n#include <stdlib.h>\n"
        "int main(int c, char **v) { long n = atol(v[1]), r = 1; for (long i = 2; i < n; i++) r *= i;"
        ' printf("%ld\\n", r); return 0; }\n',
    )
    _w(
        root / "tests" / "test.sh",
        "#!/bin/bash\n"
        'if gcc -o /tmp/fact /app/fact.c && [ "$(/tmp/fact 5)" = 120 ] && [ "$(/tmp/fact 1)" = 1 ]; then\n'
        "  echo '{\"compiles_and_runs\": 1}' > /logs/verifier/reward.json\n"
        "else\n  echo '{\"compiles_and_runs\": 0}' > /logs/verifier/reward.json\nfi\n",
    )
    _w(root / "solution" / "solve.sh", "#!/bin/bash\nsed -i 's/i < n/i <= n/' /app/fact.c\n")
    return root


def tb_shell(root: Path) -> Path:
    _w(
        root / "task.yaml",
        "instruction: |\n  Write a file /app/hello.txt whose only line is: hello\n"
        "difficulty: easy\ncategory: file-operations\nmax_agent_timeout_sec: 700\nmax_test_timeout_sec: 30\n",
    )
    _w(root / "Dockerfile", "FROM gauntlet-base\nWORKDIR /app\n")
    _w(root / "run-tests.sh", '#!/bin/bash\n[ "$(cat /app/hello.txt)" = hello ]\n')
    _w(root / "solution.sh", "#!/bin/bash\necho hello > /app/hello.txt\n")
    return root


def harbor_steps(root: Path) -> Path:
    """A two-step Harbor task (shell only): step 1 writes a greeting, step 2 counts the lines
    of a file the environment ships. The task's tests/ holds a helper both step scripts use
    (Harbor lays each step's tests/ over the task's)."""
    _w(
        root / "task.toml",
        'version = "1.0"\nmulti_step_reward_strategy = "mean"\n[metadata]\ndifficulty = "easy"\n'
        "[agent]\ntimeout_sec = 1800.0\n[environment]\ncpus = 1\nmemory_mb = 512\n\n"
        '[[steps]]\nname = "greet"\nmin_reward = 1.0\nagent = { timeout_sec = 1500.0 }\n'
        "verifier = { timeout_sec = 30.0 }\n\n"
        '[[steps]]\nname = "count"\nagent = { timeout_sec = 2100.0 }\nverifier = { timeout_sec = 45.0 }\n',
    )
    _w(root / "environment" / "Dockerfile", "FROM gauntlet-base\nWORKDIR /app\nCOPY data.txt /app/data.txt\n")
    _w(root / "environment" / "data.txt", "a\nb\nc\n")
    _w(
        root / "tests" / "check.sh",
        "# check FILE EXPECTED: reward 1 when FILE holds EXPECTED\ncheck() {\n  mkdir -p /logs/verifier\n"
        '  if [ "$(cat "$1" 2>/dev/null)" = "$2" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n}\n',
    )
    _w(root / "steps" / "greet" / "instruction.md", "Write /app/hello.txt whose only line is: hello\n")
    _w(root / "steps" / "greet" / "tests" / "test.sh", "#!/bin/bash\n. /tests/check.sh\ncheck /app/hello.txt hello\n")
    _w(root / "steps" / "greet" / "solution" / "solve.sh", "#!/bin/bash\necho hello > /app/hello.txt\n")
    _w(root / "steps" / "count" / "instruction.md", "Write the number of lines of /app/data.txt to /app/count.txt.\n")
    _w(root / "steps" / "count" / "tests" / "test.sh", "#!/bin/bash\n. /tests/check.sh\ncheck /app/count.txt 3\n")
    _w(root / "steps" / "count" / "solution" / "solve.sh", "#!/bin/bash\nwc -l < /app/data.txt > /app/count.txt\n")
    return root
