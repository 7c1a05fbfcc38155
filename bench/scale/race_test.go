//go:build race

package scale

// raceEnabled is set when the tests run under the race detector, which
// slows the writes and the sentence encoder tenfold: TestRunSmall runs
// without it.
const raceEnabled = true
