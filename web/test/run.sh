#!/usr/bin/env bash
# Builds mnemo, serves it on a free port with a temporary store and three
# API keys (two tenants), and once more without keys, runs the inspector's
# browser tests against the UI that `mnemo serve` serves itself, and stops
# them. It installs what it
# needs when missing: Debian's chromium (apt-get; it never downloads a
# browser) and the pinned puppeteer-core (npm ci). MNEMO_UI_URL points the
# tests at any other running UI instead (with MNEMO_KEY_A, MNEMO_KEY_AR,
# MNEMO_KEY_B). MNEMO_BIN names a mnemo built from this tree to use rather
# than building one (make checks builds one for all its steps). Its waits,
# and the browser's, stretch with the machine's load (scripts/testwait.sh).
#
#   web/test/run.sh                 # the tests (make ui)
#   web/test/run.sh --screenshots   # and docs/ui/*.png
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
# shellcheck source=../../scripts/testwait.sh
source scripts/testwait.sh

shots=""
[[ "${1:-}" == "--screenshots" ]] && shots="$repo/docs/ui"

chromium=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x "$chromium" && -z "${CHROMIUM:-}" ]]; then
  echo "run.sh: installing Debian's chromium" >&2
  bash scripts/apt-install.sh chromium >/dev/null
fi
[[ -x "$chromium" ]] || { echo "run.sh: no browser at $chromium (apt-get install -y chromium, or set CHROMIUM)" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

freeport() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
secret() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }

if [[ ! -d web/test/node_modules/puppeteer-core ]]; then
  (cd web/test && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

if [[ -n ${MNEMO_BIN:-} ]]; then
  ln -s "$MNEMO_BIN" "$tmp/mnemo"
else
  go build -o "$tmp/mnemo" ./cmd/mnemo
fi

export MNEMO_KEY_A MNEMO_KEY_AR MNEMO_KEY_B
MNEMO_KEY_A=$(secret) MNEMO_KEY_AR=$(secret) MNEMO_KEY_B=$(secret)
cat > "$tmp/mnemo.yml" <<'YAML'
auth:
  keys:
    - {name: ui-acme-admin, secret: "${MNEMO_KEY_A}", tenant: acme, scopes: [read, write, admin]}
    - {name: ui-acme-reader, secret: "${MNEMO_KEY_AR}", tenant: acme, scopes: [read]}
    - {name: ui-globex-admin, secret: "${MNEMO_KEY_B}", tenant: globex, scopes: [read, write, admin]}
http: {rate_limit: 0}
YAML

port=$(freeport)
"$tmp/mnemo" --config "$tmp/mnemo.yml" --data "$tmp/data" --addr "127.0.0.1:$port" serve >"$tmp/serve.log" 2>&1 &
pids+=($!)
# A second server as the README starts one: no keys, on loopback.
keyless=$(freeport)
"$tmp/mnemo" --data "$tmp/keyless" --addr "127.0.0.1:$keyless" serve >"$tmp/keyless.log" 2>&1 &
pids+=($!)
healthy() { curl -sf "http://127.0.0.1:$1/healthz" >/dev/null; }
for p in "$port" "$keyless"; do
  testwait_until 30 healthy "$p" || { echo "run.sh: mnemo serve did not start in 30s of quiet-machine time:" >&2; cat "$tmp/serve.log" "$tmp/keyless.log" >&2; exit 1; }
done
export MNEMO_UI_KEYLESS_URL="http://127.0.0.1:$keyless/"
if [[ -z "${MNEMO_UI_URL:-}" ]]; then
  MNEMO_UI_URL="http://127.0.0.1:$port/"
  curl -sf "$MNEMO_UI_URL" | grep -q 'mnemo inspector' || { echo "run.sh: mnemo serve does not serve the inspector at /" >&2; exit 1; }
fi
export MNEMO_UI_URL CHROMIUM=$chromium MNEMO_UI_SCREENSHOTS=$shots

status=0
node --test --test-concurrency=1 web/test/ui.test.mjs || status=$?
if [[ $status -ne 0 ]]; then
  echo "--- mnemo serve log (tail) ---" >&2
  tail -n 30 "$tmp/serve.log" >&2
fi
exit $status
