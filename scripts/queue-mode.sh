#!/usr/bin/env bash
# npm run queue-mode: the demo workflows in n8n's queue mode (Redis + PostgreSQL from Debian's packages,
# one main, two workers) against the embedded simulator; checks nothing was lost or duplicated.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/lib/setup.sh
setup_all 2
exec npx tsx scripts/queue-mode.ts "$@"
