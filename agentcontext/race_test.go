//go:build race

package agentcontext_test

// raceEnabled is set when the tests run under the race detector, which
// slows the SQLite driver twentyfold: tests of volume scale down under it,
// and `make unit` runs them once more at full size without it.
const raceEnabled = true
