#!/usr/bin/env bash
# npm run bench: ratios measured side by side in one run; writes bench/results.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/lib/setup.sh
setup_node_modules
setup_n8n 2
setup_build
exec npx tsx bench/run.ts "$@"
