"""arena.judge — snapshots, the judge run in a fresh sandbox, safe JUnit parsing, tamper scan."""

from arena.results import JudgeResult  # noqa: F401
from arena.judge.runner import Judge, JudgeSpec  # noqa: F401
from arena.judge.snapshot import Snapshot, SnapshotCaps, diff_stats, load_snapshot, take_snapshot  # noqa: F401
