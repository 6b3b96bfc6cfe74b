"""arena.judge — snapshots, the judge run in a fresh sandbox, safe JUnit parsing, tamper scan.

Four rooms, each importing only the ones below it (pyproject.toml's import-linter contract
"The judge's rooms"):

- ``run/``: running a suite in a sandbox — ``Judge``, its pools, the judge-side directory,
  the command rule, the coverage pass.
- ``static/``: the static judges over a stored snapshot — ruff, bandit, semgrep, the lint scan.
- ``verdict/``: the verdict and what it may disclose — the snapshot judged, the expected
  tests, JUnit and other result files, the verdict, leak redaction, the tamper scan.
- ``in_sandbox/``: the code the judge ships into the sandbox, as source text — the trusted
  bootstrap and plugin, the launcher, the isolation plugin and worker, the wire between them.

The public entry points are these names, importable from ``arena.judge`` itself.
"""

from arena.results import JudgeResult  # noqa: F401
from arena.judge.run.runner import Judge, JudgeSpec  # noqa: F401
from arena.judge.verdict.snapshot import Snapshot, SnapshotCaps, diff_stats, load_snapshot, take_snapshot  # noqa: F401
