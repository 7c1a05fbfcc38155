//go:build race

package sqlite

// raceEnabled shrinks tests that the race detector slows tenfold: SQLite
// itself is Go here, and instrumented too.
const raceEnabled = true
