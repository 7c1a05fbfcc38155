package importers_test

import (
	"bytes"
	"testing"

	"github.com/mnemo-dev/mnemo/importers"
)

// Each reader, on any input: no panic, and what it returns holds its
// promises (checkHistory); an error is a SyntaxError.
func fuzzReader(f *testing.F, format importers.Format, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add([]byte("[]"))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := importers.Read(format, "fuzz", bytes.NewReader(in))
		if err != nil {
			if h != nil {
				t.Fatal("a failed read returned a history")
			}
			return
		}
		checkHistory(t, h)
	})
}

func FuzzChatGPT(f *testing.F)    { fuzzReader(f, importers.ChatGPT, chatgptExport(f)) }
func FuzzClaude(f *testing.F)     { fuzzReader(f, importers.Claude, claudeExport(f)) }
func FuzzClaudeCode(f *testing.F) { fuzzReader(f, importers.ClaudeCode, claudeCodeSession(f)[:2000]) }
func FuzzCodex(f *testing.F)      { fuzzReader(f, importers.Codex, codexRollout(f), codexLegacy(f)) }
func FuzzMCPMemory(f *testing.F)  { fuzzReader(f, importers.MCPMemory, mcpMemory(f)) }
