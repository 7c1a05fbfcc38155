package mnemo

import "github.com/mnemo-dev/mnemo/security"

// MaskedText returns the text a prompt shows of a memory's text: itself, or
// masked (package security) when redact is set and the memory's level asks
// for it.
func (m *Memory) MaskedText(text string, redact bool) string {
	if !redact {
		return text
	}
	if label := security.Label(m.SecurityLevel); label != "" {
		return security.Mask(label, text)
	}
	return text
}

// Mask replaces what a confidential or restricted memory says (content,
// summary, data) by its masked form (SEC-3, SEC-7), and leaves a memory of
// any other level as it is.
func (m *Memory) Mask() {
	label := security.Label(m.SecurityLevel)
	if label == "" {
		return
	}
	m.Content = security.Mask(label, m.Content)
	if m.Summary != "" {
		m.Summary = security.Mask(label, m.Summary)
	}
	m.Data = nil
}

// Classify sets the security level of a memory written without one from
// what its text contains (SEC-6): e-mail addresses and phone
// numbers make it confidential; IDs, cards, keys, tokens and passwords
// restricted. A level the writer gives is kept as it is.
func (m *Memory) Classify(given string) {
	if given != "" {
		return
	}
	text := m.Content + "\n" + m.Summary
	if len(m.Data) > 0 {
		text += "\n" + string(m.Data)
	}
	m.SecurityLevel, _ = security.Classify(text, m.SecurityLevel)
}
