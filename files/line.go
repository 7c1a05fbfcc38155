package files

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
)

// Line ops: what a log line (or a state line) of a Store does.
const (
	opWrite   = "write"   // one record of Store.Write, or Store.Replace's
	opForget  = "forget"  // Store.Forget, with every id and key it deleted
	opClear   = "clear"   // Store.Clear
	opTouch   = "touch"   // accesses
	opLife    = "life"    // ApplyLife
	opLedger  = "ledger"  // AppendLedger
	opState   = "state"   // PutState
	opUnstate = "unstate" // DeleteState
	opSpace   = "space"   // SetVectorSpace
	opVectors = "vectors" // SetVectors
	// contexts: WriteContexts's index contexts (and embed texts), alone or
	// as the last line of a batch of its write lines
	opContexts = "contexts"

	// state.jsonl only
	opHeader = "header"
	opRow    = "row"
	opRev    = "rev"
	opDoc    = "doc"
)

// reservedPrefix starts the keys of lines that are not a key's write. A
// key under /@mnemo is still a key an agent may write: lines are told
// apart by their mnemo.op, never by their key.
const reservedPrefix = "/@mnemo/"

// memoriesDir is where memories without a key have their index files:
// "@" is percent-encoded in every path KeyPath makes, so no key lands there.
const memoriesDir = "@memories"

// scopesDir holds the index of every scope but the home one.
const scopesDir = "@scopes"

// ext is the mnemo field of a line: what the envelope (FS-8) cannot hold.
type ext struct {
	Op     string    `json:"op"`
	Batch  string    `json:"batch,omitempty"` // the append the line is part of
	N      int       `json:"n,omitempty"`     // lines of the batch, when more than one
	Tenant string    `json:"tenant,omitempty"`
	Agent  string    `json:"agent,omitempty"`
	At     time.Time `json:"at"` // when the operation was made

	// write and row: the memory without what the envelope holds (source;
	// data when it is the content) and without its vector (Vector).
	Memory        *mnemo.Memory `json:"memory,omitempty"`
	DataIsContent bool          `json:"data_is_content,omitempty"`
	Tombstone     bool          `json:"tombstone,omitempty"`
	// Replace marks a write of Store.Replace: the keyless memory of its
	// id changed in place (mnemo.Store.Replace).
	Replace  bool             `json:"replace,omitempty"`
	Index    *mnemo.IndexText `json:"index,omitempty"`
	Embed    string           `json:"embed,omitempty"`
	Vector   string           `json:"vector,omitempty"` // base64 of little-endian float32s
	Redacted bool             `json:"redacted,omitempty"`
	// row
	Vectored bool  `json:"vectored,omitempty"`
	Seq      int64 `json:"seq,omitempty"`
	Arrival  int64 `json:"arrival,omitempty"`

	// contexts
	Contexts []mnemo.ContextUpdate `json:"contexts,omitempty"`

	// forget (ids and keys of every row deleted), touch (ids)
	IDs  []string `json:"ids,omitempty"`
	Keys []string `json:"keys,omitempty"`

	Changes []mnemo.LifeChange  `json:"changes,omitempty"`
	Entries []mnemo.LedgerEntry `json:"entries,omitempty"`

	Doc     *mnemo.StateDoc `json:"doc,omitempty"`
	Kind    string          `json:"kind,omitempty"`
	DocID   string          `json:"doc_id,omitempty"`
	Version int64           `json:"version,omitempty"`

	Space   *mnemo.VectorSpace `json:"space,omitempty"`
	Reset   bool               `json:"reset,omitempty"`
	Jobs    []mnemo.EmbedJob   `json:"jobs,omitempty"`
	Vectors []string           `json:"vectors,omitempty"`

	// rev; Life when its memory is its row's but for these
	Rev  *mnemo.Revision `json:"rev,omitempty"`
	Life *life           `json:"life,omitempty"`
	// header
	Cover  *cover        `json:"cover,omitempty"`
	Seqs   *[3]int64     `json:"seqs,omitempty"` // history, row, ledger
	Scopes []mnemo.Scope `json:"scopes,omitempty"`
}

// cover says how much of the log a state holds: the log up to Offset,
// whose last line is Line (its identity, which survives redaction).
type cover struct {
	Offset int64  `json:"offset"`
	Line   string `json:"line"`
}

// line is a log or state line as a Store reads it.
type line struct {
	Key     string          `json:"key"`
	TS      time.Time       `json:"ts"`
	Valid   bool            `json:"valid"`
	Source  json.RawMessage `json:"source,omitempty"`
	Content json.RawMessage `json:"content"`
	Mnemo   *ext            `json:"mnemo,omitempty"`
}

// identity names a line for a state's cover: its batch, or for a line
// another writer appended, its key and time.
func (l *line) identity() string {
	if l.Mnemo != nil && l.Mnemo.Batch != "" {
		return l.Mnemo.Batch
	}
	return l.Key + "\x00" + l.TS.Format(time.RFC3339Nano)
}

func (l *line) scope() mnemo.Scope {
	return mnemo.Scope{TenantID: l.Mnemo.Tenant, AgentID: l.Mnemo.Agent}
}

// envelopeKey is the key a memory's lines show: its own, or for a memory
// without one /@memories/<id>.
func envelopeKey(m *mnemo.Memory) string {
	if m.Key != "" {
		return m.Key
	}
	return "/" + memoriesDir + "/" + m.ID
}

// memoryLine returns the line of a memory: the envelope (FS-8) with the
// memory's content as json_content (its data, or an object of its text and
// the fields the default read uses), and the rest of the memory in mnemo.
func memoryLine(m mnemo.Memory, tomb bool, x *ext) line {
	l := line{Key: envelopeKey(&m), TS: m.UpdatedAt.UTC(), Valid: !tomb, Source: m.Source, Content: json.RawMessage("null")}
	if !tomb {
		l.Content = ContentOf(&m)
	}
	if len(m.Embedding) > 0 {
		x.Vector = encodeVector(m.Embedding)
	}
	m.Source, m.Embedding = nil, nil
	if len(m.Data) > 0 && bytes.Equal(m.Data, l.Content) {
		m.Data, x.DataIsContent = nil, true
	}
	x.Memory, x.Tombstone = &m, tomb
	l.Mnemo = x
	return l
}

// memoryOf is the memory of a write or row line.
func (l *line) memoryOf() (mnemo.Memory, error) {
	x := l.Mnemo
	m := *x.Memory
	m.Source = l.Source
	if x.DataIsContent {
		m.Data = l.Content
	}
	if x.Vector != "" {
		v, err := decodeVector(x.Vector)
		if err != nil {
			return m, err
		}
		m.Embedding = v
	}
	m.TenantID, m.AgentID = x.Tenant, x.Agent
	return m, nil
}

// ContentOf is a memory's content in a Store's envelopes (set_memory's
// json_content, FS-1): its data as it was given, or for a memory of text alone an
// object of its text and the fields the default read uses (see EnvelopeOf).
func ContentOf(m *mnemo.Memory) json.RawMessage {
	if len(m.Data) > 0 {
		return m.Data
	}
	return EnvelopeOf(m).Content
}

// metaLine is a line of an operation on no one key.
func metaLine(x *ext) line {
	return line{Key: reservedPrefix + x.Op, TS: x.At, Content: json.RawMessage("null"), Source: json.RawMessage(`"mnemo"`), Mnemo: x}
}

func encodeVector(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func decodeVector(s string) ([]float32, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		return nil, fmt.Errorf("files: a vector that is not float32s: %v", err)
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// redact returns l without anything of the memory it wrote but its
// identity, key and times: what a forgotten memory leaves in the log.
func redact(l line) line {
	if l.Mnemo == nil {
		return line{Key: l.Key, TS: l.TS, Content: json.RawMessage("null")}
	}
	x := *l.Mnemo
	if x.Memory != nil {
		m := x.Memory
		x.Memory = &mnemo.Memory{ID: m.ID, Key: m.Key, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, Type: m.Type}
	}
	x.DataIsContent, x.Index, x.Embed, x.Vector, x.Redacted = false, nil, "", "", true
	return line{Key: l.Key, TS: l.TS, Content: json.RawMessage("null"), Mnemo: &x}
}

// plainRecord turns a line another writer appended (the bare envelope,
// FS-8) into a record of the home scope: content is the memory's data,
// its text the content's summary or text (or the content itself), and its
// type, tags and importance those of the content when it has them. Its id
// is derived from the line, so that every process folds it alike.
func plainRecord(l *line, raw []byte, home mnemo.Scope, an *analysis.Analyzer) (mnemo.Record, error) {
	key, err := mnemo.NormalizeKey(l.Key)
	if err != nil {
		return mnemo.Record{}, err
	}
	ts := l.TS.UTC()
	m := mnemo.Memory{
		ID:       plainID(raw),
		TenantID: home.TenantID, AgentID: home.AgentID, Key: key,
		Type: mnemo.TypeKnowledge, Priority: 2, Importance: 0.5, Confidence: 1,
		SecurityLevel: mnemo.SecurityInternal, Vitality: 1, Stability: mnemo.StabilityDays(2),
		Version: mnemo.FormatVersion, Tags: []string{},
		Source: l.Source, CreatedAt: ts, UpdatedAt: ts,
	}
	c := bytes.TrimSpace(l.Content)
	if !l.Valid || len(c) == 0 || string(c) == "null" {
		return mnemo.Record{Memory: m, Tombstone: true}, nil
	}
	m.Data = json.RawMessage(c)
	var obj struct {
		Type       string   `json:"type"`
		Summary    string   `json:"summary"`
		Text       string   `json:"text"`
		Tags       []string `json:"tags"`
		Importance *float64 `json:"importance"`
	}
	if c[0] == '{' && json.Unmarshal(c, &obj) == nil {
		if w := strings.ToLower(strings.TrimSpace(obj.Type)); w != "" && len(w) <= 32 {
			m.Type = w
		}
		m.Summary = obj.Summary
		m.Content = obj.Text
		if m.Content == "" {
			m.Content = obj.Summary
		}
		for _, t := range obj.Tags {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
				m.Tags = append(m.Tags, t)
			}
		}
		if obj.Importance != nil {
			imp := *obj.Importance
			if imp > 1 {
				imp /= 10 // importance over 1 is out of 10
			}
			m.Importance = max(0, min(1, imp))
		}
	}
	if m.Content == "" {
		var s string
		if json.Unmarshal(c, &s) == nil {
			m.Content = s
		} else {
			m.Content = string(c)
		}
	}
	meta := strings.Join(append(strings.FieldsFunc(key, func(r rune) bool { return r == '/' || r == ':' }), m.Tags...), " ")
	idx := mnemo.IndexText{Text: an.IndexString(m.Content + "\n" + m.Summary), Meta: an.IndexString(meta)}
	return mnemo.Record{Memory: m, Index: idx}, nil
}

// plainID is the id of the memory a line of another writer makes: derived
// from the line, so that every process folds it alike.
func plainID(raw []byte) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, bytes.TrimSpace(raw)).String()
}
