#!/usr/bin/env bash
# The test command (README, .ci/run): the whole suite in two phases.
# 1. Two pytest processes at once over disjoint halves. The suite mostly waits on real time
#    (real agents at time scale 1, containers starting), so two halves side by side take
#    about half the wall time of one run on 2 cores. The first half names its folders, the
#    second is `tests` without them. Tests that look for leftovers look for their own
#    process's (the gauntlet.owner label, the per-pid state), so the halves do not see each
#    other's.
# 2. The tests marked `alone`, with nothing else running: their margins are real time at a
#    high time scale (a Ray cluster against this machine, a demo round squeezed into a
#    minute, calibrations), and the other half's load moved them past a cutoff in CI.
# Every test runs exactly once. The command fails if any phase fails; pytest's exit 5 (no
# tests collected) is a failure too.
set -u
cd "$(dirname "$0")/.."
FIRST=(tests/adapters tests/gateway tests/judge_formats tests/observe tests/realagents tests/scoring
  tests/security tests/steps tests/task_import tests/transcripts tests/tui)
IGNORE=()
for d in "${FIRST[@]}"; do IGNORE+=("--ignore=$d"); done
log=$(mktemp)
python -m pytest -q -m "not alone" "$@" "${FIRST[@]}" >"$log" 2>&1 &
first=$!
python -m pytest -q -m "not alone" "$@" tests "${IGNORE[@]}"
second=$?
wait "$first"
first_rc=$?
echo "== the first half (${FIRST[*]})"
cat "$log"
rm -f "$log"
echo "== the tests marked alone"
python -m pytest -q -m alone "$@" tests
alone=$?
echo "== phases: first half exit $first_rc, second half exit $second, alone exit $alone"
[ "$first_rc" -eq 0 ] && [ "$second" -eq 0 ] && [ "$alone" -eq 0 ]
