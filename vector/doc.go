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
// neighbours). The three that grow with dim and M (codes, fine codes,
// layer-0 links) are cut into chunks of 4,096 nodes, so that growing the
// index allocates a new chunk instead of copying the whole slice and
// leaving the old copy to the collector (PERF-12: a build's peak memory).
// The few nodes above layer 0 (1 in M) get blocks of M+1 in
// one shared upper slice. There are no per-node heap objects, so the
// garbage collector has a handful of pointers to scan whatever the size,
// and a file loads with a few bulk reads.
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
// clusters: on the benchmark data an exact scan scoring the first code only
// reaches recall@10 of 0.92 (dimension 100) and 0.84-0.86 (dimension 384)
// against float search, because neighbours' similarities differ by less
// than the int8 error; with the residual code it reaches 0.995-1.000. The
// two codes take half the memory of float32 (200 MB rather than 400 MB at
// 1M×100), and the walk, which dominates the cost, still reads one byte per
// component.
//
// # Parameters
//
// M = 16 (32 links on layer 0), efConstruction = 128, efSearch = 128 by
// default; the SQLite store uses M 32 and sets efSearch by the index's size
// (PERF-14). Recall rises with efSearch until the graph, not the search,
// is the limit; a larger M or efConstruction raises that at the cost of
// build time and memory. SetEfSearch trades at run time. The measurements
// of bench_test.go's clustered data (recall@10, latency, build rate, bytes
// a vector, load time by size and dimension) are in docs/BENCHMARKS.md,
// "The vector index".
//
// Graph search overtakes an exact scan from about a thousand vectors.
// ExactBelow defaults to 5000 all the same: below that an exact scan is
// still well under a millisecond at small dimensions and returns the true
// nearest neighbours, which matters most for small stores. The graph is
// maintained whatever the size, so crossing the threshold costs nothing.
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
// Deleting a tenth of a 100k index, vacuums included, runs at about 17,000
// deletes a second and leaves recall@10 at 0.999.
// Re-adding a deleted id inserts a new node. Add of an existing id marks
// the old node dead the same way.
//
// # Concurrency
//
// Searches share a read lock and run in parallel. Add, AddBatch and Delete
// take the write lock. AddBatch inserts with Options.Workers goroutines
// (GOMAXPROCS by default, from 16 nodes a worker) under that lock,
// coordinating as hnswlib does through per-node mutexes on the link blocks
// (striped: 4,096 of them) and one on the entry point; searches wait for
// a batch, so callers adding many vectors while serving searches should
// keep batches short (the SQLite store inserts 32 at a time).
//
// # Bulk builds
//
// Between BeginBulk and EndBulk (the SQLite store's catch-up of a large
// backlog, its first build), or within one AddBatch of 16,384 vectors or
// more, inserts of vectors of 384 dimensions or more walk the graph on
// compact codes: 192 int8 coordinates a node (three cache lines, against
// ten for a 612-d code), in the span of the top principal directions of a
// sample of 8,192 of the vectors (orthogonal iteration on their second
// moment, then a random rotation so one quantisation step fits every
// coordinate), fitted once the build holds that many. The walk's
// candidates are rescored on the full codes, and the heuristic chooses the
// links from them as before. Vectors whose sample keeps less than 0.8 of
// its energy in the span (random ones keep about 192/dim) walk on the full
// codes. The compact codes are freed when the build ends (PERF-12; the
// measurements are in docs/BENCHMARKS.md).
//
// The distance of the graph walk is an int8 dot product, in assembly on
// amd64: AVX-512 VNNI where the CPU has it (VPDPBUSD, 64 components an
// instruction, with the query offset by 128 once a search, as VPDPBUSD
// multiplies unsigned by signed bytes), else AVX2 (VPMOVSXBW, VPMADDWD),
// chosen at start-up; the portable loop is kept and tested against both.
// A beam step marks a node's unvisited
// neighbours, prefetches the first line of their codes and their scales,
// and while scoring each prefetches every line of the code two places on,
// so that the cache misses of a large index overlap. Reranking scores both
// codes in one pass and prefetches them the same way. On Linux, Read asks
// for transparent huge pages under the codes and links, which a search
// reads at random. On a large index the walk is bound by memory, not
// arithmetic, so a faster kernel helps a build, whose codes are more often
// in cache, more than a search (PERF-12).
//
// # File format
//
// Version 2, little-endian (version 1 is the same without the padding;
// Read takes both):
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
// In version 2 every section starts at a multiple of 64 bytes from the
// magic, zeros before it. On Linux (little-endian), Read of a version 2
// file of 1 MB or more whose index starts at a multiple of 64 bytes maps
// the file privately and uses the sections in place, the last, partial
// chunk of the chunked ones copied into a whole one: the pages are the
// page cache's, usually there already, and inserts, deletes and vacuums
// write to private copies of the pages they touch, never to the file. The
// mapping is released once the Index is unreachable. Copying a large index
// into fresh memory would take most of a reopen (PERF-13).
//
// Dead and free nodes are written as they are, so a reloaded index searches
// and grows exactly as the original would. Read decodes each section in
// bulk into one flat slice (the chunked ones cut from it). Given a file or an in-memory reader it checks
// the declared sizes against the bytes available, allocates each slice
// once, and reads straight into the slices' memory, in pieces of 1 MB
// spread over the cores, each checksummed as it arrives, the pieces' CRCs
// combined into the file's; from any other reader the slices grow only as
// bytes arrive. Either
// way a lying header cannot make it allocate much more than the input. It
// verifies the checksum and then
// every structural invariant (link targets, counts, levels, unique live
// ids, the entry point), the links on every core, and reports any failure
// as ErrCorrupt.
package vector
