//go:build !race

package temporal

// raceEnabled is set when the tests run under the race detector.
const raceEnabled = false
