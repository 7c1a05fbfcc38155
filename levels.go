package mnemo

// CheckLevel, Highest and LevelRank order the security levels (SEC-2);
// package security conceals by them.

// CheckLevel validates a security level a writer gives; "" is none.
func CheckLevel(field, level string) error {
	switch level {
	case "", SecurityPublic, SecurityInternal, SecurityConfidential, SecurityRestricted:
		return nil
	}
	return Errorf(EINVALID, "%s must be public, internal, confidential or restricted, not %q", field, level)
}

// Highest returns the highest of levels, "" for none: the level of what is
// built from all of them (a key's history, a summary).
func Highest(levels ...string) string {
	best := ""
	for _, l := range levels {
		switch {
		case levelRank(l) < 0:
			return l // a level mnemo does not know outranks every other
		case best == "" || levelRank(l) > levelRank(best):
			best = l
		}
	}
	return best
}

// levelRank orders levels (LevelRank), an empty one being internal.
func levelRank(level string) int {
	if level == "" {
		level = SecurityInternal
	}
	return LevelRank(level)
}

// LevelRank orders levels: public 0 … restricted 3; -1 for an unknown level.
func LevelRank(level string) int {
	switch level {
	case SecurityPublic:
		return 0
	case SecurityInternal:
		return 1
	case SecurityConfidential:
		return 2
	case SecurityRestricted:
		return 3
	}
	return -1
}
