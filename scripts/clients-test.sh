#!/usr/bin/env bash
# clients-test.sh tests the TypeScript and Python clients and the TypeScript
# adapters against one real `mnemo serve`, built from this tree, on a free
# loopback port with temporary data and API keys, shared by every suite:
#   1. the drift checks: clients/typescript/src/openapi.ts and
#      clients/python/src/mnemo/types.py must be what the server's
#      /openapi.json generates (scripts/gen.mjs, scripts/gen_types.py);
#   2. tsc, then node's test runner on the client and the adapters;
#   3. pip installs clients/python from the checkout into a venv, mypy
#      --strict checks its types, and pytest runs its tests in the venv;
#   4. the Node version docs/CLIENTS.md promises admits every locked package
#      (scripts/engines.mjs); each TypeScript snippet's packages are
#      installed by an npm install the guide gives before it;
#   5. docs/CLIENTS.md's TypeScript and Python snippets, as pasted
#      (clients/typescript/scripts/readme.mjs): the TypeScript ones in the
#      package, and the plain client's once more as a newcomer runs it, in
#      an empty project where only the `npm pack`ed package is installed;
#      the Python ones outside the checkout, with the venv's python, and
#      once more with the venv of the guide's offline recipe, run as
#      written in an empty directory.
# It installs what is missing (Debian's python3-httpx, python3-pytest,
# python3-venv, python3-pip, python3-setuptools and python3-mypy; npm ci,
# with its cache in NPM_CACHE, by
# default $TMPDIR/mnemo-npm-cache, when node_modules is not the lock file's)
# and exits non-zero when any step fails. MNEMO_BIN names a mnemo built
# from this tree to use rather than building one (make checks builds one
# for all its steps). Its waits stretch with the machine's load
# (scripts/testwait.sh).
#
# Usage: scripts/clients-test.sh
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=testwait.sh
source "$root/scripts/testwait.sh"
tmp=$(mktemp -d)
server_pid=
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	echo "clients-test: $*" >&2
	exit 1
}
start=$SECONDS

# Set-up. Debian's python3 has the packages; a pyenv python3 first on PATH
# does not.
py=/usr/bin/python3
pydebs="python3-httpx python3-pytest python3-venv python3-pip python3-setuptools python3-mypy"
if ! $py -c 'import httpx, pytest, venv, ensurepip, setuptools, pip, mypy' 2>/dev/null; then
	echo "clients-test: installing $pydebs"
	# shellcheck disable=SC2086
	bash "$root/scripts/apt-install.sh" $pydebs >"$tmp/apt.log" 2>&1 ||
		{ tail -n 20 "$tmp/apt.log"; fail "apt-get install failed"; }
fi
export npm_config_cache=${NPM_CACHE:-${TMPDIR:-/tmp}/mnemo-npm-cache}
ts=$root/clients/typescript
# npm ci only when node_modules is not the lock file's (the stamp is its hash).
lock=$(sha256sum "$ts/package-lock.json" | cut -d' ' -f1)
if [[ $(cat "$ts/node_modules/.mnemo-lock" 2>/dev/null) != "$lock" ]]; then
	(cd "$ts" && npm ci --no-audit --no-fund --loglevel=error --prefer-offline >"$tmp/npm.log" 2>&1) ||
		{ tail -n 20 "$tmp/npm.log"; fail "npm ci failed in clients/typescript"; }
	echo "$lock" >"$ts/node_modules/.mnemo-lock"
fi
setup=$SECONDS

# One server for every suite, with a key of every scope and a read-only one.
if [[ -n ${MNEMO_BIN:-} ]]; then
	ln -s "$MNEMO_BIN" "$tmp/mnemo"
else
	(cd "$root" && go build -o "$tmp/mnemo" ./cmd/mnemo) || fail "go build ./cmd/mnemo failed"
fi
export MNEMO_TEST_KEY=clients-test-key-$RANDOM$RANDOM
export MNEMO_TEST_READ_KEY=clients-test-reader-$RANDOM$RANDOM
cat >"$tmp/mnemo.yaml" <<EOF
auth:
  keys:
    - {name: tests, secret: "$MNEMO_TEST_KEY", tenant: clients, scopes: [read, write, admin]}
    - {name: reader, secret: "$MNEMO_TEST_READ_KEY", tenant: clients, scopes: [read]}
EOF
"$tmp/mnemo" --config "$tmp/mnemo.yaml" --store sqlite --data "$tmp/data" serve --addr 127.0.0.1:0 >"$tmp/serve.log" 2>&1 &
server_pid=$!
# serving: the server has said where it listens (in $addr), or has exited.
serving() {
	addr=$(sed -n 's/.*msg="mnemo serving" addr=\([^ ]*\).*/\1/p' "$tmp/serve.log")
	[[ -n $addr ]] || ! kill -0 "$server_pid" 2>/dev/null
}
addr=
testwait_until 30 serving
[[ -n $addr ]] || { tail -n 20 "$tmp/serve.log"; fail "mnemo serve did not start"; }
export MNEMO_URL=http://$addr
built=$SECONDS

# step NAME COMMAND...: runs one step, noting its time, and its name in
# $tmp/failed when it fails.
step() {
	local name=$1 t=$SECONDS
	shift
	echo "== $name"
	echo "$name" >>"$tmp/steps"
	"$@" || echo "$name" >>"$tmp/failed"
	echo "== $name: $((SECONDS - t))s"
}

# The Python suite runs beside the TypeScript one (each test has its own
# agent); its output follows the TypeScript one's.
venv=$tmp/venv
python_steps() {
	# pip from the checkout, as a user would: the venv sees Debian's httpx,
	# pytest and pip, and setuptools builds without the network (in a copy,
	# since it writes build/ and egg-info beside the sources).
	step "pip install clients/python" bash -c "$py -m venv --system-site-packages --without-pip '$venv' &&
		cp -r '$root/clients/python' '$tmp/python-src' &&
		'$venv/bin/python' -m pip install -q --no-build-isolation --no-deps --no-index '$tmp/python-src' &&
		cd '$tmp' && '$venv/bin/python' -c 'import mnemo; assert \"site-packages\" in mnemo.__file__, mnemo.__file__'"
	step "mypy --strict clients/python" $py -m mypy --strict --python-version 3.10 --cache-dir "${TMPDIR:-/tmp}/mnemo-mypy-cache" "$root/clients/python/src/mnemo" "$root/clients/python/scripts/gen_types.py"
	step "python tests" bash -c "cd '$root/clients/python' && '$venv/bin/python' -m pytest -q -p no:cacheprovider --import-mode=importlib tests"
	step "docs/CLIENTS.md python snippets" bash -c "cd '$tmp' && MNEMO_KEY='$MNEMO_TEST_KEY' node '$ts/scripts/readme.mjs' '$root/docs/CLIENTS.md' python '$venv/bin/python'"
	# The guide's offline recipe, as written, in an empty directory with
	# this shell's PATH (where another python3, pyenv's, may come first):
	# its apt-get line is the set-up's, the rest runs as pasted, and the
	# guide's snippet then runs with the venv it made.
	step "docs/CLIENTS.md offline python recipe" bash -c "set -e; mkdir '$tmp/offline' && cp -r '$root/clients/python' '$tmp/offline-src' && cd '$tmp/offline' &&
		sed -n '/^<!-- readme-run: sh python-offline -->\$/,/^\`\`\`\$/p' '$root/docs/CLIENTS.md' | sed '1,2d;\$d' | grep -v '^sudo apt-get ' |
			sed 's|/path/to/mnemo/clients/python|$tmp/offline-src|' >recipe.sh &&
		test -s recipe.sh && bash -e recipe.sh >recipe.log 2>&1 || { cat recipe.log; exit 1; }
		MNEMO_KEY='$MNEMO_TEST_KEY' node '$ts/scripts/readme.mjs' '$root/docs/CLIENTS.md' python '$tmp/offline/.venv/bin/python'"
}
python_steps >"$tmp/python.log" 2>&1 &
python_pid=$!

step "node versions" node "$ts/scripts/engines.mjs" "$root/docs/CLIENTS.md"
step "openapi drift" node "$ts/scripts/gen.mjs" "$MNEMO_URL" --check
step "openapi drift (python)" $py "$root/clients/python/scripts/gen_types.py" "$MNEMO_URL" --check
step "tsc" bash -c "cd '$ts' && npx tsc -p ."
step "typescript tests" bash -c "cd '$ts' && node --test --test-reporter=spec dist/test/*.test.js"
step "docs/CLIENTS.md ts snippets" bash -c "cd '$ts' && MNEMO_KEY='$MNEMO_TEST_KEY' node scripts/readme.mjs '$root/docs/CLIENTS.md' ts"
# As the guide has a newcomer do it: npm pack (tsc has just built dist/,
# so without its prepack), then install the tarball in an empty project,
# offline (the package has no dependencies).
step "docs/CLIENTS.md ts snippet, npm-packed into an empty project" bash -c "cd '$ts' &&
	npm pack --ignore-scripts --pack-destination '$tmp' --loglevel=error >/dev/null &&
	mkdir '$tmp/app' && cd '$tmp/app' && echo '{\"private\": true}' >package.json &&
	npm install --offline --no-audit --no-fund --loglevel=error '$tmp'/mnemo-dev-client-*.tgz &&
	MNEMO_KEY='$MNEMO_TEST_KEY' node '$ts/scripts/readme.mjs' '$root/docs/CLIENTS.md' ts --in '$tmp/app'"
wait "$python_pid"
cat "$tmp/python.log"

kill "$server_pid" 2>/dev/null
wait "$server_pid" 2>/dev/null
server_pid=
echo "clients-test: set-up $((setup - start))s, build and start $((built - setup))s, suites $((SECONDS - built))s"
nsteps=$(wc -l <"$tmp/steps")
nfailed=0
[[ -f $tmp/failed ]] && nfailed=$(wc -l <"$tmp/failed")
if ((nfailed > 0)); then
	echo "clients-test: FAILED: $(paste -sd' ' "$tmp/failed")"
fi
# The plain closing line: steps, not tests (the runners' lines are above).
echo "clients: $((nsteps - nfailed)) passed, $nfailed failed"
((nfailed == 0))
