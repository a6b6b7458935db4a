#!/usr/bin/env bash
# npm run demo: the demo workflows in a real n8n against the embedded simulator, then the scheduled pipeline
# (PostgreSQL from Debian's packages, an S3 store and an SMTP mailbox from npm); files land in out/.
#   npm run demo -- [--n8n 2|1] [--out DIR] [workflow ...]     --n8n 1: the newest n8n 1.x on Node 22
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source scripts/lib/setup.sh
major=2
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --n8n) major="${2:-}"; shift 2 ;;
    --n8n=*) major="${1#--n8n=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
case "$major" in 1|2) ;; *) echo "--n8n takes 2 or 1" >&2; exit 2 ;; esac
setup_all "$major"
export GG_N8N_MAJOR="$major"
# one n8n state template (package installed, database migrated) per n8n version and build, shared by every
# process of the run and by the demo and the tests that follow it (scripts/lib/n8n/state.ts: stateTemplate)
export GG_N8N_TEMPLATES="${GG_N8N_TEMPLATES:-$ROOT/out/n8n-templates}"
exec npx tsx scripts/demo.ts "${args[@]+"${args[@]}"}"
