#!/usr/bin/env bash
# inspector_test.sh checks `mnemo mcp` with the MCP Inspector's CLI, the
# reference TypeScript client: it spawns mnemo over stdio, lists the tools,
# remembers, recalls, reads a tool error, gets a prompt and reads resources,
# as a client other than the Go SDK sees them.
#
# Usage: mcp/inspector_test.sh
# Needs go, node (20 works; the Inspector's dependencies ask for 22) and npm
# with access to the registry. The pinned Inspector is installed once, outside
# the repository, in INSPECTOR_DIR (default: ${XDG_CACHE_HOME:-~/.cache}/
# mnemo/inspector-VERSION), and kept for the next run. MNEMO_BIN names
# a mnemo built from this tree to use rather than building one (make checks
# builds one for all its steps).
set -euo pipefail

version=2.12.0
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../scripts/testwait.sh
source "$root/scripts/testwait.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=${INSPECTOR_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/mnemo/inspector-$version}
inspector=$dir/node_modules/.bin/mcp-inspector

start=$SECONDS
mkdir -p "$dir"
# Install once; the lock keeps concurrent runs from installing at once.
(
	flock 9
	if [[ ! -x $inspector || $("$inspector" --version 2>/dev/null) != "$version" ]]; then
		npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$version" >/dev/null
	fi
) 9>"$dir.lock"
installed=$SECONDS
if [[ -n ${MNEMO_BIN:-} ]]; then
	ln -s "$MNEMO_BIN" "$tmp/mnemo"
else
	(cd "$root" && go build -o "$tmp/mnemo" ./cmd/mnemo)
fi
server=("$tmp/mnemo" --data "$tmp/data" --agent inspector mcp)

passed=0
failed=0

# run METHOD-ARGS...: the Inspector's output for one request to a freshly
# spawned server; its exit code in rc (5 when the tool returned isError).
# Spawning and initializing the server has the CLI's 15 s, stretched by the
# machine's slowdown (QUAL-3); the request then has the MCP SDK's 60 s,
# which the CLI does not let one set: each is one tool call on a small
# store, well under a second on a quiet machine.
run() {
	rc=0
	out=$("$inspector" --cli --connect-timeout "$(($(testwait_secs 15) * 1000))" "$@" -- "${server[@]}" 2>&1) || rc=$?
}

# expect NAME CODE PATTERN...: the last run exited with CODE and its output
# matches every PATTERN (grep -E).
expect() {
	local name=$1 code=$2 p
	shift 2
	for p in "$@"; do
		if [[ $rc -ne $code ]] || ! grep -Eq -- "$p" <<<"$out"; then
			failed=$((failed + 1))
			echo "FAIL $name: exit $rc (want $code), output lacks /$p/:"
			head -n 40 <<<"$out"
			return
		fi
	done
	passed=$((passed + 1))
	echo "ok   $name"
}

if ! "${server[@]}" --help >/dev/null 2>&1; then
	echo "FAIL mnemo has no mcp command: add a.mcpCommand() to rootCommand"
	failed=$((failed + 1))
fi

# --strict lints every tool schema for portability; it fails only on errors,
# so any warning (a type array, a schema that constrains nothing) fails here.
run --method tools/list --strict
expect "tools/list passes --strict" 0 '"tools"'
if grep -Eq '^(Warning|Error): tool' <<<"$out"; then
	failed=$((failed + 1))
	echo "FAIL tools/list --strict: schema findings:"
	grep -E -A2 '^(Warning|Error): tool' <<<"$out" | head -n 40
else
	passed=$((passed + 1))
	echo "ok   tools/list --strict has no schema warning"
fi
for tool in remember recall surface recall_path forget status set_memory boot reflect ingest; do
	expect "tools/list has $tool" 0 "\"name\": \"$tool\""
done
expect "tools/list has schemas" 0 '"inputSchema"' '"outputSchema"'

run --method tools/call --tool-name remember --tool-arg 'content=Deploys happen on Thursday afternoons' key=/ci/deploy priority=1 'tags=["ci"]'
expect "remember" 0 'Remembered [0-9a-f-]{36} at /ci/deploy' '"key": "/ci/deploy"' '"priority": 1'

run --method tools/call --tool-name recall --tool-arg 'query=thursday deploys'
expect "recall" 0 '"count": 1' 'Deploys happen on Thursday afternoons' '"access_count": 1'

run --method tools/call --tool-name remember --tool-arg content=x priority=9
expect "remember with a bad priority" 5 '"isError": true' '"code": "invalid_input"'

run --method tools/call --tool-name boot
expect "boot" 0 'Who I am' 'Deploys happen on Thursday afternoons' '"summary"'

# Prompts and resources (API-23, API-24), as this client reads them.
run --method prompts/list
expect "prompts/list" 0 '"name": "remember_about"' '"name": "continue"'
run --method prompts/get --prompt-name remember_about --prompt-args topic=deploys
expect "prompts/get remember_about" 0 'What do you remember about deploys' 'Deploys happen on Thursday afternoons'
run --method resources/list
expect "resources/list" 0 '"uri": "mnemo://boot"' '"uri": "mnemo://keys"'
run --method resources/templates/list
expect "resources/templates/list" 0 '"uriTemplate": "mnemo://key/\{\+key\}"' '"uriTemplate": "mnemo://memory/\{id\}"'
run --method resources/read --uri mnemo://key/ci/deploy
expect "resources/read a key" 0 'Deploys happen on Thursday afternoons'

echo "inspector $version: install ${installed}s, checks $((SECONDS - installed))s, total $((SECONDS - start))s"
echo "inspector: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
