#!/usr/bin/env bash
# npm run bench: ratios measured side by side in one run; writes bench/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/install-n8n.sh
npm run build --silent
exec npx tsx bench/run.ts "$@"
