//go:build !race

package use

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = false
