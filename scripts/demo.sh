#!/usr/bin/env bash
# npm run demo: the demo workflows in a real n8n against the embedded simulator; files land in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/install-n8n.sh
npm run build --silent
exec npx tsx scripts/demo.ts "$@"
