#!/usr/bin/env bash
# npm run fuzz -- [--runs N] [--seed S] [--path P] [--ignore tag,tag] [--time-ms T] [--verbose] [test path…] [jest args…]
# Runs the property suites (test/property) and the media fuzz tests (test/fuzz) with N generated runs per property
# (default 200) and no time limit; a failure prints its seed and the one-line command that replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=200
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
		--runs) runs="$2"; shift 2 ;;
		--seed) export FUZZ_SEED="$2"; shift 2 ;;
		--path) export FUZZ_PATH="$2"; shift 2 ;;
		--ignore) export FUZZ_IGNORE="$2"; shift 2 ;;
		--time-ms) export FUZZ_TIME_MS="$2"; shift 2 ;;
		--verbose) export FUZZ_VERBOSE=1; shift ;;
		*) extra+=("$1"); shift ;;
	esac
done
export FUZZ_RUNS="$runs"
dirs=(test/property)
[ -d test/fuzz ] && dirs+=(test/fuzz)
# a path among the extra arguments narrows the run to it
for a in "${extra[@]}"; do case "$a" in -*) ;; *) dirs=() ;; esac; done
# only the unit project matches these folders; no --selectProjects (it would swallow the paths that follow it)
exec npx jest "${extra[@]}" "${dirs[@]}"
