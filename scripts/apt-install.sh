#!/usr/bin/env bash
# apt-install.sh installs Debian packages for the tests' set-up, one
# apt-get at a time: make test's steps set themselves up side by side
# (PgBouncer, the clients' Python packages, chromium), and dpkg takes one
# installer at a time. The steps queue on a lock file of their own, and
# wait (up to ten minutes) for dpkg's lock too, which another installer on
# the machine may hold. As root, or through sudo.
#
# Usage: scripts/apt-install.sh PACKAGE...
set -euo pipefail
(($# > 0)) || {
	echo "usage: scripts/apt-install.sh PACKAGE..." >&2
	exit 2
}
sudo=()
[[ $(id -u) -ne 0 ]] && sudo=(sudo -n)
wait=(-o DPkg::Lock::Timeout=600)
"${sudo[@]}" flock "${TMPDIR:-/tmp}/mnemo-apt.lock" sh -c '
	apt-get "$@" update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get "$@" install -y -qq '"$*" _ "${wait[@]}"
