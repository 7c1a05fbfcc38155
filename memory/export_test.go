package memory

// SetTimeWho turns recall's time and people stages (REC-25 … REC-29) on or
// off, for BenchmarkRecallTimeWho100k to measure what they cost.
func SetTimeWho(s *Service, on bool) { s.noTimeWho = !on }

// SetMatch turns the match of an answer (API-17) on or off, for
// BenchmarkRecallMatch to measure what it costs.
func SetMatch(s *Service, on bool) { s.noMatch = !on }

// Addressed is addressed, for its table test.
var Addressed = addressed
