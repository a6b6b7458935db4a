#!/usr/bin/env bash
# Debian packages the tests and the queue-mode run need: Redis and PostgreSQL servers (started privately on
# loopback by scripts/queue/services.ts, never as system services), and ffmpeg (the media fuzzer makes its MP4
# files with it and uses ffprobe/ffmpeg as the oracle). Root on CI machines; skips what is there.
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
{ command -v ffmpeg && command -v ffprobe; } >/dev/null 2>&1 || need+=(ffmpeg)
# the browser test (test/e2e/editor.test.ts) drives /usr/bin/chromium through playwright-core
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "installing: ${need[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "missing (install with apt-get as root): ${need[*]}" >&2
  fi
fi
