package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
)

// Parameter names follow the agent-memory tools (content, type, uri,
// emotion_val, source; query, limit; uri, traverse_hops; keywords, types,
// min_vitality; text, dry_run; format; phase) and set_memory (key,
// json_content, source), so that clients written for either keep working
// (API-3);
// the rest are mnemo's own, named as in mnemo.Draft and memory.Query.

type rememberIn struct {
	Content       string          `json:"content" jsonschema:"the memory itself, as a short self-contained statement (at most 2000 characters), e.g. 'The user prefers tabs over spaces in Go code'"`
	Key           string          `json:"key,omitempty" jsonschema:"optional stable name, a path such as /user/preference/indent or a URI such as knowledge://go/style; remembering the same key again replaces the memory instead of adding one"`
	URI           string          `json:"uri,omitempty" jsonschema:"another name for key; give one or the other"`
	Type          string          `json:"type,omitempty" jsonschema:"kind of memory: identity, emotion, knowledge (default), event, preference, fact, pattern, or another lower-case word"`
	Priority      *int            `json:"priority,omitempty" jsonschema:"how long it should last: 0 (P0, never fades: identity), 1 (P1, a year), 2 (P2, default, three months), 3 (P3, two weeks)"`
	Tags          []string        `json:"tags,omitempty" jsonschema:"labels to filter recall by, e.g. [\"work\", \"go\"]"`
	Importance    *float64        `json:"importance,omitempty" jsonschema:"0 to 1, default 0.5"`
	Confidence    *float64        `json:"confidence,omitempty" jsonschema:"how sure you are that it is true, 0 to 1, default 1"`
	Category      string          `json:"category,omitempty" jsonschema:"optional finer grouping than type, a lower-case word"`
	Source        json.RawMessage `json:"source,omitempty" jsonschema:"where it came from: a string (default 'manual') or an object {kind, name, retrieved_at, locator}; required as an object for web, tool and file sources and for /kb/ keys"`
	SecurityLevel string          `json:"security_level,omitempty" jsonschema:"public, internal (default), confidential or restricted; confidential and restricted memories are masked in every MCP result"`
	Pinned        bool            `json:"pinned,omitempty" jsonschema:"always load this memory at the start of a run"`
	ExpiresAt     *time.Time      `json:"expires_at,omitempty" jsonschema:"when the memory stops being true, RFC 3339, a date (2026-11-20) or words (last Tuesday); it is not recalled after that"`
	EmotionVal    *float64        `json:"emotion_val,omitempty" jsonschema:"emotional valence, -1 (negative) to 1 (positive); kept in the memory's data"`
	OccurredAt    *mnemo.When     `json:"occurred_at,omitempty" jsonschema:"when what it tells happened: RFC 3339, a date (2026-11-20, that day), words (last Tuesday) or a recurrence (every Sunday morning); default: a time named in the content (yesterday, last May), else now"`
	ValidFrom     *time.Time      `json:"valid_from,omitempty" jsonschema:"start of the span it happened in or was true, RFC 3339, a date (2026-11-20) or words (last Tuesday) (instead of occurred_at)"`
	ValidTo       *time.Time      `json:"valid_to,omitempty" jsonschema:"end of that span, RFC 3339, a date (2026-11-20) or words (last Tuesday)"`
	Entities      []string        `json:"entities,omitempty" jsonschema:"people or named things it is by or about, aliases included (e.g. [\"Ana\", \"Ana Silva\", \"my sister\"]): a recall naming one prefers it"`
}

type rememberOut struct {
	ID     string               `json:"id" jsonschema:"the stored memory's id, for forget"`
	Memory *Memory              `json:"memory" jsonschema:"the memory as stored"`
	Guard  memory.GuardDecision `json:"guard" jsonschema:"the Write Guard's decision: add, update, duplicate (nothing written, the existing memory returned), merge (replaced a near duplicate), conflict (kept beside a memory it contradicts)"`
	lwwOut
}

// lwwOut says whether a keyed write won last-write-wins.
type lwwOut struct {
	Applied         bool       `json:"applied" jsonschema:"false when a newer revision of the key was already stored: the write lost last-write-wins and memory is the revision that stands"`
	WinnerUpdatedAt *time.Time `json:"winner_updated_at,omitempty" jsonschema:"when applied is false, the time of the revision that stands"`
}

func lww(r memory.WriteResult) (lwwOut, string) {
	if r.Applied {
		return lwwOut{Applied: true}, ""
	}
	return lwwOut{WinnerUpdatedAt: r.WinnerUpdatedAt},
		" Not applied: a newer revision of the key, updated " + r.WinnerUpdatedAt.Format(time.RFC3339Nano) + ", stands."
}

type recallIn struct {
	Query        string   `json:"query" jsonschema:"what to look for: a question, a topic or keywords, in English or Chinese; a word ending in * matches as a prefix"`
	Limit        int      `json:"limit,omitempty" jsonschema:"how many memories to return: default 5, at most 20"`
	Tags         []string `json:"tags,omitempty" jsonschema:"only memories with any of these tags"`
	Types        []string `json:"types,omitempty" jsonschema:"only memories of these types, e.g. [\"preference\", \"fact\"]"`
	Explain      bool     `json:"explain,omitempty" jsonschema:"add each result's score components, to see why it ranked where it did"`
	Session      string   `json:"session,omitempty" jsonschema:"the conversation's session id: memories on its current topic rank higher"`
	TraverseHops int      `json:"traverse_hops,omitempty" jsonschema:"follow links from the memories found, up to this many (0 to 3, default 0): what they lead to is returned in linked, within limit"`
	// REC-25: restrict to what happened in a window.
	OccurredAfter  *time.Time `json:"occurred_after,omitempty" jsonschema:"only memories of what happened after this time, RFC 3339, a date (2026-11-20) or words (last Tuesday)"`
	OccurredBefore *time.Time `json:"occurred_before,omitempty" jsonschema:"only memories of what happened before this time, RFC 3339, a date (2026-11-20) or words (last Tuesday)"`
	// REC-27: what held at a past time.
	AsOf *time.Time `json:"as_of,omitempty" jsonschema:"answer with what held at this time, RFC 3339, a date (2026-11-20) or words (last Tuesday): values of a key since rewritten and memories since contradicted included; default now"`
	// API-17: no padding with what matches nothing.
	MinMatch string `json:"min_match,omitempty" jsonschema:"leave out what matches less: weak (the default) leaves out memories that match nothing asked, strong keeps only strong matches, none keeps the nearest whatever they are"`
}

// answerMatch is how well an answer matched (API-17), and whether its
// agent is unknown (API-18).
type answerMatch struct {
	Match        string  `json:"match" jsonschema:"how well the answer matched: strong (a memory answers the query), weak (one may), none (nothing relevant is known)"`
	MatchScore   float64 `json:"match_score" jsonschema:"the best memory's probability of answering the query, 0 to 1"`
	UnknownAgent bool    `json:"unknown_agent,omitempty" jsonschema:"the agent has no memories and never had any: check its name"`
	Hint         string  `json:"hint,omitempty"`
}

func matchOf(res memory.Result) answerMatch {
	return answerMatch{Match: res.Match, MatchScore: res.MatchScore, UnknownAgent: res.UnknownAgent, Hint: res.Hint}
}

type recallOut struct {
	Count    int      `json:"count"`
	Memories []Scored `json:"memories" jsonschema:"best first"`
	answerMatch
	Degraded bool         `json:"degraded,omitempty" jsonschema:"part of the search could not answer (the full-text index, or the embedder) and a rougher match was used"`
	Reason   string       `json:"reason,omitempty" jsonschema:"why the answer is degraded"`
	Terms    []string     `json:"terms,omitempty" jsonschema:"the analysed query, when explain was asked"`
	Linked   []linkedView `json:"linked,omitempty" jsonschema:"memories and events linked to those found, when traverse_hops was asked: after them, nearest first, each saying how it was reached"`
}

type surfaceIn struct {
	Keywords    []string `json:"keywords,omitempty" jsonschema:"words to look for; a memory matching any of them can surface"`
	Query       string   `json:"query,omitempty" jsonschema:"the same as keywords, as one string; give keywords, query or both"`
	Limit       int      `json:"limit,omitempty" jsonschema:"how many memories to return: default 5, at most 20"`
	Types       []string `json:"types,omitempty" jsonschema:"only memories of these types, e.g. [\"emotion\", \"knowledge\"]"`
	Tags        []string `json:"tags,omitempty" jsonschema:"only memories with any of these tags"`
	MinVitality *float64 `json:"min_vitality,omitempty" jsonschema:"only memories whose vitality is at least this, 0 to 1, default 0.1"`
	Explain     bool     `json:"explain,omitempty" jsonschema:"add each result's score components"`
	MinMatch    string   `json:"min_match,omitempty" jsonschema:"leave out what matches less: weak (the default) leaves out memories that match nothing asked, strong keeps only strong matches, none keeps the nearest whatever they are"`
}

type surfaceOut struct {
	Count   int      `json:"count"`
	Results []Scored `json:"results" jsonschema:"best first"`
	answerMatch
	Degraded bool   `json:"degraded,omitempty" jsonschema:"part of the search could not answer (the full-text index, or the embedder) and a rougher match was used"`
	Reason   string `json:"reason,omitempty" jsonschema:"why the answer is degraded"`
}

type recallPathIn struct {
	URI          string `json:"uri" jsonschema:"a key or key prefix: /user/preference lists every key under it, knowledge:// every key with that scheme, / every key"`
	Limit        int    `json:"limit,omitempty" jsonschema:"how many memories to return: default 50, at most 1000"`
	TraverseHops int    `json:"traverse_hops,omitempty" jsonschema:"follow links from the memories found, up to this many (0 to 3, default 0): what they lead to is returned in linked, within limit"`
}

type recallPathOut struct {
	Prefix   string       `json:"prefix" jsonschema:"the prefix, normalised"`
	Count    int          `json:"count" jsonschema:"memories returned"`
	Total    int          `json:"total" jsonschema:"memories under the prefix"`
	Memories []Memory     `json:"memories" jsonschema:"in key order"`
	Linked   []linkedView `json:"linked,omitempty" jsonschema:"memories and events linked to those under the prefix, when traverse_hops was asked: nearest first, each saying how it was reached"`
}

type forgetIn struct {
	ID   string `json:"id,omitempty" jsonschema:"id of the memory to delete, as returned by remember or recall"`
	Key  string `json:"key,omitempty" jsonschema:"key of the memory to delete; give id, key or both"`
	Hard *bool  `json:"hard,omitempty" jsonschema:"true (or omitted) deletes for good; false archives: hidden from recall, kept, restorable from the ledger"`
}

type forgetOut struct {
	Forgotten int `json:"forgotten" jsonschema:"how many memories were deleted"`
}

type statusIn struct{}

type statusOut struct {
	Version  string `json:"version" jsonschema:"mnemo's version"`
	TenantID string `json:"tenant_id"`
	AgentID  string `json:"agent_id"`
	mnemo.Stats
}

type setMemoryIn struct {
	Key         string          `json:"key" jsonschema:"the slot to write: a path starting with /, e.g. /user/calendar/2026-02-23_dentist or /kb/go/generics"`
	JSONContent json.RawMessage `json:"json_content" jsonschema:"any JSON value (an object is best, e.g. {\"when\": \"2026-02-23T10:00:00+08:00\", \"what\": \"dentist\"}) to store under key, replacing what was there; null deletes the key (a tombstone); {} is an empty object, not a deletion; an \"expired_at\" time in an object hides it after that time"`
	Source      json.RawMessage `json:"source" jsonschema:"where it came from: a string such as 'user said so in chat', or an object {kind: user|tool|web|file|system|agent, name, retrieved_at (RFC 3339), locator}; the object with all four fields is required for web, tool and file sources and for /kb/ keys"`
}

type setMemoryOut struct {
	Key       string  `json:"key" jsonschema:"the key, normalised"`
	Tombstone bool    `json:"tombstone" jsonschema:"true when the call deleted the key"`
	ID        string  `json:"id,omitempty" jsonschema:"the memory's id"`
	Memory    *Memory `json:"memory,omitempty" jsonschema:"the memory as stored"`
	lwwOut
}

type bootIn struct {
	Format string `json:"format,omitempty" jsonschema:"narrative (default): markdown by layer; json: the memories as a list"`
	Lang   string `json:"lang,omitempty" jsonschema:"language of the narrative's headings: en (default) or zh"`
}

type bootOut struct {
	// Memories are the layers in order: identity, emotion, knowledge, then
	// the last 7 days' events, each by vitality.
	Memories      []agentcontext.BootItem  `json:"memories"`
	EarlierEvents int                      `json:"earlier_events" jsonschema:"events older than 7 days, not listed"`
	Summary       agentcontext.BootSummary `json:"summary"`
	Narrative     string                   `json:"narrative,omitempty" jsonschema:"the markdown, unless format is json"`
}

type reflectIn struct {
	Phase  string `json:"phase,omitempty" jsonschema:"which part of the sleep cycle to run: decay, tidy, govern, retention, capacity, compact, purge, or all (default)"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"report what would change and change nothing"`
}

type reflectOut struct {
	Decayed     int                    `json:"decayed" jsonschema:"memories whose vitality moved"`
	Archived    []lifecycle.LifeAction `json:"archived" jsonschema:"memories archived, with the phase and the reason"`
	Purged      int                    `json:"purged" jsonschema:"memories erased, archived past the grace period"`
	OrphanLinks int                    `json:"orphan_links" jsonschema:"links removed by govern because an end is gone (would be, with dry_run)"`
	Before      lifecycle.LifeTotals   `json:"before"`
	After       lifecycle.LifeTotals   `json:"after"`
	Report      string                 `json:"report" jsonschema:"the markdown report"`
}

type ingestIn struct {
	Text   string `json:"text" jsonschema:"markdown to extract memories from, e.g. a daily note"`
	Source string `json:"source,omitempty" jsonschema:"where the text came from, e.g. memory/2026-02-23.md"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"return what would be extracted without writing it"`
}

// addTools adds every tool to srv.
func (s *Server) addTools(srv *mcpsdk.Server, scope scopeFunc) {
	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "remember",
		Title: "Remember",
		Description: "Store one memory for later conversations. Use it when you learn something worth keeping beyond this conversation: " +
			"a fact about the user, a preference, a decision, an event, a lesson. Give a key when the memory may change later " +
			"(remembering the same key replaces it). Returns the memory's id.",
		InputSchema: inputSchema[rememberIn](func(p props) {
			p.rng("priority", 0, 3)
			p.rng("importance", 0, 1)
			p.rng("confidence", 0, 1)
			p.rng("emotion_val", -1, 1)
			p.enum("security_level", mnemo.SecurityPublic, mnemo.SecurityInternal, mnemo.SecurityConfidential, mnemo.SecurityRestricted)
			p.anyOf("source", "string", "object")
		}),
		OutputSchema: outputSchema[rememberOut](),
		Annotations:  &mcpsdk.ToolAnnotations{OpenWorldHint: new(false)},
	}, s.remember)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "recall",
		Title: "Recall",
		Description: "Find the memories that best match a query, best first, and count them as used (which keeps them from fading). " +
			"Call it before answering anything that may depend on what you were told before: the user's preferences, past decisions, facts, events.",
		InputSchema: inputSchema[recallIn](func(p props) {
			p.rng("limit", 1, 20)
			p.rng("traverse_hops", 0, memory.MaxTraverseHops)
			p.enum("min_match", rank.MatchNone, rank.MatchWeak, rank.MatchStrong)
		}),
		OutputSchema: outputSchema[recallOut](),
		Annotations:  &mcpsdk.ToolAnnotations{OpenWorldHint: new(false)},
	}, s.recall)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "surface",
		Title: "Surface",
		Description: "Look for memories related to some keywords without any side effect: nothing is counted as used. " +
			"Use it to add background context quietly (e.g. from the words of the user's message); use recall when you are actively looking something up.",
		InputSchema: inputSchema[surfaceIn](func(p props) {
			p.rng("limit", 1, 20)
			p.rng("min_vitality", 0, 1)
			p.enum("min_match", rank.MatchNone, rank.MatchWeak, rank.MatchStrong)
		}),
		OutputSchema: outputSchema[surfaceOut](),
		Annotations:  &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.surface)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "recall_path",
		Title: "Recall by key",
		Description: "Read the memories whose key is, or starts with, a path or URI, in key order: the memory at /user/preference/editor, " +
			"or everything under /user/preference. Use it when you know where something is kept.",
		InputSchema: inputSchema[recallPathIn](func(p props) {
			p.rng("limit", 1, mnemo.MaxListLimit)
			p.rng("traverse_hops", 0, memory.MaxTraverseHops)
		}),
		OutputSchema: outputSchema[recallPathOut](),
		Annotations:  &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.recallPath)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "forget",
		Title: "Forget",
		Description: "Delete a memory for good, by id or by key. Use it when the user asks you to forget something, " +
			"or when a memory is wrong and should not be corrected in place.",
		InputSchema:  inputSchema[forgetIn](nil),
		OutputSchema: outputSchema[forgetOut](),
		Annotations:  &mcpsdk.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, s.forget)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:         "status",
		Title:        "Status",
		Description:  "Report how many memories this agent has (live, archived, keyed, tombstoned), their time span, whether search is degraded, and the server version.",
		InputSchema:  inputSchema[statusIn](nil),
		OutputSchema: outputSchema[statusOut](),
		Annotations:  &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.status)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "set_memory",
		Title: "Set memory",
		Description: "Write JSON under a key, replacing what the key held, or delete the key with json_content null. " +
			"Use it for structured state you will update: a calendar entry, a task, a preference record, a knowledge-base note. " +
			"Always say where the content came from in source.",
		InputSchema: inputSchema[setMemoryIn](func(p props) {
			p.pattern("key", "^/")
			p.anyOf("source", "string", "object")
		}),
		OutputSchema: outputSchema[setMemoryOut](),
		Annotations:  &mcpsdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, s.setMemory)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "boot",
		Title: "Boot",
		Description: "Load who this agent is and what it should know at the start of a session: identity, recent emotions, key knowledge " +
			"and the last 7 days' events, each by vitality, with a summary — as markdown to read (default) or, with format json, as a list. " +
			"Call it once when a session starts.",
		InputSchema: inputSchema[bootIn](func(p props) {
			p.enum("format", "narrative", "json")
			p.enum("lang", "en", "zh")
		}),
		OutputSchema: outputSchema[bootOut](),
		Annotations:  &mcpsdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.boot)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "reflect",
		Title: "Reflect",
		Description: "Run the memory's sleep cycle — decay (vitality by Ebbinghaus retention), tidy (archive faded memories), govern (archive empty ones), " +
			"retention, capacity, purge — and report what changed, memory by memory. Archived memories are kept and can be restored. " +
			"Call it at the end of a day or a long session; dry_run first to see the plan.",
		InputSchema: inputSchema[reflectIn](func(p props) {
			p.enum("phase", "decay", "tidy", "govern", "retention", "capacity", "compact", "purge", "all")
		}),
		OutputSchema: outputSchema[reflectOut](),
		Annotations:  &mcpsdk.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, s.reflect)

	add(s, srv, scope, &mcpsdk.Tool{
		Name:  "ingest",
		Title: "Ingest",
		Description: "Extract memories from markdown (a daily note, a journal) and store them: each bullet or paragraph becomes an identity, emotion, " +
			"knowledge or event memory by its heading and words (English and Chinese), keyed by source and heading, through the Write Guard. " +
			"Ingesting the same note again changes only what changed. dry_run previews.",
		InputSchema:  inputSchema[ingestIn](nil),
		OutputSchema: outputSchema[lifecycle.IngestResult](),
		Annotations:  &mcpsdk.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(false)},
	}, s.ingest)

	s.addInsightTools(srv, scope)
	s.addEventTools(srv, scope)
	s.addLinkTools(srv, scope)
}

func (s *Server) ingest(ctx context.Context, sc mnemo.Scope, in ingestIn) (lifecycle.IngestResult, string, error) {
	res, err := s.svc.Ingest(ctx, sc, lifecycle.IngestRequest{Text: in.Text, Source: in.Source, DryRun: in.DryRun})
	if err != nil {
		return lifecycle.IngestResult{}, "", err
	}
	verb := "wrote"
	if res.DryRun {
		verb = "would write"
	}
	text := fmt.Sprintf("Extracted %d, %s %d, skipped %d.", res.Extracted, verb, res.Written+countAction(res.Items, "would_write"), res.Skipped)
	return res, text, nil
}

func countAction(items []lifecycle.IngestItem, action string) int {
	n := 0
	for _, it := range items {
		if it.Action == action {
			n++
		}
	}
	return n
}

// A handler serves one tool call in scope. It returns the structured result
// and a short text rendering of it, or a domain error.
type handler[In, Out any] func(ctx context.Context, sc mnemo.Scope, in In) (Out, string, error)

// add adds tool t, served by h in the scope of each call.
func add[In, Out any](s *Server, srv *mcpsdk.Server, scope scopeFunc, t *mcpsdk.Tool, h handler[In, Out]) {
	s.argTypes.Store(t.Name, reflect.TypeFor[In]())
	mcpsdk.AddTool(srv, t, func(ctx context.Context, req *mcpsdk.CallToolRequest, in In) (*mcpsdk.CallToolResult, Out, error) {
		var zero Out
		sc, err := scope(req)
		if err != nil {
			return nil, zero, s.toolError(t.Name, err)
		}
		// This channel reaches a model: it reads confidential and
		// restricted memories masked (SEC-3), whatever else its context
		// allows, and the service masks every answer by it (SEC-8).
		ctx = security.WithClearance(ctx, security.ClearanceFrom(ctx).Stricter(security.Masked))
		// A panic in a tool is an internal error of that call: over stdio
		// it would otherwise end the process, and every session with it.
		var (
			out  Out
			text string
		)
		err = panics.Call(s.log, "mcp tool "+t.Name, func() (err error) {
			out, text, err = h(ctx, sc, in)
			return err
		})
		if err != nil {
			return nil, zero, s.toolError(t.Name, err)
		}
		return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: text}}}, out, nil
	})
}

// toolError returns err as the model may see it: a domain error as it is,
// anything else logged and reported as an internal error, without details.
func (s *Server) toolError(tool string, err error) error {
	if mnemo.ErrorCode(err) != mnemo.EINTERNAL {
		return err
	}
	s.log.Error("mcp tool failed", "tool", tool, "err", err)
	return mnemo.Errorf(mnemo.EINTERNAL, "internal error")
}

func (s *Server) remember(ctx context.Context, sc mnemo.Scope, in rememberIn) (rememberOut, string, error) {
	if strings.TrimSpace(in.Content) == "" {
		return rememberOut{}, "", mnemo.Errorf(mnemo.EINVALID, "content is empty")
	}
	key, err := oneKey(in.Key, in.URI)
	if err != nil {
		return rememberOut{}, "", err
	}
	src := in.Source
	if isNull(src) {
		src = json.RawMessage(`"manual"`) // MEM-13: what remember writes is marked manual
	}
	if err := mnemo.CheckProvenance(key, src, true); err != nil {
		return rememberOut{}, "", err
	}
	d := mnemo.Draft{
		Key: key, Content: &in.Content, Type: in.Type, Category: in.Category,
		Priority: in.Priority, Importance: in.Importance, Confidence: in.Confidence,
		Tags: in.Tags, SecurityLevel: in.SecurityLevel, Pinned: in.Pinned,
		Source: src, ExpiresAt: in.ExpiresAt,
		OccurredAt: in.OccurredAt, ValidFrom: in.ValidFrom, ValidTo: in.ValidTo, Entities: in.Entities,
	}
	if in.EmotionVal != nil {
		d.Data, _ = json.Marshal(map[string]float64{"emotion_val": *in.EmotionVal})
	}
	res, err := s.svc.Write(ctx, sc, []mnemo.Draft{d})
	if err != nil {
		return rememberOut{}, "", err
	}
	m, g := res[0].Memory, res[0].Guard
	v := view(&m)
	text := "Remembered " + m.ID
	if m.Key != "" {
		text += " at " + m.Key
	}
	switch g.Action {
	case memory.GuardDuplicate:
		text = "Already remembered as " + m.ID + ": nothing written"
	case memory.GuardMerge:
		text += ", replacing the near duplicate " + g.ExistingID
	case memory.GuardConflict:
		text += "; it contradicts " + strings.Join(g.ConflictsWith, ", ") + ", which now rank lower"
	}
	lw, note := lww(res[0])
	return rememberOut{ID: m.ID, Memory: &v, Guard: g, lwwOut: lw}, text + "." + note, nil
}

// oneKey returns the normalised key given as key or as uri (the
// agent-memory name), which must agree when both are given.
func oneKey(key, uri string) (string, error) {
	if key == "" && uri == "" {
		return "", nil
	}
	if key == "" {
		key = uri
	}
	k, err := mnemo.NormalizeKey(key)
	if err != nil {
		return "", err
	}
	if uri != "" {
		u, err := mnemo.NormalizeKey(uri)
		if err != nil {
			return "", err
		}
		if u != k {
			return "", mnemo.Errorf(mnemo.EINVALID, "key %q and uri %q differ: give one of them", key, uri)
		}
	}
	return k, nil
}

func (s *Server) recall(ctx context.Context, sc mnemo.Scope, in recallIn) (recallOut, string, error) {
	res, err := s.svc.Recall(ctx, sc, memory.Query{
		Text: in.Query, Limit: in.Limit, Explain: in.Explain, Session: in.Session,
		Filter:       mnemo.Filter{Tags: in.Tags, Types: in.Types, OccurredAfter: in.OccurredAfter, OccurredBefore: in.OccurredBefore, AsOf: in.AsOf},
		TraverseHops: in.TraverseHops, MinMatch: cmp.Or(in.MinMatch, rank.MatchWeak),
	})
	if err != nil {
		return recallOut{}, "", err
	}
	out := recallOut{
		Count: len(res.Results), Memories: scoredViews(res.Results), answerMatch: matchOf(res),
		Degraded: res.Degraded, Reason: res.Reason, Terms: res.Terms, Linked: linkedViews(res.Linked),
	}
	return out, scoredText(out.Memories, res) + linkedText(out.Linked), nil
}

func (s *Server) surface(ctx context.Context, sc mnemo.Scope, in surfaceIn) (surfaceOut, string, error) {
	text := strings.TrimSpace(in.Query + " " + strings.Join(in.Keywords, " "))
	if text == "" {
		return surfaceOut{}, "", mnemo.Errorf(mnemo.EINVALID, "give keywords or a query")
	}
	minVitality := 0.1 // REC-19
	if in.MinVitality != nil {
		minVitality = *in.MinVitality
	}
	// REC-19: surface ranks keyword hits by priority × vitality.
	res, err := s.svc.Surface(ctx, sc, memory.Query{
		Text: text, Limit: in.Limit, Explain: in.Explain, Profile: "seed003",
		Filter:   mnemo.Filter{Tags: in.Tags, Types: in.Types, MinVitality: minVitality},
		MinMatch: cmp.Or(in.MinMatch, rank.MatchWeak),
	})
	if err != nil {
		return surfaceOut{}, "", err
	}
	out := surfaceOut{Count: len(res.Results), Results: scoredViews(res.Results), answerMatch: matchOf(res), Degraded: res.Degraded, Reason: res.Reason}
	return out, scoredText(out.Results, res), nil
}

// scoredText is recall's and surface's answer for the model: the
// memories that match, each with its match and score; or, when nothing
// does, that no memory is relevant (API-17), rather than the nearest of
// what there is; or that the agent has no memories at all (API-18).
func scoredText(rs []Scored, res memory.Result) string {
	var text string
	switch {
	case len(rs) > 0:
		text = "Found " + plural(len(rs), "memory", "memories") + " (" + res.Match + " match), best first:\n" +
			list(len(rs), func(i int) string {
				return line(&rs[i].Memory, fmt.Sprintf("%s match, score %.3f", rs[i].Match, rs[i].Score))
			}, "")
	case res.UnknownAgent:
		text = "No memories: " + res.Hint + "."
	default:
		text = "No relevant memory found."
	}
	if res.Degraded {
		text = "Degraded search (" + res.Reason + ").\n" + text
	}
	return text
}

func (s *Server) recallPath(ctx context.Context, sc mnemo.Scope, in recallPathIn) (recallPathOut, string, error) {
	res, err := s.svc.RecallPathLinked(ctx, sc, in.URI, in.Limit, in.TraverseHops)
	if err != nil {
		return recallPathOut{}, "", err
	}
	ms, total, prefix := res.Memories, res.Total, res.Prefix
	out := recallPathOut{Prefix: prefix, Count: len(ms), Total: total, Memories: views(ms), Linked: linkedViews(res.Linked)}
	text := list(len(ms), func(i int) string { return line(&out.Memories[i]) }, "No memories under "+prefix+".")
	if len(ms) > 0 {
		text = fmt.Sprintf("%s under %s (%d in all), by key:\n%s", plural(len(ms), "memory", "memories"), prefix, total, text)
	}
	return out, text + linkedText(out.Linked), nil
}

func (s *Server) forget(ctx context.Context, sc mnemo.Scope, in forgetIn) (forgetOut, string, error) {
	var ids, keys []string
	if in.ID != "" {
		ids = []string{in.ID}
	}
	if in.Key != "" {
		keys = []string{in.Key}
	}
	if in.Hard != nil && !*in.Hard {
		if len(ids)+len(keys) == 0 {
			return forgetOut{}, "", mnemo.Errorf(mnemo.EINVALID, "give an id or a key to forget")
		}
		res, err := s.svc.SoftForget(ctx, sc, ids, keys, "mcp")
		if err != nil {
			return forgetOut{}, "", err
		}
		if len(res.Archived) == 0 {
			return forgetOut{}, "", mnemo.Errorf(mnemo.ENOTFOUND, "no active memory with that id or key")
		}
		return forgetOut{Forgotten: len(res.Archived)}, fmt.Sprintf("Archived %s: hidden from recall, restorable (ledger entry %d).",
			plural(len(res.Archived), "memory", "memories"), res.LedgerSeq), nil
	}
	n, err := s.svc.Forget(ctx, sc, ids, keys)
	if err != nil {
		return forgetOut{}, "", err
	}
	if n == 0 {
		what := "id " + in.ID
		if in.ID == "" {
			what = "key " + in.Key
		} else if in.Key != "" {
			what += " or key " + in.Key
		}
		return forgetOut{}, "", mnemo.Errorf(mnemo.ENOTFOUND, "no memory with %s", what)
	}
	return forgetOut{Forgotten: n}, "Forgot " + plural(n, "memory", "memories") + ".", nil
}

func (s *Server) reflect(ctx context.Context, sc mnemo.Scope, in reflectIn) (reflectOut, string, error) {
	o := lifecycle.ReflectOptions{DryRun: in.DryRun, Actor: "mcp"}
	if in.Phase != "" && in.Phase != "all" {
		o.Phases = []string{in.Phase}
	}
	rep, err := s.svc.Reflect(ctx, sc, o)
	if err != nil {
		return reflectOut{}, "", err
	}
	return reflectOut{Decayed: len(rep.Decayed), Archived: rep.Archived, Purged: len(rep.Purged), OrphanLinks: len(rep.OrphanLinks), Before: rep.Before, After: rep.After, Report: rep.Text}, rep.Text, nil
}

func (s *Server) boot(ctx context.Context, sc mnemo.Scope, in bootIn) (bootOut, string, error) {
	b, err := s.svc.Boot(ctx, sc, agentcontext.BootQuery{Format: in.Format, Lang: in.Lang})
	if err != nil {
		return bootOut{}, "", err
	}
	out := bootOut{Memories: slices.Concat(b.Identity, b.Emotion, b.Knowledge, b.Events), EarlierEvents: b.EarlierEvents,
		Summary: b.Summary, Narrative: b.Text}
	if in.Format == agentcontext.BootJSON {
		text, err := json.Marshal(out)
		return out, string(text), err
	}
	return out, b.Text, nil
}

func (s *Server) status(ctx context.Context, sc mnemo.Scope, _ statusIn) (statusOut, string, error) {
	st, err := s.svc.Stats(ctx, sc)
	if err != nil {
		return statusOut{}, "", err
	}
	out := statusOut{Version: s.version, TenantID: sc.TenantID, AgentID: sc.AgentID, Stats: st}
	text := fmt.Sprintf("mnemo %s, agent %s (tenant %s): %s (%d archived), %d keys, %d tombstones, %d sessions",
		s.version, sc.AgentID, sc.TenantID, plural(st.Memories, "memory", "memories"), st.Archived, st.Keys, st.Tombstones, st.Sessions)
	if st.Oldest != nil && st.Newest != nil {
		text += fmt.Sprintf(", from %s to %s", st.Oldest.Format(time.RFC3339), st.Newest.Format(time.RFC3339))
	}
	if v := st.Vectors; v != nil {
		text += fmt.Sprintf("; embedder %s, %d embedded, %d waiting for a vector", v.Model, v.Embedded, v.Pending)
	}
	if st.Degraded {
		text += "; search is degraded"
	}
	return out, text + ".", nil
}

func (s *Server) setMemory(ctx context.Context, sc mnemo.Scope, in setMemoryIn) (setMemoryOut, string, error) {
	if !strings.HasPrefix(in.Key, "/") {
		return setMemoryOut{}, "", mnemo.Errorf(mnemo.EINVALID, "key must be a path starting with '/', got %q", in.Key)
	}
	key, err := mnemo.NormalizeKey(in.Key)
	if err != nil {
		return setMemoryOut{}, "", err
	}
	var tags []string
	if err := mnemo.CheckProvenance(key, in.Source, true); err != nil {
		// Quarantined when the server routes such writes (limits.untrusted),
		// refused with the missing fields named otherwise.
		ns := s.svc.Limits().Untrusted
		if ns == "" {
			return setMemoryOut{}, "", err
		}
		if key, err = mnemo.UntrustedKey(ns, key); err != nil {
			return setMemoryOut{}, "", err
		}
		tags = []string{"untrusted"}
	}
	data := in.JSONContent
	if isNull(data) {
		data = nil // FS-3: null, and only null, is a tombstone
	}
	res, err := s.svc.Write(ctx, sc, []mnemo.Draft{{Key: key, Data: data, Source: in.Source, Tags: tags}})
	if err != nil {
		return setMemoryOut{}, "", err
	}
	m := res[0].Memory
	lw, note := lww(res[0])
	if data == nil {
		return setMemoryOut{Key: key, Tombstone: true, lwwOut: lw}, "Deleted " + key + ": it no longer appears in reads." + note, nil
	}
	v := view(&m)
	return setMemoryOut{Key: key, ID: m.ID, Memory: &v, lwwOut: lw}, "Set " + key + " (id " + m.ID + ")." + note, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// props are the properties of an object schema, to refine with what struct
// tags cannot say: ranges, enums, patterns.
type props map[string]*jsonschema.Schema

func (p props) rng(name string, lo, hi float64) { p[name].Minimum, p[name].Maximum = &lo, &hi }
func (p props) pattern(name, re string)         { p[name].Pattern = re }
func (p props) anyOf(name string, types ...string) {
	s := &jsonschema.Schema{Description: p[name].Description}
	for _, t := range types {
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
	}
	p[name] = s
}
func (p props) enum(name string, vals ...string) {
	for _, v := range vals {
		p[name].Enum = append(p[name].Enum, v)
	}
}

// schemaFor returns the JSON schema of T, from its fields and their
// jsonschema tags. Free JSON (json.RawMessage) may be any value.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
		// A time as people type it (TIME-2): a string, read when the
		// memory is built.
		reflect.TypeFor[mnemo.When](): {Type: "string"},
	}})
	if err != nil {
		panic(err) // T is one of ours: this is a bug
	}
	return s
}

// inputSchema returns T's schema, refined by refine.
func inputSchema[T any](refine func(props)) *jsonschema.Schema {
	s := schemaFor[T]()
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	// An optional parameter is left out, not sent as null, and a single
	// type is what every client's schema dialect understands (some map
	// tool schemas onto OpenAPI, which has no type arrays).
	for _, p := range s.Properties {
		if i := slices.Index(p.Types, "null"); i >= 0 && len(p.Types) == 2 {
			p.Type, p.Types = p.Types[1-i], nil
		}
	}
	if refine != nil {
		refine(props(s.Properties))
	}
	portable(s)
	return s
}

// outputSchema returns T's schema as a tool result carries it: a failed call
// carries "error" alone, so no property is required.
func outputSchema[T any]() *jsonschema.Schema {
	s := schemaFor[T]()
	portable(s) // before Required goes: it tells which slices may be null
	s.Required = nil
	e := schemaFor[ToolError]()
	portable(e)
	e.Description = "set, alone, when the call failed"
	s.Properties["error"] = e
	s.PropertyOrder = append(s.PropertyOrder, "error")
	return s
}
