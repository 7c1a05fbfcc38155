package mnemo

import (
	"fmt"
	"unicode/utf8"
)

// MaskLabel is the marker of a security level whose text is masked on
// channels that reach a model (MCP, prompt sections built for it), or ""
// when the level is shown.
func MaskLabel(level string) string {
	switch level {
	case SecurityConfidential:
		return "[CONFIDENTIAL]"
	case SecurityRestricted:
		return "[RESTRICTED]"
	}
	return ""
}

// Mask replaces s by its marker and its length: enough to know that
// something is there and how much, none of what it says.
func Mask(label, s string) string {
	return fmt.Sprintf("%s ****** (%d characters)", label, utf8.RuneCountInString(s))
}

// masked returns the text a prompt shows of a memory's text: itself, or
// masked when redact is set and the memory's level asks for it.
func masked(m *Memory, text string, redact bool) string {
	if !redact {
		return text
	}
	if label := MaskLabel(m.SecurityLevel); label != "" {
		return Mask(label, text)
	}
	return text
}
