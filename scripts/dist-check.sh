#!/usr/bin/env bash
# dist-check.sh tests what `make dist` wrote in dist/ as a user installs it,
# offline (packaging/check/dist_check.py says what each check does): the
# archives, the npm packages from a local registry, the wheels in fresh
# venvs, the OCI image in a chroot, the Homebrew formula, the README's
# install lines and MCP client configurations, and actionlint on the
# workflows. It installs what is missing (Debian's python3-venv,
# python3-pip, python3-httpx, pipx and shellcheck) and needs root, or
# sudo, for the chroot.
#
# Usage: scripts/dist-check.sh [CHECK...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[[ -f dist/metadata.json ]] || {
	echo "dist-check: no dist/metadata.json: run make dist first" >&2
	exit 1
}
py=/usr/bin/python3
if ! $py -c 'import httpx, venv, ensurepip' 2>/dev/null || ! command -v shellcheck >/dev/null || ! command -v pipx >/dev/null; then
	echo "dist-check: installing python3-venv python3-pip python3-httpx pipx shellcheck"
	bash scripts/apt-install.sh python3-venv python3-pip python3-httpx pipx shellcheck >/dev/null
fi
MNEMO_DIST_TOOLS=$(GO=${GO:-go} bash scripts/dist-tools.sh)
export MNEMO_DIST_TOOLS
exec $py packaging/check/dist_check.py dist "$@"
