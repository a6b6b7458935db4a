#!/usr/bin/env bash
# npm run queue-mode: the demo workflows in n8n's queue mode (Redis + PostgreSQL from Debian's packages,
# one main, two workers) against the embedded simulator; checks nothing was lost or duplicated.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/install-system-deps.sh
bash scripts/install-n8n.sh
npm run build --silent
exec npx tsx scripts/queue-mode.ts "$@"
