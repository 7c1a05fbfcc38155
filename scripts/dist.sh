#!/usr/bin/env bash
# dist.sh builds every release artifact into dist/ (OPS-5, OPS-6), offline
# but for the Go module proxy and the npm registry (for the pinned tools
# and the TypeScript client's build):
#   - GoReleaser (packaging/tools/go.mod pins it): the binaries, stripped
#     and built with -trimpath, stamped with the version, commit and date;
#     archives for linux, darwin and windows on amd64 and arm64;
#     checksums.txt; one CycloneDX SBOM per binary (cyclonedx-gomod);
#   - dist/npm: @mnemo-dev/mnemo and one package per platform
#     (packaging/npm/build.mjs);
#   - dist/python: the mnemo-server platform wheels
#     (packaging/python/build_wheels.py);
#   - dist/clients: the TypeScript client's npm tarball, the Python
#     client's wheel and sdist (its in-tree backend);
#   - dist/oci: the container image, an OCI layout and its tarball
#     (packaging/tools/ociimage), for linux/amd64 and linux/arm64;
#   - dist/homebrew/mnemo.rb (packaging/homebrew/formula.py).
# Go's build cache is reused: a second run recompiles nothing that has not
# changed. It ends with the sizes per platform (packaging/check/sizes.py:
# the binary, its archive, npm package and wheel; the image), and the
# run's wall and CPU seconds.
#
# Usage: scripts/dist.sh [--single-target]
#   --single-target  only this machine's platform (quick iteration)
#   DIST_RELEASE=1   the tag's version instead of a snapshot's (the release
#                    workflow; HEAD must be a tag)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
start=$EPOCHREALTIME

single=
case ${1:-} in
--single-target) single=--single-target ;;
"") ;;
*)
	echo "usage: scripts/dist.sh [--single-target]" >&2
	exit 2
	;;
esac

tools=$(GO=$GO bash scripts/dist-tools.sh)
export PATH=$tools:$PATH

# Every file's time is the commit's: the same commit gives the same bytes.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
export SOURCE_DATE_EPOCH

# GoReleaser reads the commit only where the clone has a remote: one,
# for its commands alone, where it has none (git config from the
# environment; nothing is fetched).
if [[ -z $(git remote) ]]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/mnemo-dev/mnemo.git
fi

# --single-target: GoReleaser's release has no such flag, so a copy of
# the config with this platform's GOOS and GOARCH alone.
config=.goreleaser.yaml
if [[ -n $single ]]; then
	config=$(mktemp --suffix=.yaml)
	trap 'rm -f "$config"' EXIT
	sed -e "s/^    goos: .*/    goos: [$($GO env GOOS)]/" -e "s/^    goarch: .*/    goarch: [$($GO env GOARCH)]/" .goreleaser.yaml >"$config"
fi
if [[ -n ${DIST_RELEASE:-} ]]; then
	goreleaser release --config "$config" --clean --skip=publish,announce
else
	goreleaser release --config "$config" --snapshot --clean
fi

# The binaries GoReleaser wrote, one line each: goos goarch path.
binaries=$(python3 -c '
import json
for a in json.load(open("dist/artifacts.json")):
    if a["type"] == "Binary":
        print(a["goos"], a["goarch"], a["path"])')
version=$(python3 -c 'import json; print(json.load(open("dist/metadata.json"))["version"])')
commit=$(python3 -c 'import json; print(json.load(open("dist/metadata.json"))["commit"])')

echo "dist: npm packages"
node packaging/npm/build.mjs dist

echo "dist: wheels"
python3 packaging/python/build_wheels.py dist

echo "dist: the clients"
mkdir -p dist/clients
python3 -c 'import sys; sys.path.insert(0, "clients/python/_build"); import mnemo_build as b
print("python client:", b.build_wheel("dist/clients"), b.build_sdist("dist/clients"))'
ts=clients/typescript
lock=$(sha256sum "$ts/package-lock.json" | cut -d' ' -f1)
if [[ $(cat "$ts/node_modules/.mnemo-lock" 2>/dev/null) != "$lock" ]]; then
	(cd "$ts" && npm ci --no-audit --no-fund --loglevel=error --prefer-offline)
	echo "$lock" >"$ts/node_modules/.mnemo-lock"
fi
(cd "$ts" && npm pack --pack-destination "$root/dist/clients" --loglevel=error >/dev/null)
echo "typescript client: $(cd dist/clients && ls ./*.tgz)"

echo "dist: OCI image"
mkdir -p dist/oci/build
platforms=()
while read -r goos goarch path; do
	[[ $goos == linux ]] || continue
	CGO_ENABLED=0 GOOS=linux GOARCH=$goarch $GO -C packaging/tools build -trimpath -ldflags='-s -w' \
		-o "$root/dist/oci/build/mnemo-healthcheck-$goarch" ./healthcheck
	platforms+=("linux/$goarch=$path,dist/oci/build/mnemo-healthcheck-$goarch")
done <<<"$binaries"
if ((${#platforms[@]} > 0)); then
	ociimage -out "dist/oci/mnemo_${version}_oci" -version "$version" -commit "$commit" \
		-created "$(date -u -d "@$SOURCE_DATE_EPOCH" +%FT%TZ)" \
		-config packaging/oci/mnemo.yaml -notice glove-NOTICE=embed/glove/data/NOTICE \
		-notice use-NOTICE=embed/use/data/NOTICE -notice use-LICENSE=embed/use/data/LICENSE "${platforms[@]}"
	echo "oci: dist/oci/mnemo_${version}_oci.tar (${platforms[*]%%=*})"
fi
rm -rf dist/oci/build

echo "dist: Homebrew formula"
python3 packaging/homebrew/formula.py dist

echo
echo "dist: sizes (the binary stripped, -trimpath; what a user downloads per channel)"
python3 packaging/check/sizes.py dist
times >"$root/dist/.times"
cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, ms, /[ms]/); s += ms[1] * 60 + ms[2] } printf "%.0f", s }' "$root/dist/.times")
rm -f "$root/dist/.times"
echo "dist: $version in dist/, $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')s wall, ${cpu}s CPU (user+sys)"
