# Sourced by the README's commands (demo.sh, test.sh, bench.sh, queue-mode.sh, pipeline.sh): everything a fresh clone needs,
# each step named when it fails. Safe under `npm run` and whatever npm configuration it exports.
source "$ROOT/scripts/lib/npm-env.sh"

setup_step() { echo "[setup] $*"; }
setup_fail() { echo "[setup] FAILED: $*" >&2; exit 1; }

# The project's own packages, once (npm ci when node_modules is missing or older than the lock file).
setup_node_modules() {
  if [ ! -f "$ROOT/node_modules/.package-lock.json" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    setup_step "installing the project's npm packages (npm ci, about a minute)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error) || setup_fail "npm ci in $ROOT (see npm's message above)"
  fi
}

# Debian packages the tests and queue mode need (servers started privately on loopback, never as services).
setup_system_deps() {
  bash "$ROOT/scripts/install-system-deps.sh" || setup_fail "installing Debian packages (scripts/install-system-deps.sh)"
}

# A private n8n (major 2 or 1) in the cache; resumes where an interrupted install stopped.
setup_n8n() {
  bash "$ROOT/scripts/install-n8n.sh" "${1:-2}" || setup_fail "installing the private n8n ${1:-2}.x (scripts/install-n8n.sh ${1:-2}); run the command again to resume"
}

# Builds dist/ when it is missing or any of its sources is newer (as ensureBuilt in scripts/lib/package.ts): a script
# started while tests run (the n8n 1 demo in the e2e tests) must not empty dist/ under another test's feet.
setup_build() {
  if [ -f "$ROOT/dist/index.js" ] && [ -z "$(cd "$ROOT" && find nodes credentials icons index.ts package.json tsconfig.build.json gulpfile.js -newer dist/index.js -print -quit)" ]; then
    return 0
  fi
  (cd "$ROOT" && npm run build --silent) || setup_fail "building the package (npm run build)"
}

# Everything a script running the built package in a real n8n needs: packages, Debian servers, n8n (major 2 or 1), build.
setup_all() {
  setup_node_modules
  setup_system_deps
  setup_n8n "${1:-2}"
  setup_build
}
