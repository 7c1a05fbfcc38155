// Package vector is an approximate nearest-neighbour index for cosine
// similarity: a hand-written HNSW graph over int8-quantised unit vectors,
// with filtered search, real deletes, an exact path for small indexes and a
// checksummed file format that loads in bulk.
//
// # Why HNSW
//
// Memories arrive one at a time and are deleted one at a time, so the index
// must accept inserts and deletes without retraining; that rules out IVF and
// product-quantisation indexes, which need a training pass over the data.
// HNSW (Malkov and Yashunin, 2016) inserts incrementally, reaches recall
// above 0.95 with a few hundred distance computations per query, and its
// quality does not depend on the order of inserts. An off-the-shelf Go
// implementation measured recall@10 of 0.13 on clustered data and panicked
// after deletes, hence this one.
//
// # Layout
//
// Everything lives in flat slices indexed by a dense uint32 node number:
// ids, quantisation scales, codes (dim bytes per node), levels, states and
// layer-0 links, a fixed block of 2M+1 uint32 per node (a count, then the
// neighbours). The few nodes above layer 0 (1 in M) get blocks of M+1 in
// one shared upper slice. There are no per-node heap objects, so the
// garbage collector has a handful of pointers to scan whatever the size,
// and a file loads with a few bulk reads. At 1M nodes of dimension 100 the
// index takes about 440 bytes per vector.
//
// # Quantisation
//
// Each vector is normalised and stored as two int8 codes with per-vector
// symmetric scales: code = round(v/s) with s = max|v_i|/127, and a second,
// finer code of the residual v - s*code. The graph is built and walked on
// the first code alone, with an int32 dot product unrolled by eight (about
// 0.5 ns per component in pure Go). The final candidates, and every exact
// scan, are scored with the float query against both codes, which is within
// about 1e-5 of float32. One code alone costs too much recall on tight
// clusters: on the 20k×100 benchmark data an exact scan over single int8
// codes reaches recall@10 of only 0.92 against float search, because the
// gaps between neighbours' similarities are smaller than the int8 error;
// with the residual code it reaches 1.00. The two codes together take half
// the memory of float32 (200 MB rather than 400 MB at 1M×100) and the walk,
// which dominates the cost, still touches only one byte per component.
//
// # Parameters
//
// M = 16 (32 links on layer 0), efConstruction = 128 and efSearch = 96,
// chosen on the clustered benchmark data (see bench_test.go), where graph
// search reaches recall@10 of 0.99 or more at 10k and 100k vectors for
// dimensions 100 and 384, and the recall is limited by the data, not ef,
// from ef 64 up. Searches with k > efSearch use ef = k.
//
// An exact scan costs about 0.08 µs per vector at dimension 100 (0.28 µs at
// 384), so graph search, at 0.1-0.2 ms, overtakes it from about a thousand
// vectors. ExactBelow defaults to 5000 all the same: below that an exact
// scan still takes under 0.5 ms at dimension 100 (1.5 ms at 384) and
// returns the true nearest neighbours, which matters most for small stores.
// The graph is maintained whatever the size, so crossing the threshold
// costs nothing.
//
// # Filters
//
// A filtered search walks the whole graph, rejected nodes included, but
// only accepted nodes enter the result list, and it keeps expanding until
// it holds efSearch accepted nodes. Its effort is capped at
// max(32·ef, nodes/64) expanded nodes; if that leaves fewer than k results,
// it falls back to an exact scan of every accepted id, so a filter never
// loses results, only time. Callers that know their filter selects few ids
// should call SearchIDs, which scans just those.
//
// # Deletes
//
// Delete marks the node dead: it leaves the id map at once, so it is never
// returned again, but it stays in the graph as a routing point, so searches
// keep their paths. When dead nodes reach 1/32 of the graph, a vacuum
// rebuilds the links around them: every live node that links to a dead one
// drops the link and takes, in its place, the nearest live neighbours of the
// dead node it lacks, so the paths through it survive. The dead slots are
// then freed, and inserts reuse them, so memory does not grow under churn.
// The vacuum scans all links (about 30 ms per million nodes) and repairs in
// parallel; its relinking work is proportional to the deletes it covers.
// Re-adding a deleted id inserts a new node. Add of an existing id marks
// the old node dead the same way.
//
// # Concurrency
//
// Searches share a read lock and run in parallel. Add, AddBatch and Delete
// take the write lock. AddBatch inserts with Options.Workers goroutines
// under that lock, coordinating through striped per-node mutexes on the
// link blocks; callers adding many vectors while serving searches should
// use batches of some thousands, since searches wait for a batch.
//
// # File format
//
// Version 1, little-endian:
//
//	magic "mnemovec"
//	uint32 version, dim, M, efConstruction, efSearch, exactBelow,
//	       nodes, entry node, entry level
//	uint64 level generator state, length of the upper link slice
//	[nodes]uint64       ids
//	[nodes]float32      scales, then [nodes]float32 residual scales
//	[nodes*dim]int8     codes, then [nodes*dim]int8 residual codes
//	[nodes]uint8        levels, then [nodes]uint8 states (live, dead, free)
//	[nodes*(2M+1)]uint32 layer-0 link blocks
//	[nodes]uint32       offsets of the upper link blocks
//	[...]uint32         upper link blocks
//	uint32              CRC-32C (Castagnoli) of all the bytes before it
//
// Dead and free nodes are written as they are, so a reloaded index searches
// and grows exactly as the original would. Read decodes in 64 KiB chunks
// into slices that grow only as bytes arrive, so a lying header cannot make
// it allocate much more than the input; it verifies the checksum and then
// every structural invariant (link targets, counts, levels, unique live
// ids, the entry point), and reports any failure as ErrCorrupt.
package vector
