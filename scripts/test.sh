#!/usr/bin/env bash
# The test command (README, .ci/run): the whole suite in two phases.
# 1. Every test not marked `alone`, on two pytest-xdist workers, one test file at a time per
#    worker (--dist loadfile: a file's module fixtures and order stay as in a plain run). The
#    suite mostly waits on real time (real agents at time scale 1, containers starting), so
#    two workers take about half the wall time of one run on 2 cores, and the queue keeps
#    them balanced. Tests that look for leftovers look for their own process's (the
#    gauntlet.owner label, the per-pid state), so the workers do not see each other's.
# 2. The tests marked `alone`, with nothing else running: their margins are real time at a
#    high time scale (a Ray cluster against this machine, a demo round squeezed into 45 s, a
#    calibration under a synthetic load), and the other worker's load moved them past a
#    cutoff in CI; or they look for hostile processes machine-wide (GHOSTILE in a command
#    line), which the other worker's hostile submissions would be.
# Every test runs exactly once. The command fails if either phase fails; pytest's exit 5 (no
# tests collected) is a failure too. Extra arguments go to both phases.
set -u
cd "$(dirname "$0")/.."
# A short --basetemp: xdist puts each worker's tmp_path under popen-gwN/, and under
# /tmp/pytest-of-root/pytest-N/ that pushed an attempt's gateway socket past the 108 bytes a
# unix socket path may have (every real-agent test failed on it).
base="${TMPDIR:-/tmp}/gt$$"
python -m pytest -q -n 2 --dist loadfile --basetemp="$base" -m "not alone" "$@" tests
shared=$?
rm -rf "$base"
echo "== the tests marked alone"
python -m pytest -q -m alone "$@" tests
alone=$?
echo "== phases: two workers exit $shared, alone exit $alone"
[ "$shared" -eq 0 ] && [ "$alone" -eq 0 ]
