#!/usr/bin/env bash
# npm run pipeline: the scheduled pipeline (examples/pipeline-*.json) in a real n8n with PostgreSQL, an S3 store and an
# SMTP mailbox on loopback, against the embedded simulator; judged from the table, bucket, mailbox and ledger.
#   npm run pipeline -- [--queue-mode] [--crash] [--images 4] [--videos 1] [--tick 5]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/lib/setup.sh
setup_all 2
exec npx tsx scripts/pipeline/cli.ts "$@"
