#!/usr/bin/env bash
# The README's test command. Unit and in-process workflow tests run on the machine's Node;
# end-to-end tests drive a real n8n 2.41.1 (installed by scripts/install-n8n.sh) one at a time.
# Ends with a plain line "N passed, N failed" counted from jest's JSON results.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p out/test
rm -f out/test/unit.json out/test/e2e.json

if [ ! -f dist/index.js ] || [ -n "$(find nodes credentials index.ts -newer dist/index.js -name '*.ts' 2>/dev/null | head -1)" ]; then
  npm run build --silent || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
fi

npx jest --selectProjects unit --ci --json --outputFile=out/test/unit.json "$@"
unit_rc=$?
e2e_rc=0
if [ "${SKIP_E2E:-}" != "1" ]; then
  npx jest --selectProjects e2e --ci --runInBand --json --outputFile=out/test/e2e.json "$@"
  e2e_rc=$?
fi

node -e '
const fs = require("fs");
let passed = 0, failed = 0, suitesFailed = 0;
for (const f of ["out/test/unit.json", "out/test/e2e.json"]) {
  if (!fs.existsSync(f)) continue;
  const r = JSON.parse(fs.readFileSync(f, "utf8"));
  passed += r.numPassedTests; failed += r.numFailedTests;
  suitesFailed += r.numRuntimeErrorTestSuites || 0;
}
// A suite that failed to load counts as a failure even though it ran no test.
console.log(`${passed} passed, ${failed + suitesFailed} failed`);
'
if [ $unit_rc -ne 0 ] || [ $e2e_rc -ne 0 ]; then exit 1; fi
