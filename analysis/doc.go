// Package analysis turns text into the terms of mnemo's lexical index
// (SQLite FTS5, later PostgreSQL full-text search) and extracts keywords.
//
// English is stemmed with Porter2 (Snowball English), after lower-casing,
// full-width folding and dropping stop words, so "running" finds "runs".
//
// Chinese and Japanese have no spaces between words. Instead of a dictionary
// segmenter, a run of CJK characters is split at single stop characters
// (的, 了, 我, 用, ...) and a few two-character function words, and what is
// left is indexed as overlapping character bigrams: "我喜欢用Python写代码"
// gives 喜欢, python, 代码. A dictionary segmenter such as gse takes seconds
// and hundreds of megabytes to load, which a CLI call or an MCP stdio server
// started per session cannot afford; bigrams need only the small literal
// tables in this package, so New costs nothing. Bigrams also degrade
// gracefully: an unknown word or name is still found, just with some noise.
//
// Index text and queries go through the same analysis, so whatever a word
// becomes in a memory it also becomes in a query, and matching stays
// consistent even where the analysis is linguistically crude. Every term is
// made of letters, digits and combining marks only, and a Query has no
// operators, so terms can be quoted into an FTS5 MATCH expression safely.
//
// Stored terms are separated by single spaces. FTS5's unicode61 tokenizer
// keeps them whole if combining marks count as token characters
// (categories 'L* N* Co M*'); with its defaults a word such as "naïve" in
// decomposed form is split at the mark, on both the index and the query
// side, so it still matches, only less precisely.
package analysis
