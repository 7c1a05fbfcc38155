#!/usr/bin/env bash
# apt-install.sh installs Debian packages for the tests' set-up, one
# apt-get at a time: make test's steps set themselves up side by side
# (PgBouncer, the clients' Python packages, chromium), and dpkg takes one
# installer at a time. The steps queue on a lock file of their own, and
# wait (up to ten minutes) for dpkg's lock too, which another installer on
# the machine may hold. As root, or through sudo.
#
# Only what the packages depend on is installed, not what they recommend:
# chromium's recommendations are a hundred packages more (udev and systemd
# upgrades, avahi-daemon, CUPS, Perl libraries), which headless tests do
# not use and which took most of a fresh machine's set-up. The package
# lists are refreshed once for the steps that install within half an hour
# of each other, and again if an install fails on lists that old.
#
# Usage: scripts/apt-install.sh PACKAGE...
set -euo pipefail
(($# > 0)) || {
	echo "usage: scripts/apt-install.sh PACKAGE..." >&2
	exit 2
}
sudo=()
[[ $(id -u) -ne 0 ]] && sudo=(sudo -n)
opts=(-o DPkg::Lock::Timeout=600)
stamp=${TMPDIR:-/tmp}/mnemo-apt.updated
"${sudo[@]}" flock "${TMPDIR:-/tmp}/mnemo-apt.lock" sh -c '
	stamp=$1
	shift 1
	update() { apt-get "$@" update -qq && touch "$stamp"; }
	install() { DEBIAN_FRONTEND=noninteractive apt-get "$@" install -y -qq --no-install-recommends '"$*"'; }
	if [ -n "$(find "$stamp" -mmin -30 2>/dev/null)" ]; then
		install "$@" || { update "$@" && install "$@"; }
	else
		update "$@" && install "$@"
	fi' _ "$stamp" "${opts[@]}"
