//go:build !race

package scale

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = false
