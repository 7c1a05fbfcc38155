package embed

import "time"

// A Loader is an in-process embedder whose model is read on first use
// (use: about a tenth of a second on two cores). The memory service loads
// it in the background as it starts, so that the first recall of a server
// does not wait for it (PERF-2).
type Loader interface {
	// Load reads the model, once; later calls return at once with the
	// first call's time and error.
	Load() (time.Duration, error)
}
