#!/usr/bin/env bash
# dist-tools.sh builds the release tools that packaging/tools/go.mod pins
# (GoReleaser, cyclonedx-gomod, actionlint, and ociimage, the image
# builder) into the user's cache, once per version of packaging/tools, and
# prints that directory. Go's build cache makes a rebuild cheap; the
# directory saves the links.
#
# Usage: tools=$(scripts/dist-tools.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
stamp=$(cat packaging/tools/go.mod packaging/tools/go.sum packaging/tools/*/*.go | sha256sum | cut -c1-16)
tools=${XDG_CACHE_HOME:-$HOME/.cache}/mnemo/dist-tools/$stamp
if [[ ! -x $tools/ociimage ]]; then
	echo "dist-tools: building GoReleaser, cyclonedx-gomod, actionlint and ociimage into $tools" >&2
	rm -rf "$tools.tmp"
	mkdir -p "$tools.tmp"
	$GO -C packaging/tools build -o "$tools.tmp/" \
		github.com/goreleaser/goreleaser/v2 \
		github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod \
		github.com/rhysd/actionlint/cmd/actionlint \
		./ociimage >&2
	rm -rf "$tools" && mv "$tools.tmp" "$tools"
fi
echo "$tools"
