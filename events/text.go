package events

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/cues"
	"github.com/mnemo-dev/mnemo/internal/panics"
)

// L2 relations of unstructured events (EVT-6: by a model): what
// an event's text mentions (entities), feels (emotion) and wants (intent),
// as edges from the event to nodes named "entity:<name>", "emotion:<name>"
// and "intent:<name>". Events that mention one entity meet at its node, so
// the graph queries (neighbours, traverse, path) connect them.
//
// A model reads the text when one is configured (TextRelationOptions.
// Analyzer, e.g. the llm package's client); rules read it otherwise, and
// when the model fails. Extraction runs after the append commits, in the
// background: a slow or failing model never holds a writer, and a full
// queue drops the extraction (logged), never the event.

// Relation types of text analysis, and the prefixes of their target nodes.
const (
	RelMentions = "mentions"
	RelEmotion  = "emotion"
	RelIntent   = "intent"

	NodeEntity  = mnemo.NodeEntity
	NodeEmotion = mnemo.NodeEmotion
	NodeIntent  = mnemo.NodeIntent
)

// Intents the rules tell apart.
const (
	IntentQuestion  = "question"
	IntentRequest   = "request"
	IntentComplaint = "complaint"
	IntentGratitude = "gratitude"
	IntentInform    = "inform"
)

// TextAnalysis is what an analyzer finds in an event's text.
type TextAnalysis struct {
	Entities   []string `json:"entities"`
	Emotion    string   `json:"emotion"` // "" or neutral: none
	Intent     string   `json:"intent"`
	Confidence float64  `json:"confidence"` // of the whole analysis, 0 to 1
}

// TextAnalyzer reads the text of an event: an LLM.
type TextAnalyzer interface {
	AnalyzeEventText(ctx context.Context, text string) (TextAnalysis, error)
}

// TextRelationOptions configure L2 relations from text.
type TextRelationOptions struct {
	// On extracts relations from the text of every appended event, in the
	// background.
	On bool
	// Analyzer is the model; nil: rules only.
	Analyzer TextAnalyzer
	// Queue is how many events may wait for extraction (0: 4096); more are
	// dropped, with a warning, rather than hold writers.
	Queue int
}

type textJob struct {
	scope    mnemo.Scope
	event    mnemo.Event
	relate   bool // extract text relations
	interact bool // record a profile interaction
}

// afterAppend hands stored events to the background work that follows a
// commit: text relations and profile interactions.
func (s *Service) afterAppend(scope mnemo.Scope, events []mnemo.Event) {
	types := s.events.Profile.InteractionTypes
	if !s.events.TextRelations.On && len(types) == 0 {
		return
	}
	for _, e := range events {
		j := textJob{scope: scope, event: e, relate: s.events.TextRelations.On, interact: slices.Contains(types, e.Type)}
		if (j.relate || j.interact) && Text(e) != "" {
			s.after.enqueueText(s, j)
		}
	}
}

// enqueueText queues a job without blocking: a full queue drops it.
func (p *postAppend) enqueueText(s *Service, j textJob) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.textJobs == nil {
		n := s.events.TextRelations.Queue
		if n <= 0 {
			n = 4096
		}
		p.textJobs = make(chan textJob, n)
		p.textDone = make(chan struct{})
		go p.textWork(s)
	}
	p.textPending.Add(1)
	select { // under mu: close does not close the channel meanwhile
	case p.textJobs <- j:
	default:
		p.textPending.Done()
		s.log.Warn("text relation queue is full; the event's text relations are skipped", "event", j.event.ID)
	}
}

func (p *postAppend) textWork(s *Service) {
	defer close(p.textDone)
	for j := range p.textJobs {
		s.textJob(j)
		p.textPending.Done()
	}
}

// textJob analyses one event's text. A panic in it is logged with its
// stack and costs that event's relations only.
func (s *Service) textJob(j textJob) {
	defer panics.Recover(s.log, "event text analysis", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if j.relate {
		if _, err := s.relateText(ctx, j.scope, j.event); err != nil {
			s.log.Warn("text relations of an event failed", "event", j.event.ID, "err", err)
		}
	}
	if j.interact {
		if _, _, err := s.RecordInteraction(ctx, j.scope, Text(j.event)); err != nil {
			s.log.Warn("recording an interaction failed", "event", j.event.ID, "err", err)
		}
	}
}

// WaitEventRelations returns when the background work of every event
// appended so far (text relations, profile interactions) is done.
func (s *Service) WaitEventRelations(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.after.textPending.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RelateEventText extracts and stores the text relations of one stored
// event now, and returns them.
func (s *Service) RelateEventText(ctx context.Context, scope mnemo.Scope, id string) ([]mnemo.Relation, error) {
	e, err := s.GetEvent(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	rels, err := s.relateText(ctx, scope, e)
	if err != nil || rels == nil {
		return rels, err
	}
	// What the text names is as secret as the event (SEC-13).
	es, err := s.eventStore()
	if err != nil {
		return nil, err
	}
	return s.relationFilter(ctx, es, scope).Keep(ctx, rels)
}

func (s *Service) relateText(ctx context.Context, scope mnemo.Scope, e mnemo.Event) ([]mnemo.Relation, error) {
	es, err := s.eventStore()
	if err != nil {
		return nil, err
	}
	text := Text(e)
	if text == "" {
		return nil, nil
	}
	an, conf := AnalyzeTextRules(text), 0.6
	if a := s.events.TextRelations.Analyzer; a != nil {
		got, err := a.AnalyzeEventText(ctx, text)
		if err != nil {
			s.log.Warn("the model could not read the event; rules did", "event", e.ID, "err", err)
		} else {
			an, conf = got, 0.8
			if got.Confidence > 0 && got.Confidence <= 1 {
				conf = got.Confidence
			}
		}
	}
	rels := TextRelations(e.ID, an, conf, s.now().UTC())
	if len(rels) == 0 {
		return nil, nil
	}
	return rels, es.AddRelations(ctx, scope, rels)
}

// TextRelations turns an analysis of event id into edges.
func TextRelations(id string, an TextAnalysis, conf float64, now time.Time) []mnemo.Relation {
	var out []mnemo.Relation
	add := func(node, typ string) {
		if !slices.ContainsFunc(out, func(r mnemo.Relation) bool { return r.Target == node }) {
			out = append(out, mnemo.Relation{Source: id, Target: node, Type: typ, Confidence: conf, CreatedAt: now})
		}
	}
	for _, ent := range an.Entities {
		if ent = normEntity(ent); ent != "" {
			add(NodeEntity+ent, RelMentions)
		}
	}
	if em := strings.ToLower(strings.TrimSpace(an.Emotion)); em != "" && em != "neutral" {
		add(NodeEmotion+em, RelEmotion)
	}
	if in := strings.ToLower(strings.TrimSpace(an.Intent)); in != "" {
		add(NodeIntent+in, RelIntent)
	}
	return out
}

// normEntity trims an entity name to one line of at most 64 characters.
func normEntity(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 64 {
		s = string([]rune(s)[:64])
	}
	return s
}

var (
	// Capitalised words in a row, e.g. "Acme Corp", "Berlin".
	capitalised = regexp.MustCompile(`\b\p{Lu}[\p{L}\p{N}'&.-]*(?:\s+(?:of\s+|de\s+)?\p{Lu}[\p{L}\p{N}'&.-]*)*`)
	// Chinese names in book-title or corner quotes, and organisations and
	// places by their suffix.
	cjkQuoted = regexp.MustCompile(`[《「“『]([^》」”』]{1,30})[》」”』]`)
	cjkSuffix = regexp.MustCompile(`[\p{Han}]{1,8}?(?:公司|集团|大学|学院|医院|银行|市|省|县|区|国)`)

	notEntities = map[string]bool{"I": true, "I'm": true, "I've": true, "I'll": true, "I'd": true, "The": true, "A": true, "An": true,
		"This": true, "That": true, "These": true, "Those": true, "It": true, "We": true, "You": true, "He": true, "She": true,
		"They": true, "My": true, "Our": true, "Your": true, "Please": true, "Thanks": true, "Thank": true, "Hi": true, "Hello": true,
		"Can": true, "Could": true, "Would": true, "Will": true, "What": true, "Why": true, "How": true, "When": true, "Where": true,
		"Who": true, "Is": true, "Are": true, "Do": true, "Does": true, "Did": true, "OK": true, "Ok": true, "Yes": true, "No": true,
		"But": true, "And": true, "So": true, "If": true, "Then": true, "Also": true, "Just": true, "Let's": true, "Let": true}

	intentCues = []struct {
		intent string
		cues   []string
	}{
		{IntentComplaint, []string{"doesn't work", "does not work", "not working", "broken", "complain", "unacceptable", "refund", "投诉", "不能用", "坏了", "太差"}},
		{IntentRequest, []string{"please", "can you", "could you", "would you", "i want", "i need", "i'd like", "help me", "请", "帮我", "我想", "我需要", "麻烦"}},
		{IntentGratitude, []string{"thank", "appreciate", "谢谢", "感谢", "多谢"}},
		{IntentQuestion, []string{"?", "？", "what ", "how ", "why ", "when ", "where ", "who ", "吗", "什么", "怎么", "为什么", "哪里", "多少"}},
	}
)

// AnalyzeTextRules reads a text without a model: entities by
// capitalisation (Latin scripts) and by quotes and suffixes (Chinese),
// emotion and intent by cue words in English and Chinese.
func AnalyzeTextRules(text string) TextAnalysis {
	var an TextAnalysis
	seen := map[string]bool{}
	addEnt := func(e string) {
		e = strings.Trim(strings.TrimSpace(e), ".'-&")
		if e == "" || notEntities[e] || seen[e] {
			return
		}
		seen[e] = true
		an.Entities = append(an.Entities, e)
	}
	for _, sentence := range splitSentences(text) {
		sentence = strings.TrimSpace(sentence)
		for _, loc := range capitalised.FindAllStringIndex(sentence, -1) {
			m := sentence[loc[0]:loc[1]]
			first, rest, multi := strings.Cut(m, " ")
			if loc[0] == 0 && notEntities[first] {
				if !multi {
					continue
				}
				m = strings.TrimSpace(rest) // "The Acme Corp" → "Acme Corp"
			}
			// A lone capitalised word opening a sentence is usually just
			// the sentence's first word.
			if loc[0] == 0 && !multi && len(m) > 0 && !allCapsOrMixed(m) && !strings.ContainsFunc(sentence[loc[1]:], unicode.IsUpper) {
				continue
			}
			addEnt(m)
		}
	}
	for _, m := range cjkQuoted.FindAllStringSubmatch(text, -1) {
		addEnt(m[1])
	}
	for _, m := range cjkSuffix.FindAllString(text, -1) {
		addEnt(trimCJKName(m))
	}
	lower := strings.ToLower(text)
	if e, ok := cues.Emotion(lower); ok {
		an.Emotion = e
	}
	an.Intent = IntentInform
	for _, c := range intentCues {
		if slices.ContainsFunc(c.cues, func(cue string) bool { return strings.Contains(lower, cue) }) {
			an.Intent = c.intent
			break
		}
	}
	return an
}

// cjkStops are characters that end a phrase before a name: verbs,
// prepositions, pronouns and particles around places and organisations.
const cjkStops = "去在到从和跟与的了我你他她们请帮订买找是有要想说看把被给对向往"

// trimCJKName keeps the name of a suffix match: what follows the last
// stop character, at most four characters before the suffix ("请帮我订去上海市"
// → "上海市").
func trimCJKName(m string) string {
	r := []rune(m)
	suffix := 1
	for _, suf := range []string{"公司", "集团", "大学", "学院", "医院", "银行"} {
		if strings.HasSuffix(m, suf) {
			suffix = 2
		}
	}
	start := 0
	for i := len(r) - suffix - 1; i >= 0; i-- {
		if strings.ContainsRune(cjkStops, r[i]) {
			start = i + 1
			break
		}
	}
	start = max(start, len(r)-suffix-4)
	return string(r[start:])
}

// allCapsOrMixed reports an acronym or a CamelCase name (NASA, OpenAI).
func allCapsOrMixed(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n > 1
}

func splitSentences(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return r == '.' || r == '!' || r == '?' || r == '\n' || r == '。' || r == '！' || r == '？'
	})
}
