//go:build race

package temporal

// raceEnabled is set when the tests run under the race detector, which
// slows the rules' matching sixtyfold.
const raceEnabled = true
