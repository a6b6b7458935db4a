#!/usr/bin/env bash
# Runs the install scripts of native packages in an app folder installed with --ignore-scripts, against the
# headers of the Node that will load them, then checks that each one loads. Scripts are switched on
# explicitly: whatever ignore-scripts says in the environment or in an .npmrc, a skipped build would
# otherwise pass silently and fail later ("Could not locate the bindings file").
#   rebuild-native.sh <app dir> <node home> <package>...
set -euo pipefail
app="$1"; node_home="$2"; shift 2
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$ROOT/scripts/lib/npm-env.sh"
cd "$app"
export PATH="$node_home/bin:$PATH"
for pkg in "$@"; do
  if "$node_home/bin/node" -e "require('$pkg')" >/dev/null 2>&1; then
    echo "  $pkg loads"
    continue
  fi
  # node-gyp reads nodedir from the environment: build against this Node's own headers, no download
  npm_config_nodedir="$node_home" npm rebuild "$pkg" --ignore-scripts=false --foreground-scripts=false --loglevel=error >/dev/null
  if ! err=$("$node_home/bin/node" -e "require('$pkg')" 2>&1); then
    echo "$pkg was rebuilt but still does not load with $("$node_home/bin/node" --version):" >&2
    echo "$err" | head -5 >&2
    exit 1
  fi
  echo "  $pkg rebuilt and loads"
done
