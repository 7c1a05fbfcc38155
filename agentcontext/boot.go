package agentcontext

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"

	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// Boot formats.
const (
	BootNarrative = "narrative" // markdown by layer (CTX-17), the default
	BootJSON      = "json"      // the layers as data, no text
)

// BootQuery asks for a warm start (CTX-17, CTX-18).
type BootQuery struct {
	Format string `json:"format,omitempty"` // narrative (default) or json
	// Lang is the language of the headings: en (default) or zh, the
	// language CTX-17's layout was first written in.
	Lang string    `json:"lang,omitempty"`
	Now  time.Time `json:"now,omitempty"`
}

// Boot is who the agent is and what it should know at the start of a
// session: four layers, identity → emotion → knowledge → event, each by
// vitality, and a summary.
type Boot struct {
	Identity  []BootItem `json:"identity"`
	Emotion   []BootItem `json:"emotion"`
	Knowledge []BootItem `json:"knowledge"`
	// Events are those of the last 7 days; EarlierEvents counts the rest.
	Events        []BootItem  `json:"events"`
	EarlierEvents int         `json:"earlier_events"`
	Summary       BootSummary `json:"summary"`
	Text          string      `json:"text,omitempty"` // the narrative markdown
	// Tokens counts the narrative's tokens with the service's tokenizer
	// (0 for the json format, which has no text).
	Tokens int `json:"tokens"`
	// SecurityLevel is the highest level of the memories it shows (SEC-12):
	// the narrative is as secret as they are, masked or not.
	SecurityLevel string `json:"security_level"`
}

// BootItem is one memory of a boot layer.
type BootItem struct {
	ID        string    `json:"id"`
	Key       string    `json:"key,omitempty"`
	Type      string    `json:"type"`
	Content   string    `json:"content"`
	Vitality  float64   `json:"vitality"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// SecurityLevel is the memory's (SEC-2); Content is masked for it when
	// the boot was asked redacted.
	SecurityLevel string `json:"security_level"`
}

// BootSummary counts the active memories.
type BootSummary struct {
	Total        int               `json:"total"`
	Types        []mnemo.TypeCount `json:"types"`
	MeanVitality float64           `json:"mean_vitality"`
}

// bootLayer is one layer: the types it shows and how many at most.
type bootLayer struct {
	types []string
	limit int
}

// The layers. Knowledge takes the chat categories of long-term memory
// (MEM-6: fact, preference, pattern) too; other types are counted in the summary only.
var (
	bootIdentity  = bootLayer{[]string{mnemo.TypeIdentity}, 20}
	bootEmotion   = bootLayer{[]string{mnemo.TypeEmotion}, 10}
	bootKnowledge = bootLayer{[]string{mnemo.TypeKnowledge, mnemo.TypeFact, mnemo.TypePreference, mnemo.TypePattern}, 20}
	bootEvents    = bootLayer{[]string{mnemo.TypeEvent}, 15}
	bootEventDays = 7
)

// Boot returns the warm start of CTX-17 and CTX-18. Nothing is recorded as
// accessed. A memory the caller's clearance (on ctx) does not read whole
// is in it masked (SEC-8).
func (s *Service) Boot(ctx context.Context, scope mnemo.Scope, q BootQuery) (Boot, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return Boot{}, err
	}
	switch q.Format {
	case "", BootNarrative, BootJSON:
	default:
		return Boot{}, mnemo.Errorf(mnemo.EINVALID, "format must be narrative or json, not %q", q.Format)
	}
	switch q.Lang {
	case "", "en", "zh":
	default:
		return Boot{}, mnemo.Errorf(mnemo.EINVALID, "lang must be en or zh, not %q", q.Lang)
	}
	if err := mnemo.CheckTime("now", q.Now); err != nil { // TIME-1
		return Boot{}, err
	}
	now := q.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.UTC()
	clear := security.ClearanceFrom(ctx)
	var b Boot
	// A layer is listed type by type, each in its index's order, and
	// merged: one ordered read per type instead of a sort of every memory
	// of the layer.
	layer := func(l bootLayer, f mnemo.Filter, order string) ([]BootItem, error) {
		var ms []mnemo.Memory
		for _, typ := range l.types {
			f.Types, f.Now = []string{typ}, now
			part, _, err := s.store.List(ctx, scope, mnemo.ListQuery{Filter: f, Order: order, Limit: l.limit, NoVectors: true, NoTotal: true})
			if err != nil {
				return nil, err
			}
			ms = append(ms, part...)
		}
		slices.SortStableFunc(ms, func(a, b mnemo.Memory) int {
			return cmp.Or(cmp.Compare(b.Vitality, a.Vitality), b.CreatedAt.Compare(a.CreatedAt))
		})
		ms = ms[:min(len(ms), l.limit)]
		items := make([]BootItem, len(ms))
		for i := range ms {
			m := &ms[i]
			text := m.Summary
			if text == "" {
				text = m.Content
			}
			items[i] = BootItem{ID: m.ID, Key: m.Key, Type: m.Type, Content: clear.Text(m.SecurityLevel, textutil.OneLine(text)), Vitality: m.Vitality,
				CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, SecurityLevel: m.SecurityLevel}
		}
		return items, nil
	}
	var err error
	if b.Identity, err = layer(bootIdentity, mnemo.Filter{}, mnemo.OrderVitality); err != nil {
		return Boot{}, err
	}
	if b.Emotion, err = layer(bootEmotion, mnemo.Filter{}, mnemo.OrderVitality); err != nil {
		return Boot{}, err
	}
	if b.Knowledge, err = layer(bootKnowledge, mnemo.Filter{}, mnemo.OrderVitality); err != nil {
		return Boot{}, err
	}
	// Events: the newest of the window, shown by vitality. (The window's
	// highest vitality would mean walking every event of the agent.)
	since := now.AddDate(0, 0, -bootEventDays)
	if b.Events, err = layer(bootEvents, mnemo.Filter{CreatedAfter: &since}, mnemo.OrderNewest); err != nil {
		return Boot{}, err
	}
	types, err := s.store.CountTypes(ctx, scope, mnemo.Filter{Now: now})
	if err != nil {
		return Boot{}, err
	}
	b.Summary.Types = types
	var sum float64
	events := 0
	for _, tc := range types {
		b.Summary.Total += tc.Count
		sum += tc.MeanVitality * float64(tc.Count)
		if tc.Type == mnemo.TypeEvent {
			events = tc.Count
		}
	}
	if b.Summary.Total > 0 {
		b.Summary.MeanVitality = sum / float64(b.Summary.Total)
	}
	// The events of the window beyond those shown, and those before it,
	// are folded into counts.
	recent, err := s.store.CountTypes(ctx, scope, mnemo.Filter{Types: bootEvents.types, CreatedAfter: &since, Now: now})
	if err != nil {
		return Boot{}, err
	}
	inWindow := 0
	if len(recent) == 1 {
		inWindow = recent[0].Count
	}
	b.EarlierEvents = events - inWindow
	b.SecurityLevel = mnemo.SecurityPublic
	for _, it := range slices.Concat(b.Identity, b.Emotion, b.Knowledge, b.Events) {
		b.SecurityLevel = mnemo.Highest(b.SecurityLevel, it.SecurityLevel)
	}
	if q.Format != BootJSON {
		b.Text = b.narrative(q.Lang, inWindow)
		b.Tokens = s.tok.Count(b.Text)
	}
	return b, nil
}

// bootText is the wording of the narrative, by language.
type bootText struct {
	identity, identityNote                 string
	emotion, emotionNote                   string
	knowledge, knowledgeNote               string
	events, eventsNote, earlier, moreShown string
	summary, total, mean, none             string
	empty                                  string
}

var bootTexts = map[string]bootText{
	"en": {
		identity: "## 🪪 Who I am", identityNote: "Identity memories never decay.",
		emotion: "## 💕 Recent emotions", emotionNote: "Last updated: %s",
		knowledge: "## 🧠 Key knowledge", knowledgeNote: "%d active knowledge memories",
		events: "## 📅 Recent events", eventsNote: "Events of the last 7 days",
		earlier: "... and %d earlier events", moreShown: "... and %d more of the last 7 days",
		summary: "## 📊 Memory overview", total: "Total %d", mean: "Mean vitality: %.2f", none: "- (none yet)",
		empty: "No memories yet: nothing is known to recall.",
	},
	"zh": {
		identity: "## 🪪 我是谁", identityNote: "身份记忆从不衰减。",
		emotion: "## 💕 最近的情感", emotionNote: "最后更新：%s",
		knowledge: "## 🧠 关键知识", knowledgeNote: "共 %d 条活跃知识记忆",
		events: "## 📅 近期事件", eventsNote: "最近 7 天内的事件",
		earlier: "... 及 %d 条更早事件", moreShown: "... 及最近 7 天内的另外 %d 条",
		summary: "## 📊 记忆概况", total: "总计 %d 条", mean: "平均 vitality: %.2f", none: "-（暂无）",
		empty: "暂无记忆：还没有可回忆的内容。",
	},
}

// narrative renders the layers as CTX-17's markdown; with no memory at
// all, one line that says so, rather than a page of empty sections that a
// model would read as something known (API-17).
func (b *Boot) narrative(lang string, eventsInWindow int) string {
	if lang == "" {
		lang = "en"
	}
	t := bootTexts[lang]
	if b.Summary.Total == 0 {
		return t.empty + "\n"
	}
	var sb strings.Builder
	list := func(items []BootItem, line func(BootItem) string) {
		if len(items) == 0 {
			sb.WriteString(t.none + "\n")
		}
		for _, it := range items {
			sb.WriteString(line(it) + "\n")
		}
	}
	withVitality := func(it BootItem) string {
		return fmt.Sprintf("- %s (vitality: %.2f)", textutil.Clip(it.Content, 200), it.Vitality)
	}

	sb.WriteString(t.identity + "\n" + t.identityNote + "\n")
	list(b.Identity, func(it BootItem) string { return "- " + textutil.Clip(it.Content, 300) })

	sb.WriteString("\n" + t.emotion + "\n")
	var last time.Time
	for _, it := range b.Emotion {
		if it.UpdatedAt.After(last) {
			last = it.UpdatedAt
		}
	}
	if !last.IsZero() {
		sb.WriteString(fmt.Sprintf(t.emotionNote, last.Format("2006-01-02")) + "\n")
	}
	list(b.Emotion, withVitality)

	knowledge := 0
	for _, tc := range b.Summary.Types {
		for _, k := range bootKnowledge.types {
			if tc.Type == k {
				knowledge += tc.Count
			}
		}
	}
	sb.WriteString("\n" + t.knowledge + "\n" + fmt.Sprintf(t.knowledgeNote, knowledge) + "\n")
	list(b.Knowledge, withVitality)

	sb.WriteString("\n" + t.events + "\n" + t.eventsNote + "\n")
	list(b.Events, func(it BootItem) string {
		return fmt.Sprintf("- [%s] %s", it.CreatedAt.Format("01-02"), textutil.Clip(it.Content, 200))
	})
	if n := eventsInWindow - len(b.Events); n > 0 {
		sb.WriteString(fmt.Sprintf(t.moreShown, n) + "\n")
	}
	if b.EarlierEvents > 0 {
		sb.WriteString(fmt.Sprintf(t.earlier, b.EarlierEvents) + "\n")
	}

	sb.WriteString("\n" + t.summary + "\n" + fmt.Sprintf(t.total, b.Summary.Total))
	for _, tc := range b.Summary.Types {
		fmt.Fprintf(&sb, " | %s: %d", tc.Type, tc.Count)
	}
	sb.WriteString("\n" + fmt.Sprintf(t.mean, b.Summary.MeanVitality) + "\n")
	return sb.String()
}
