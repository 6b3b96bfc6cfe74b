#!/usr/bin/env bash
# The test command (README, .ci/run): the whole suite as two pytest processes at once. The
# suite mostly waits on real time (real agents at time scale 1, attempt clocks, containers
# starting), so two halves side by side take about half the wall time of one run on 2 cores.
# Every test is in exactly one half: the first names its folders, the second is `tests`
# without them. Tests that look for leftovers look for their own process's (the
# gauntlet.owner label, the per-pid state), so the halves do not see each other's. The
# first half's output follows the second's; the command fails if either half fails (pytest's
# exit 5, no tests, is a failure too).
set -u
cd "$(dirname "$0")/.."
FIRST=(tests/adapters tests/gateway tests/judge_formats tests/observe tests/realagents tests/scoring
  tests/security tests/steps tests/task_import tests/transcripts tests/tui)
IGNORE=()
for d in "${FIRST[@]}"; do IGNORE+=("--ignore=$d"); done
log=$(mktemp)
python -m pytest -q "$@" "${FIRST[@]}" >"$log" 2>&1 &
first=$!
python -m pytest -q "$@" tests "${IGNORE[@]}"
second=$?
wait "$first"
first_rc=$?
echo "== the first half (${FIRST[*]})"
cat "$log"
rm -f "$log"
echo "== halves: first exit $first_rc, second exit $second"
[ "$first_rc" -eq 0 ] && [ "$second" -eq 0 ]
