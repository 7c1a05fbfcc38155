//go:build race

package failover_test

// raceEnabled is set when the tests run under the race detector, which
// slows the writes tenfold: the outage test spools fewer records under it,
// and `make unit` runs it once more at full size without it.
const raceEnabled = true
