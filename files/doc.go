// Package files is memory as a directory (FS-1 … FS-18): an append-only log an
// agent can grep and jq, a tree of one file per live key it can ls and
// cat, and a state snapshot; and Store, a mnemo.Store whose source of
// truth is that directory.
//
// # Layout
//
//	memory_root/
//	  log.jsonl                 every write, one envelope a line (FS-4, FS-8)
//	  state.jsonl               the compaction's snapshot (FS-11)
//	  index/<key path>.json     one file per live key of the home scope (FS-10)
//	  index/@memories/<id>.json memories without a key
//	  index/@scopes/<tenant>/<agent>/...  every other scope, alike
//	  archive/log_YYYYMMDD.jsonl          rotated logs (FS-14: rotation)
//	  .lock                     the lock every writing process takes (flock)
//
// KeyPath maps a key to its file (safe, reversible, fuzzed); "@" is
// percent-encoded in every path it makes, so the "@" directories are
// never a key's.
//
// # A memory in the envelope
//
// Each line of the log is the envelope of FS-8 {key, ts, valid, source,
// content} plus one field of mnemo's own, "mnemo", so that ls, grep and jq
// read it as FS-12 expects and a Store loses nothing of a mnemo.Memory:
//
//   - key is the memory's key; a memory without one shows as
//     /@memories/<id>;
//   - ts is its UpdatedAt, the time last-write-wins compares; valid is
//     false for a tombstone;
//   - source is its provenance as given;
//   - content is its data as given (set_memory's json_content), or for a
//     memory of text an object of its text, type, tags, importance,
//     summary (ContentOf), so that `jq 'select(.content.type=="reminder")'`
//     works either way; null for a tombstone;
//   - mnemo holds the rest: op (write, contexts, forget, clear, touch, life,
//     ledger, state, unstate, space, vectors), the batch it belongs to and how many
//     lines that batch has, tenant and agent, the time of the operation,
//     and for a write the whole memory but its source, its data when that
//     is the content, and its vector (base64 float32s beside it), with its
//     analysed index text and embed text.
//
// Operations that are not a key's write (conversation messages' index
// contexts, forget, clear, accesses, lifecycle changes with their ledger
// entries, ledger entries, state documents of runs and sessions, the
// vector space, vectors) are lines of
// their own, with keys under /@mnemo/, valid false and content null, so
// the usual `select(.valid==true)` leaves them out. Lines are told apart
// by mnemo.op, never by key: a key under /@mnemo/ is still an agent's key.
// Lines that another writer appends with the bare envelope are
// writes to the home scope: content is the data, its summary or text the
// text, its type, tags and importance (over 1: out of 10) the
// memory's.
//
// # Durability and concurrency
//
// A call that changes anything takes the root's lock (flock, across
// processes), folds what other processes appended since it last looked,
// applies the change to the in-memory fold (an inmem store, which checks it:
// a change that fails writes nothing), appends its lines in one write and
// fsyncs them (StoreOptions.NoSync skips that; accesses are not synced on
// their own), and then writes the index files it changed (by rename;
// tombstones and forgets remove them). A batch is its lines together: a
// crash that tears one leaves lines a fold drops, so a Write is all or
// nothing. Reads answer from memory once they have folded any lines other
// processes appended (one stat when there are none).
//
// On open, state.jsonl is folded, then the log after the line the state
// says it covers (found by its batch, so a log rewritten or rotated since
// is still read right), then the index files of the last writes are
// checked (a crash may fall between a write's line and its file), and a
// forget whose rewrite a crash interrupted is finished.
//
// # Compaction
//
// Compaction (every CompactEvery lines after the state, default 100,000,
// or Store.Compact) writes state.jsonl from memory (a new file renamed
// over: every memory and tombstone, every key's history, the ledger,
// state documents, and the log position it covers), rebuilds the index
// from it (repairing any drift), and, with RotateLog, moves the log to
// archive/ and starts a new one; with KeepLog (the default) the log stays
// whole (FS-13, FS-14). Every step leaves a root that opens to the same memory.
//
// Forget and Clear really forget: besides their line, they rewrite the
// log and the archive at once (a new file renamed over each) with nothing
// left of the deleted memories but their ids, keys and times, and write
// the state afresh. This costs a pass over the log per forget.
//
// # Replay: the spool
//
// Store.Replay reads back every record written, in append order (the
// archive, then the log), skipping torn batches and forgotten memories:
// the read of a store used as the local spool while a database is down.
//
// The rest of this package is the layout alone, for other callers: Log
// (appends under the lock, torn-tail repair), PutIndex, RebuildIndex,
// Compact of plain envelopes, and ExportTree (mnemo export --format tree).
package files
