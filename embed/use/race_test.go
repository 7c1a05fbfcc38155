//go:build race

package use

// raceEnabled is set when the tests run under the race detector, which
// slows the portable path's loops thirtyfold: its golden check runs
// without it (make test's unit step, FULLSIZE).
const raceEnabled = true
