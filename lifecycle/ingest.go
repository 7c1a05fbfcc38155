package lifecycle

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/security"
)

// IngestRequest asks for memories to be extracted from markdown (MEM-11):
// a daily note, a journal, MEMORY.md.
type IngestRequest struct {
	Text   string `json:"text"`
	Source string `json:"source,omitempty"` // where it came from, e.g. memory/2026-02-23.md
	DryRun bool   `json:"dry_run,omitempty"`
}

// IngestResult says what was extracted and what became of each item.
type IngestResult struct {
	Extracted int          `json:"extracted"`
	Written   int          `json:"written"`
	Skipped   int          `json:"skipped"`
	DryRun    bool         `json:"dry_run,omitempty"`
	Items     []IngestItem `json:"items"`
}

// IngestItem is one extracted memory.
type IngestItem struct {
	Key      string                `json:"key"`
	Type     string                `json:"type"`
	Priority int                   `json:"priority"`
	Content  string                `json:"content"`
	Heading  string                `json:"heading,omitempty"`
	Action   string                `json:"action"` // written, skipped, would_write
	Reason   string                `json:"reason,omitempty"`
	ID       string                `json:"id,omitempty"`
	Guard    *memory.GuardDecision `json:"guard,omitempty"`
	// SecurityLevel is the level the memory has, or would have (SEC-6).
	SecurityLevel string `json:"security_level"`
}

// Conceal masks the item's text when c may not read its level: a caller
// never reads back whole what it may not read (SEC-8, SEC-10).
func (it *IngestItem) Conceal(c security.Clearance) {
	if c.Conceals(it.SecurityLevel) {
		it.Content, it.Heading = c.Text(it.SecurityLevel, it.Content), ""
	}
}

// maxIngestBytes bounds one ingest's text.
const maxIngestBytes = 1 << 20

// ingestRule types a block by its heading or its words (MEM-11's
// rules), in this order: identity, emotion, event, knowledge.
type ingestRule struct {
	typ      string
	priority int
	headings []string // a heading containing one of these types its blocks
	cues     []string // a block containing one of these is of the type
}

var ingestRules = []ingestRule{
	{mnemo.TypeIdentity, 0, []string{"身份", "我是谁", "identity", "who i am", "about me"}, []string{"我是", "i am ", "i'm a ", "my name is", "我叫"}},
	{mnemo.TypeEmotion, 1, []string{"情感", "感受", "心情", "emotion", "feeling", "mood"}, []string{"❤️", "❤", "爱", "感动", "开心", "难过", "伤心", "想念", "love", "grateful", "happy", "sad", "miss ", "moved"}},
	{mnemo.TypeEvent, 3, []string{"事件", "日志", "今天", "event", "log", "today", "timeline"}, []string{"发生了", "完成了", "部署了", "上线了", "finished", "completed", "deployed", "shipped", "happened", "met with", "released"}},
	{mnemo.TypeKnowledge, 2, []string{"决策", "技术", "选型", "教训", "经验", "⚠️", "decision", "lesson", "learned", "tech", "knowledge", "notes"}, []string{"决定", "教训", "注意", "⚠️", "decided", "lesson", "always", "never", "remember to", "rule"}},
}

// datePattern marks a dated entry: an event.
var datePattern = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\d{1,2}月\d{1,2}日`)

// Ingest extracts typed memories from markdown: blocks are the bullets
// and paragraphs under each heading, typed by the heading or their words
// (identity, emotion, knowledge, event, in Chinese and English), keyed by
// source + heading + position (so that ingesting the same note again
// updates rather than duplicates), and written through the Write Guard
// with source "auto:<source>". DryRun returns the extraction only.
func (s *Service) Ingest(ctx context.Context, scope mnemo.Scope, req IngestRequest) (IngestResult, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return IngestResult{}, err
	}
	if strings.TrimSpace(req.Text) == "" {
		return IngestResult{}, mnemo.Errorf(mnemo.EINVALID, "text is empty")
	}
	if len(req.Text) > maxIngestBytes {
		return IngestResult{}, mnemo.Errorf(mnemo.ETOOLARGE, "text is %d bytes, the limit is %d", len(req.Text), maxIngestBytes)
	}
	if !utf8.ValidString(req.Text) {
		return IngestResult{}, mnemo.Errorf(mnemo.EINVALID, "text is not valid UTF-8")
	}
	source := strings.TrimSpace(req.Source)
	if source == "" {
		source = "ingest"
	}
	base, err := ingestBase(source)
	if err != nil {
		return IngestResult{}, err
	}
	res := IngestResult{DryRun: req.DryRun, Items: []IngestItem{}}
	for _, b := range splitBlocks(req.Text) {
		typ, prio, why := typeBlock(b)
		key, err := mnemo.NormalizeKey(fmt.Sprintf("%s/%s/%d", base, slug(b.heading), b.n))
		if err != nil {
			return IngestResult{}, err
		}
		content := textutil.Clip(b.text, s.mem.Limits().MaxContentChars)
		item := IngestItem{Key: key, Type: typ, Priority: prio, Content: content, Heading: b.heading, Reason: why}
		item.SecurityLevel, _ = security.Classify(content, mnemo.SecurityInternal) // as a write classifies it (SEC-6)
		res.Extracted++
		if old, err := s.store.GetByKey(ctx, scope, key); err == nil && old.Content == content && old.Type == typ {
			item.Action, item.ID, item.Reason, item.SecurityLevel = "skipped", old.ID, "unchanged since the last ingest", old.SecurityLevel
			res.Skipped++
			res.Items = append(res.Items, item)
			continue
		}
		if req.DryRun {
			item.Action = "would_write"
			res.Items = append(res.Items, item)
			continue
		}
		p := prio
		wr, err := s.mem.Write(ctx, scope, []mnemo.Draft{{Key: key, Content: &content, Type: typ, Priority: &p,
			Source: []byte(fmt.Sprintf("%q", "auto:"+source)), Tags: []string{"ingested"}}})
		switch {
		case mnemo.ErrorCode(err) == mnemo.EINVALID:
			item.Action, item.Reason = "skipped", mnemo.ErrorMessage(err)
			res.Skipped++
		case err != nil:
			return IngestResult{}, err
		default:
			g := wr[0].Guard
			item.Action, item.ID, item.Guard, item.SecurityLevel = "written", wr[0].ID, &g, wr[0].SecurityLevel
			res.Written++
		}
		res.Items = append(res.Items, item)
	}
	return res, nil
}

// ingestBase is the key prefix of a source: its path, without a leading
// slash, under /ingest.
func ingestBase(source string) (string, error) {
	clean := path.Clean("/" + strings.ReplaceAll(source, "\\", "/"))
	k, err := mnemo.NormalizeKey("/ingest" + clean)
	if err != nil {
		return "", mnemo.Errorf(mnemo.EINVALID, "source %q cannot name keys: %s", source, mnemo.ErrorMessage(err))
	}
	return k, nil
}

// block is one extractable piece of markdown.
type block struct {
	heading string
	n       int // position under the heading, from 1
	text    string
}

var (
	headingRe = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	bulletRe  = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*)$`)
)

// splitBlocks cuts markdown into blocks: each bullet, and each paragraph
// of other lines, under the nearest heading.
func splitBlocks(text string) []block {
	var (
		out     []block
		heading string
		n       int
		para    []string
	)
	flush := func() {
		if t := strings.TrimSpace(strings.Join(para, " ")); t != "" {
			n++
			out = append(out, block{heading, n, t})
		}
		para = nil
	}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue // code is not a memory
		}
		switch m := headingRe.FindStringSubmatch(trimmed); {
		case m != nil:
			flush()
			heading, n = strings.TrimSpace(m[1]), 0
		case trimmed == "":
			flush()
		default:
			if b := bulletRe.FindStringSubmatch(line); b != nil {
				flush()
				para = []string{b[1]}
				flush()
				continue
			}
			para = append(para, trimmed)
		}
	}
	flush()
	return out
}

// typeBlock types a block: by its heading first, then by its words, then
// by a date in it (an event); knowledge otherwise.
func typeBlock(b block) (string, int, string) {
	h := strings.ToLower(b.heading)
	for _, r := range ingestRules {
		for _, w := range r.headings {
			if h != "" && strings.Contains(h, w) {
				return r.typ, r.priority, fmt.Sprintf("heading %q", b.heading)
			}
		}
	}
	t := strings.ToLower(b.text)
	for _, r := range ingestRules {
		for _, w := range r.cues {
			if strings.Contains(t, w) {
				return r.typ, r.priority, fmt.Sprintf("cue %q", strings.TrimSpace(w))
			}
		}
	}
	if datePattern.MatchString(b.text) {
		return mnemo.TypeEvent, 3, "dated"
	}
	return mnemo.TypeKnowledge, 2, "no cue: knowledge by default"
}

// slug makes a heading one key segment.
func slug(h string) string {
	h = strings.TrimSpace(h)
	if h == "" {
		return "_"
	}
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == '/' || r == '\\' || r == ' ' || r == '.' || r < ' ':
			b.WriteRune('-')
		default:
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), "-")
}
