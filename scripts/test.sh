#!/usr/bin/env bash
# The README's test command. Does its own set-up (npm packages, Debian packages, the private n8n 2.x and 1.x),
# then runs: unit and in-process workflow tests on the machine's Node; end-to-end tests in a real n8n 2.41.1
# (its own Node 24) and a subset in n8n 1.123.x (Node 22), three files at a time.
# Ends with a plain line "N passed, N failed" counted from jest's JSON results.
#   SKIP_E2E=1 npm test      unit and in-process tests only (no n8n needed)
#   SKIP_N8N1=1 npm test     without the n8n 1.x subset
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/lib/setup.sh
phase_start=$(date +%s)
phase() { echo "== $1 took $(( $(date +%s) - phase_start )) s"; phase_start=$(date +%s); }
mkdir -p out/test
# one n8n state template (package installed, database migrated) per n8n version and build, shared by every
# process of the run and by the demo and the tests that follow it (scripts/lib/n8n/state.ts: stateTemplate)
export GG_N8N_TEMPLATES="${GG_N8N_TEMPLATES:-$ROOT/out/n8n-templates}"
rm -f out/test/unit.json out/test/e2e.json out/test/e2e-n8n1.json

count() {
  node -e '
const fs = require("fs");
let passed = 0, failed = 0, suitesFailed = 0;
const failures = [];
const plain = (t) => String(t).replace(/\x1b\[[0-9;]*m/g, "");
// the first lines of a failure, without the code frame and the stack (the end of the log is what a reader sees first)
const gist = (t) => plain(t).split("\n").map((l) => l.trimEnd()).filter((l) => l.trim() && !/^\s*(at |>?\s*\d+ \||\|)/.test(l)).slice(0, 6);
for (const f of ["out/test/unit.json", "out/test/e2e.json", "out/test/e2e-n8n1.json"]) {
  if (!fs.existsSync(f)) continue;
  const r = JSON.parse(fs.readFileSync(f, "utf8"));
  passed += r.numPassedTests; failed += r.numFailedTests;
  suitesFailed += r.numRuntimeErrorTestSuites || 0;
  for (const s of r.testResults || []) {
    const file = require("path").relative(process.cwd(), s.name);
    const bad = (s.assertionResults || []).filter((a) => a.status === "failed");
    for (const a of bad) failures.push([`${file} › ${a.fullName}`, gist((a.failureMessages || []).join("\n"))]);
    if (!bad.length && s.status === "failed") failures.push([`${file} (the file failed to run)`, gist(s.message || "")]);
  }
}
if (failures.length) {
  console.log(`== failed tests (${failures.length}; each with the first lines of its message):`);
  for (const [name, lines] of failures.slice(0, 12)) console.log([`  ✕ ${name}`, ...lines.map((l) => `      ${l.trim().slice(0, 200)}`)].join("\n"));
  if (failures.length > 12) console.log(`  … and ${failures.length - 12} more (out/test/*.json)`);
}
// A suite that failed to load counts as a failure even though it ran no test; so does a failed set-up step.
console.log(`${passed} passed, ${failed + suitesFailed + Number(process.argv[1] || 0)} failed`);
' "${1:-0}" > out/test/count.txt
  cat out/test/count.txt
  tail -n 1 out/test/count.txt > out/test/summary.txt
}
fail_setup() { echo "$1"; count 1; exit 1; }

( set -e; setup_node_modules ) || fail_setup "set-up failed: npm packages"
if [ "${SKIP_E2E:-}" != "1" ]; then
  ( set -e; setup_system_deps; setup_n8n 2 ) || fail_setup "set-up failed: Debian packages or n8n 2.x"
fi
( set -e; setup_build ) || fail_setup "set-up failed: build"
# the n8n 1.x runtime (only its e2e subset needs it) installs while the unit tests run: most of it is waiting on the
# npm registry (docs/ci.md); its output goes to out/test/setup-n8n1.log and is shown if it fails
n8n1_pid=""
if [ "${SKIP_E2E:-}" != "1" ] && [ "${SKIP_N8N1:-}" != "1" ]; then
  ( set -e; setup_n8n 1 ) > out/test/setup-n8n1.log 2>&1 &
  n8n1_pid=$!
  echo "== installing n8n 1.x in the background (out/test/setup-n8n1.log)"
fi

phase "set-up"

# three workers on two cores: the unit files need about 370 CPU-seconds and kept two workers busy 360 s, so the
# cores were idle half the time (most tests wait on loopback servers and timers); UNIT_WORKERS overrides (docs/ci.md)
npx jest --selectProjects unit --ci --maxWorkers="${UNIT_WORKERS:-3}" --passWithNoTests --json --outputFile=out/test/unit.json "$@"
unit_rc=$?
phase "unit"
if [ -n "$n8n1_pid" ]; then
  if ! wait "$n8n1_pid"; then cat out/test/setup-n8n1.log; fail_setup "set-up failed: n8n 1.x"; fi
  tail -n 1 out/test/setup-n8n1.log
  phase "n8n 1.x set-up (beyond the unit tests)"
fi
e2e_rc=0
if [ "${SKIP_E2E:-}" != "1" ]; then
  # both n8n versions in one run on three workers (test/setup-n8n1.ts selects n8n 1.x per file): most e2e time is
  # waiting on n8n, queues, schedules and a browser, so three files share the two cores; with two, the phase took
  # 897 s for 1667 file-seconds (docs/ci.md)
  projects=(e2e e2e-n8n1)
  [ "${SKIP_N8N1:-}" = "1" ] && projects=(e2e)
  npx jest --selectProjects "${projects[@]}" --ci --maxWorkers="${E2E_WORKERS:-3}" --passWithNoTests --json --outputFile=out/test/e2e.json "$@"
  e2e_rc=$?
  phase "e2e (n8n 2 and n8n 1)"
fi
count 0
if [ $unit_rc -ne 0 ] || [ $e2e_rc -ne 0 ]; then exit 1; fi
