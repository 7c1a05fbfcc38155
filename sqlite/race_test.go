//go:build race

package sqlite_test

// raceEnabled is set when the tests run under the race detector, which
// slows the SQLite driver twentyfold.
const raceEnabled = true
