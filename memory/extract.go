package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// Extracted is a memory a model found worth keeping in a conversation
// (should_store, MEM-7).
type Extracted struct {
	Category   string  `json:"category"` // preference, fact or pattern
	Key        string  `json:"key,omitempty"`
	Content    string  `json:"content"`
	Confidence float64 `json:"confidence"`
	Source     string  `json:"source"` // user_stated or inferred
}

// Extractor finds memories in conversation messages: an LLM when one
// is configured and extraction is switched on (off by default).
type Extractor interface {
	ExtractMemories(ctx context.Context, msgs []Message) ([]Extracted, error)
}

// extract writes what the extractor finds in msgs through the Write
// Guard: a user-stated fact at confidence 0.9 or more (MEM-7), under
// /<category>/<key> when the model named one. A failing model costs the
// extraction, never the conversation's write: it is logged and in the
// ledger. Each memory is at least as secret as the most secret of msgs,
// level (SEC-12): the model read them all.
func (s *Service) extract(ctx context.Context, scope mnemo.Scope, sessionID string, msgs []Message, level string) {
	found, err := s.extractor.ExtractMemories(ctx, msgs)
	if err != nil {
		s.log.Warn("memory extraction failed", "session", sessionID, "err", err)
		s.record(ctx, scope, mnemo.LedgerEntry{Action: mnemo.ActionExtract, Actor: "llm", Reason: "degraded: extraction failed: " + mnemo.ErrorMessage(err)})
		return
	}
	var drafts []mnemo.Draft
	for _, e := range found {
		cat := strings.ToLower(strings.TrimSpace(e.Category))
		switch cat {
		case "preference", "fact", "pattern":
		default:
			cat = "fact"
		}
		conf := min(max(e.Confidence, 0), 1)
		src := "inferred"
		if e.Source == "user_stated" {
			src, conf = "user_stated", max(conf, 0.9)
		}
		content := e.Content
		d := mnemo.Draft{Content: &content, Category: cat, Type: cat, Confidence: &conf, SessionID: sessionID, Tags: []string{"extracted"},
			SecurityLevel: security.ClassifyText(content, level)}
		d.Source, _ = json.Marshal(src)
		if k := textutil.KeySegment(strings.ToLower(strings.TrimSpace(e.Key))); k != "" {
			d.Key = "/" + cat + "/" + k
		}
		drafts = append(drafts, d)
	}
	if len(drafts) == 0 {
		return
	}
	var ids []string
	for _, d := range drafts { // one by one: a rejected one does not sink the others
		res, err := s.Write(ctx, scope, []mnemo.Draft{d})
		if err != nil {
			s.log.Info("extracted memory not written", "err", err)
			continue
		}
		ids = append(ids, res[0].ID)
	}
	if len(ids) > 0 {
		s.record(ctx, scope, mnemo.LedgerEntry{Action: mnemo.ActionExtract, Actor: "llm", MemoryIDs: ids,
			Reason: fmt.Sprintf("%d memories extracted from session %s", len(ids), sessionID)})
	}
}
