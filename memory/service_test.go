package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func fptr(f float64) *float64 { return &f }

var other = mnemo.Scope{TenantID: "t2", AgentID: "alice"}

func TestRememberDefaultsAndFields(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	exp := c.T.Add(48 * time.Hour)
	m, err := svc.Remember(ctx, alice, mnemo.Draft{
		Key: "//user/preference//style/", Content: str("  Prefers concise answers  "), Summary: "concise",
		Type: "Preference", Category: "preference", Priority: new(int), Importance: fptr(0.9), Confidence: fptr(0.95),
		Tags: []string{"Style", "style", " writing "}, SecurityLevel: "confidential", Pinned: true,
		Source: json.RawMessage(`{"kind":"user","name":"chat"}`), ExpiresAt: &exp,
		Data: json.RawMessage(`{ "tone": "concise" }`), SessionID: "s1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID == "" || m.Key != "/user/preference/style" || m.Content != "Prefers concise answers" ||
		m.Type != "preference" || m.Priority != 0 || m.Importance != 0.9 || m.Confidence != 0.95 ||
		strings.Join(m.Tags, ",") != "style,writing" || m.SecurityLevel != "confidential" || !m.Pinned ||
		string(m.Data) != `{"tone":"concise"}` || m.SessionID != "s1" || m.Version != mnemo.FormatVersion ||
		m.Vitality != 1 || m.Stability != 0 || !m.CreatedAt.Equal(c.T) || m.ExpiresAt == nil {
		t.Fatalf("stored memory = %+v", m)
	}
	got, err := svc.Get(ctx, alice, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Fatalf("Get differs from Remember:\n%s\n%s", a, b)
	}

	d, err := svc.Remember(ctx, alice, draft("plain"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Type != "knowledge" || d.Priority != 2 || d.Importance != 0.5 || d.Confidence != 1 || d.SecurityLevel != "internal" || d.Stability != 90 {
		t.Fatalf("defaults = %+v", d)
	}
}

func TestRememberRejects(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	tags := make([]string, 33)
	for i := range tags {
		tags[i] = string(rune('a'+i%26)) + strings.Repeat("x", i)
	}
	big := json.RawMessage(`"` + strings.Repeat("x", 64<<10) + `"`)
	tests := []struct {
		name  string
		scope mnemo.Scope
		d     mnemo.Draft
		code  string
	}{
		{"no agent", mnemo.Scope{TenantID: "t"}, draft("x"), mnemo.EINVALID},
		{"no tenant", mnemo.Scope{AgentID: "a"}, draft("x"), mnemo.EINVALID},
		{"agent with space", mnemo.Scope{TenantID: "t", AgentID: "a b"}, draft("x"), mnemo.EINVALID},
		{"empty", alice, mnemo.Draft{}, mnemo.EINVALID},
		{"blank content", alice, draft("   "), mnemo.EINVALID},
		{"content too long", alice, draft(strings.Repeat("字", 2001)), mnemo.ETOOLARGE},
		{"too many tags", alice, draft("x", tags...), mnemo.ETOOLARGE},
		{"empty tag", alice, draft("x", ""), mnemo.EINVALID},
		{"data too large", alice, mnemo.Draft{Data: big}, mnemo.ETOOLARGE},
		{"bad data", alice, mnemo.Draft{Content: str("x"), Data: json.RawMessage(`{`)}, mnemo.EINVALID},
		{"bad priority", alice, mnemo.Draft{Content: str("x"), Priority: func() *int { p := 4; return &p }()}, mnemo.EINVALID},
		{"bad confidence", alice, mnemo.Draft{Content: str("x"), Confidence: fptr(1.5)}, mnemo.EINVALID},
		{"bad security", alice, mnemo.Draft{Content: str("x"), SecurityLevel: "secret"}, mnemo.EINVALID},
		{"bad type", alice, mnemo.Draft{Content: str("x"), Type: "no spaces"}, mnemo.EINVALID},
		{"bad key", alice, mnemo.Draft{Content: str("x"), Key: "../etc/passwd"}, mnemo.EINVALID},
		{"kb key without source", alice, mnemo.Draft{Content: str("x"), Key: "/kb/go/generics"}, mnemo.EINVALID},
		{"kb key with string source", alice, mnemo.Draft{Content: str("x"), Key: "/kb/go/generics", Source: json.RawMessage(`"a blog"`)}, mnemo.EINVALID},
		{"web source without locator", alice, mnemo.Draft{Content: str("x"), Source: json.RawMessage(`{"kind":"web","name":"site","retrieved_at":"2026-02-22T10:00:00Z"}`)}, mnemo.EINVALID},
		{"source with unknown kind", alice, mnemo.Draft{Content: str("x"), Source: json.RawMessage(`{"kind":"rumour"}`)}, mnemo.EINVALID},
		{"source array", alice, mnemo.Draft{Content: str("x"), Source: json.RawMessage(`[1]`)}, mnemo.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Remember(ctx, tt.scope, tt.d)
			if got := mnemo.ErrorCode(err); got != tt.code {
				t.Fatalf("error %v, want code %s", err, tt.code)
			}
		})
	}
	// Nothing was stored by any of them.
	if _, total, _ := svc.List(ctx, alice, mnemo.ListQuery{}); total != 0 {
		t.Fatalf("%d memories stored by rejected writes", total)
	}
}

func TestContentLimitIsConfigurable(t *testing.T) {
	c := newClock()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := service.New(db, service.Options{Limits: mnemo.Limits{MaxContentChars: 10, MaxTags: 1}})
	if _, err := svc.Remember(context.Background(), alice, draft("12345678901")); mnemo.ErrorCode(err) != mnemo.ETOOLARGE {
		t.Fatalf("11 chars over a limit of 10: %v", err)
	}
	if _, err := svc.Remember(context.Background(), alice, draft("1234567890", "a", "b")); mnemo.ErrorCode(err) != mnemo.ETOOLARGE {
		t.Fatalf("2 tags over a limit of 1: %v", err)
	}
}

// TestBatchBuiltInOrder: a batch's memories are built side by side, yet
// its error names the first invalid draft, as one by one, and its ids
// follow the drafts' order.
func TestBatchBuiltInOrder(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	bad := mnemo.Draft{Content: str("bad"), Confidence: fptr(-1)}
	tests := []struct {
		name string
		at   []int // the invalid drafts of 40
		want string
	}{
		{"first", []int{0}, "memories[0]"},
		{"several", []int{31, 7, 19}, "memories[7]"},
		{"last", []int{39}, "memories[39]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			drafts := make([]mnemo.Draft, 40)
			for i := range drafts {
				drafts[i] = draft(fmt.Sprintf("memory number %d of the batch", i))
			}
			for _, i := range tt.at {
				drafts[i] = bad
			}
			_, err := svc.RememberBatch(ctx, alice, drafts)
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), tt.want+":") {
				t.Fatalf("batch error %v, want invalid_input naming %s", err, tt.want)
			}
		})
	}
	drafts := make([]mnemo.Draft, 40)
	for i := range drafts {
		drafts[i] = draft(fmt.Sprintf("memory number %d of the batch", i))
	}
	ms, err := svc.RememberBatch(ctx, alice, drafts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ms {
		if i > 0 && ms[i].ID <= ms[i-1].ID {
			t.Fatalf("id %d %s is not after id %d %s", i, ms[i].ID, i-1, ms[i-1].ID)
		}
		if want := fmt.Sprintf("memory number %d of the batch", i); ms[i].Content != want {
			t.Fatalf("memory %d is %q, want %q", i, ms[i].Content, want)
		}
	}
}

func TestBatchIsAtomic(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	_, err := svc.RememberBatch(ctx, alice, []mnemo.Draft{draft("one"), {Content: str("two"), Confidence: fptr(-1)}})
	if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "memories[1]") {
		t.Fatalf("batch error %v, want invalid_input naming memories[1]", err)
	}
	if _, total, _ := svc.List(ctx, alice, mnemo.ListQuery{}); total != 0 {
		t.Fatalf("a failed batch stored %d memories", total)
	}
	ms, err := svc.RememberBatch(ctx, alice, []mnemo.Draft{draft("one"), draft("two")})
	if err != nil || len(ms) != 2 || ms[0].ID == ms[1].ID {
		t.Fatalf("batch = %v, %v", ms, err)
	}
}

func TestUpsertTombstoneHistory(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	first, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/city", Content: str("lives in Paris")})
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)
	second, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/city", Content: str("lives in Berlin")})
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != first.ID || second.Content != "lives in Berlin" {
		t.Fatalf("upsert = %+v", second)
	}
	// An older write arriving late loses.
	late, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/city", Content: str("lives in Rome"), UpdatedAt: tptr(c.T.Add(-time.Hour))})
	if err != nil || late.Content != "lives in Berlin" {
		t.Fatalf("late write = %+v, %v", late, err)
	}
	// {} is content, not a tombstone (FS-17).
	if m, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/empty", Data: json.RawMessage(`{}`)}); err != nil || m.Content != "{}" {
		t.Fatalf("{} = %+v, %v", m, err)
	}
	c.Advance(time.Minute)
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/city", Data: json.RawMessage(`null`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.GetByKey(ctx, alice, "/user/city"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("tombstoned key still readable: %v", err)
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "Berlin"})
	if err != nil || len(res.Results) != 0 {
		t.Fatalf("tombstoned key recalled: %+v %v", res, err)
	}
	revs, err := svc.History(ctx, alice, "/user/city")
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, r := range revs {
		op := r.Op
		if !r.Applied {
			op += "(lost)"
		}
		ops = append(ops, op)
	}
	if got := strings.Join(ops, ","); got != "put,put,put(lost),tombstone" {
		t.Fatalf("history = %s", got)
	}
}

func TestScopeIsolation(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	m, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/secret", Content: str("alice's launch code is 1234")})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []mnemo.Scope{bob, other} {
		if _, err := svc.Get(ctx, sc, m.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Errorf("%v reads alice's memory: %v", sc, err)
		}
		if _, err := svc.GetByKey(ctx, sc, "/secret"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Errorf("%v reads alice's key: %v", sc, err)
		}
		if res, _ := svc.Recall(ctx, sc, memory.Query{Text: "launch code"}); len(res.Results) != 0 {
			t.Errorf("%v recalls alice's memory", sc)
		}
		if _, total, _ := svc.List(ctx, sc, mnemo.ListQuery{}); total != 0 {
			t.Errorf("%v lists alice's memory", sc)
		}
		if n, _ := svc.Forget(ctx, sc, []string{m.ID}, []string{"/secret"}); n != 0 {
			t.Errorf("%v forgot alice's memory", sc)
		}
		if n, _ := svc.Clear(ctx, sc); n != 0 {
			t.Errorf("%v cleared alice's memory", sc)
		}
	}
	if _, err := svc.Get(ctx, alice, m.ID); err != nil {
		t.Fatalf("alice lost her memory: %v", err)
	}
}

func TestRecallScoringAndAccess(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	old, _ := svc.Remember(ctx, alice, draft("the rebound after a sharp drop lasts two hours", "trading"))
	c.Advance(30 * 24 * time.Hour)
	recent, _ := svc.Remember(ctx, alice, draft("a sharp drop is followed by a rebound", "trading"))
	svc.Remember(ctx, alice, draft("user likes green tea"))

	res, err := svc.Recall(ctx, alice, memory.Query{Text: "rebound after a drop", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].ID != recent.ID || res.Results[1].ID != old.ID {
		t.Fatalf("want recent before old (time decay), got %+v", res.Results)
	}
	ex := res.Results[0].Explain
	if ex == nil || ex.Profile != "hybrid" || len(ex.Components) != 4 || len(res.Terms) == 0 || ex.Vector != "none" {
		t.Fatalf("explain = %+v, terms %v", ex, res.Terms)
	}
	// REC-14's weighted formula is a profile away: five weighted components.
	res, err = svc.Surface(ctx, alice, memory.Query{Text: "rebound after a drop", Explain: true, Profile: "seed001"})
	if err != nil {
		t.Fatal(err)
	}
	if ex := res.Results[0].Explain; ex.Profile != "seed001" || len(ex.Components) != 5 {
		t.Fatalf("seed001 explain = %+v", ex)
	}
	got, _ := svc.Get(ctx, alice, recent.ID)
	if got.AccessCount != 1 || !got.AccessedAt.Equal(c.T) {
		t.Fatalf("recall did not record access: %+v", got)
	}
	// Surface has no side effect.
	if _, err := svc.Surface(ctx, alice, memory.Query{Text: "rebound"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.Get(ctx, alice, recent.ID); got.AccessCount != 1 {
		t.Fatalf("surface recorded access: %d", got.AccessCount)
	}
	// Filters.
	if res, _ := svc.Recall(ctx, alice, memory.Query{Text: "rebound", Filter: mnemo.Filter{Tags: []string{"nope"}}}); len(res.Results) != 0 {
		t.Fatalf("tag filter ignored: %+v", res.Results)
	}
	// Prefix match.
	if res, _ := svc.Surface(ctx, alice, memory.Query{Text: "rebou*"}); len(res.Results) != 2 {
		t.Fatalf("prefix search found %d", len(res.Results))
	}
	// Limits.
	if _, err := svc.Recall(ctx, alice, memory.Query{Text: "x", Limit: 21}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("limit 21: %v", err)
	}
	if _, err := svc.Recall(ctx, alice, memory.Query{Text: "  "}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("empty query: %v", err)
	}
	if res, err := svc.Recall(ctx, alice, memory.Query{Text: "zebra"}); err != nil || len(res.Results) != 0 {
		t.Fatalf("no match = %+v, %v", res, err)
	}
}

func TestCategoryBoostAndChinese(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	fact, _ := svc.Remember(ctx, alice, mnemo.Draft{Content: str("Python 代码 项目 使用 Django"), Category: "fact"})
	pref, _ := svc.Remember(ctx, alice, mnemo.Draft{Content: str("喜欢 Python 代码"), Category: "preference"})
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "我喜欢用 Python 写代码", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].ID != pref.ID || res.Results[1].ID != fact.ID {
		t.Fatalf("want the preference first, got %+v", res.Results)
	}
	for _, term := range []string{"喜欢", "python", "代码"} {
		if !strings.Contains(strings.Join(res.Terms, " "), term) {
			t.Fatalf("query terms %v lack %q", res.Terms, term)
		}
	}
}

func TestExpiryAndArchive(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	svc.Remember(ctx, alice, mnemo.Draft{Content: str("dentist appointment tomorrow"), ExpiresAt: tptr(c.T.Add(time.Hour))})
	svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/calendar/dentist", Data: json.RawMessage(`{"what":"dentist visit","expired_at":"2026-03-01T13:00:00Z"}`)})
	svc.Remember(ctx, alice, mnemo.Draft{Content: str("dentist archived note"), Archived: true})
	if res, _ := svc.Surface(ctx, alice, memory.Query{Text: "dentist"}); len(res.Results) != 2 {
		t.Fatalf("before expiry: %d results", len(res.Results))
	}
	if res, _ := svc.Surface(ctx, alice, memory.Query{Text: "dentist", Now: c.T.Add(2 * time.Hour)}); len(res.Results) != 0 {
		t.Fatalf("after expiry: %+v", res.Results)
	}
	if res, _ := svc.Surface(ctx, alice, memory.Query{Text: "dentist", Filter: mnemo.Filter{IncludeArchived: true}}); len(res.Results) != 3 {
		t.Fatalf("with archived: %d results", len(res.Results))
	}
}

func TestMessagesUseContext(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	at := c.T
	ms, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{
		{Key: "/turn/1", Role: "user", Name: "Caroline", Content: "I went to the support group yesterday", CreatedAt: &at},
		{Key: "/turn/2", Role: "assistant", Name: "Melanie", Content: "That sounds really powerful!", CreatedAt: &at},
	})
	if err != nil || len(ms) != 2 {
		t.Fatalf("AddMessages = %v, %v", ms, err)
	}
	if ms[0].Type != mnemo.TypeEvent || ms[0].SessionID != "s1" || string(ms[0].Data) != `{"role":"user","name":"Caroline","turn":1}` {
		t.Fatalf("message memory = %+v", ms[0])
	}
	// The speaker's name is indexed with the text.
	res, _ := svc.Surface(ctx, alice, memory.Query{Text: "Caroline"})
	if len(res.Results) == 0 || res.Results[0].ID != ms[0].ID {
		t.Fatalf("speaker search = %+v", res.Results)
	}
	// The reply is found by what it replied to, ranked below the turn itself.
	res, _ = svc.Surface(ctx, alice, memory.Query{Text: "support group", Limit: 5})
	if len(res.Results) != 2 || res.Results[0].ID != ms[0].ID || res.Results[1].ID != ms[1].ID {
		t.Fatalf("context search = %+v", res.Results)
	}
	// A later call links its first message to the session's last one.
	later := at.Add(time.Minute)
	ms2, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{{Key: "/turn/3", Role: "user", Name: "Caroline", Content: "Thanks, it was", CreatedAt: &later}})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = svc.Surface(ctx, alice, memory.Query{Text: "powerful"})
	if len(res.Results) != 3 || res.Results[0].ID != ms[1].ID || !slices.ContainsFunc(res.Results, func(r memory.Scored) bool { return r.ID == ms2[0].ID }) {
		t.Fatalf("cross-call context = %+v", res.Results)
	}
	if _, err := svc.AddMessages(ctx, alice, "", []memory.Message{{Role: "user", Content: "x"}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("no session: %v", err)
	}
	if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{{Role: "", Content: "x"}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("no role: %v", err)
	}
}

func TestForgetClearRecallPath(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, newClock())
	a, _ := svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/a", Content: str("apple")})
	svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/b", Content: str("banana")})
	svc.Remember(ctx, alice, mnemo.Draft{Key: "/notes/c", Content: str("cherry")})
	svc.Remember(ctx, alice, mnemo.Draft{Key: "/username", Content: str("not under /user")})
	svc.Remember(ctx, bob, mnemo.Draft{Key: "/user/a", Content: str("bob a")})
	ms, total, err := svc.RecallPath(ctx, alice, "/user", 10)
	if err != nil || total != 2 || ms[0].Key != "/user/a" || ms[1].Key != "/user/b" {
		t.Fatalf("RecallPath = %v %d %v", ms, total, err)
	}
	if n, err := svc.Forget(ctx, alice, []string{a.ID}, []string{"/user/b"}); err != nil || n != 2 {
		t.Fatalf("Forget = %d, %v", n, err)
	}
	if ms, total, _ := svc.RecallPath(ctx, alice, "/", 10); total != 2 || ms[0].Key != "/notes/c" {
		t.Fatalf("RecallPath(/) = %v", ms)
	}
	if n, err := svc.Clear(ctx, alice); err != nil || n != 2 {
		t.Fatalf("Clear = %d, %v", n, err)
	}
	if _, total, _ := svc.List(ctx, bob, mnemo.ListQuery{}); total != 1 {
		t.Fatal("clear of alice touched bob")
	}
}

// SEC-6: a memory written without a level is classified by what
// it contains; a level the writer gives is kept.
func TestSecurityClassification(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	tests := []struct {
		draft mnemo.Draft
		want  string
	}{
		{draft("Prefers tea in the afternoon"), mnemo.SecurityInternal},
		{draft("Her e-mail is mei.lin@example.com"), mnemo.SecurityConfidential},
		{draft("The staging password: Tr0ub4dor&3"), mnemo.SecurityRestricted},
		{mnemo.Draft{Content: str("Billing contact"), Data: json.RawMessage(`{"card":"4111 1111 1111 1111"}`)}, mnemo.SecurityRestricted},
		{mnemo.Draft{Content: str("Public support address: help@example.com"), SecurityLevel: mnemo.SecurityPublic}, mnemo.SecurityPublic},
	}
	for _, tt := range tests {
		m, err := svc.Remember(ctx, alice, tt.draft)
		if err != nil {
			t.Fatal(err)
		}
		if m.SecurityLevel != tt.want {
			t.Errorf("%q: level %s, want %s", m.Content, m.SecurityLevel, tt.want)
		}
	}
	// Conversation turns are classified too.
	ms, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{{Role: "user", Content: "my number is +44 20 7946 0958"}})
	if err != nil || ms[0].SecurityLevel != mnemo.SecurityConfidential {
		t.Fatalf("message: %+v, %v", ms, err)
	}
}

// TestWriteLostLastWriteWins checks that a keyed write older than the
// stored revision says it was not applied, with the winner's time, alone
// and in a batch, with the Write Guard on and off.
func TestWriteLostLastWriteWins(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	for _, off := range []bool{false, true} {
		db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		svc := service.New(db, service.Options{Now: c.Now, Guard: memory.GuardOptions{Off: off}})
		res, err := svc.Write(ctx, alice, []mnemo.Draft{{Key: "/city", Content: str("lives in Berlin")}})
		if err != nil || !res[0].Applied || res[0].WinnerUpdatedAt != nil {
			t.Fatalf("guard off=%v: first write = %+v, %v; want applied", off, res, err)
		}
		winner := res[0].UpdatedAt
		res, err = svc.Write(ctx, alice, []mnemo.Draft{
			{Key: "/city", Content: str("lives in Rome"), UpdatedAt: tptr(winner.Add(-time.Hour))},
			{Key: "/other", Content: str("likes green tea")},
		})
		if err != nil {
			t.Fatal(err)
		}
		if lost := res[0]; lost.Applied || lost.WinnerUpdatedAt == nil || !lost.WinnerUpdatedAt.Equal(winner) || lost.Content != "lives in Berlin" {
			t.Errorf("guard off=%v: stale write = applied %v winner %v %q, want not applied, winner %v %q",
				off, lost.Applied, lost.WinnerUpdatedAt, lost.Content, winner, "lives in Berlin")
		}
		if !res[1].Applied {
			t.Errorf("guard off=%v: the batch's other write = %+v, want applied", off, res[1])
		}
	}
}

// TestChatContextByTurns: in a chat sent a sentence a message, a reply is
// found by what its turn answered, three messages up, whether the session
// came in one call or a message a call (REC-33).
func TestChatContextByTurns(t *testing.T) {
	c := newClock()
	svc := newService(t, c)
	chat := []memory.Message{
		{Key: "/m/1", Role: "user", Name: "Caroline", Content: "Guess what happened yesterday!"},
		{Key: "/m/2", Role: "user", Name: "Caroline", Content: "I finally adopted a dog from the shelter."},
		{Key: "/m/3", Role: "user", Name: "Melanie", Content: "No way!"},
		{Key: "/m/4", Role: "user", Name: "Melanie", Content: "So happy for you."},
		{Key: "/m/5", Role: "user", Name: "Melanie", Content: "What breed?"},
		{Key: "/m/6", Role: "user", Name: "Caroline", Content: "A beagle."},
		{Key: "/m/7", Role: "user", Name: "Caroline", Content: "She's called Daisy."},
		{Key: "/m/8", Role: "user", Name: "Melanie", Content: "Cute name!"},
		{Key: "/m/9", Role: "user", Name: "Melanie", Content: "Send me a picture sometime."},
	}
	feedBothWays(t, svc, c, chat)
	breedAmongFirstThree(t, svc, alice, bob)
}

// feedBothWays stores chat, a second apart, as session s1 of alice in one
// call and of bob a message a call.
func feedBothWays(t *testing.T, svc *service.Mnemo, c *clock, chat []memory.Message) {
	t.Helper()
	feedBothWaysTo(t, svc, c, chat, alice, bob)
}

// feedBothWaysTo feeds chat, a message a second from c's time, to session
// s1 of one in one call and of each a message a call.
func feedBothWaysTo(t *testing.T, svc *service.Mnemo, c *clock, chat []memory.Message, one, each mnemo.Scope) {
	t.Helper()
	stamp(c, chat)
	if _, err := svc.AddMessages(context.Background(), one, "s1", chat); err != nil {
		t.Fatal(err)
	}
	for _, m := range chat {
		if _, err := svc.AddMessages(context.Background(), each, "s1", []memory.Message{m}); err != nil {
			t.Fatal(err)
		}
	}
}

// stamp dates chat's messages a second apart from c's time.
func stamp(c *clock, chat []memory.Message) {
	for i := range chat {
		at := c.T.Add(time.Duration(i) * time.Second)
		chat[i].CreatedAt = &at
	}
}

// breedAmongFirstThree checks that each scope, fed the chat of
// TestChatContextByTurns, finds its answer (/m/6, "A beagle.") among the
// first three.
func breedAmongFirstThree(t *testing.T, svc *service.Mnemo, scopes ...mnemo.Scope) {
	t.Helper()
	for _, scope := range scopes {
		res, err := svc.Surface(context.Background(), scope, memory.Query{Text: "which dog breed did Caroline adopt from the shelter", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, r := range res.Results {
			keys = append(keys, r.Key)
		}
		if !slices.Contains(keys, "/m/6") {
			t.Errorf("%s: the answer /m/6 is not among the first three: %v", scope.AgentID, keys)
		}
	}
}

// TestSessionPriorExplained: a conversation's turns are scored toward
// their session's best (REC-34), and an explanation's factors still
// multiply to the result's relevance, the session prior among them.
func TestSessionPriorExplained(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	for _, s := range []struct {
		id   string
		msgs []string
	}{
		{"s1", []string{"We planted tomatoes in the garden", "The garden needs more sun", "Dinner was pasta"}},
		{"s2", []string{"My sister visited the garden centre", "We bought a new lamp"}},
	} {
		var msgs []memory.Message
		for i, text := range s.msgs {
			msgs = append(msgs, memory.Message{Role: "user", Name: []string{"Ann", "Bo"}[i%2], Content: text})
		}
		if _, err := svc.AddMessages(ctx, alice, s.id, msgs); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "tomatoes in the garden", Explain: true, Limit: 5})
	if err != nil || len(res.Results) < 2 {
		t.Fatalf("Surface = %+v, %v", res.Results, err)
	}
	prior := 0
	for _, r := range res.Results {
		product := 1.0
		for _, comp := range r.Explain.Components {
			product *= comp.Value
			if comp.Name == "session_prior" {
				prior++
			}
		}
		if math.Abs(product-r.Relevance) > 1e-9 {
			t.Errorf("%q: factors %+v multiply to %v, relevance %v", r.Content, r.Explain.Components, product, r.Relevance)
		}
	}
	if prior == 0 {
		t.Errorf("no result explains a session prior: %+v", res.Results)
	}
}

// TestNamesFromText: a chat whose speakers are written into its text
// ("Caroline: …") and sent with no name is stored said by them (REC-35),
// and read by turns as a chat with names is: sent in one call or a
// message a call, where the first message, alone and of a speaker the
// agent does not know yet, names no one.
func TestNamesFromText(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	chat := []memory.Message{
		{Key: "/m/1", Role: "user", Content: "Caroline: Guess what happened yesterday!"},
		{Key: "/m/2", Role: "user", Content: "Caroline: I finally adopted a dog from the shelter."},
		{Key: "/m/3", Role: "user", Content: "Melanie: No way!"},
		{Key: "/m/4", Role: "user", Content: "Melanie: So happy for you."},
		{Key: "/m/5", Role: "user", Content: "Melanie: What breed?"},
		{Key: "/m/6", Role: "user", Content: "Caroline: A beagle."},
		{Key: "/m/7", Role: "user", Content: "Caroline: She's called Daisy."},
		{Key: "/m/8", Role: "user", Content: "Melanie: Cute name!"},
		{Key: "/m/9", Role: "user", Content: "Melanie: Send me a picture sometime."},
	}
	for i := range chat {
		at := c.T.Add(time.Duration(i) * time.Second)
		chat[i].CreatedAt = &at
	}
	stored, err := svc.AddMessages(ctx, alice, "s1", chat)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range chat {
		ms, err := svc.AddMessages(ctx, bob, "s1", []memory.Message{m})
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, ms...)
	}
	for i, m := range stored {
		want := strings.Split(m.Content, ":")[0]
		if i == len(chat) {
			want = "" // bob's first message came alone
		}
		var data struct{ Name string }
		if err := json.Unmarshal(m.Data, &data); err != nil || data.Name != want {
			t.Errorf("%s %s: data %s, want the name %q", m.AgentID, m.Key, m.Data, want)
		}
		if m.Content != chat[i%len(chat)].Content {
			t.Errorf("%s %s: content %q, want it as sent", m.AgentID, m.Key, m.Content)
		}
	}
	// A session's first message, alone, is said by a speaker the agent
	// knows; a label it does not know names no one.
	for _, tt := range []struct{ session, content, want string }{
		{"s2", "Melanie: Morning!", "Melanie"},
		{"s3", "Meeting: at noon", ""},
	} {
		ms, err := svc.AddMessages(ctx, bob, tt.session, []memory.Message{{Role: "user", Content: tt.content}})
		if err != nil {
			t.Fatal(err)
		}
		var data struct{ Name string }
		if err := json.Unmarshal(ms[0].Data, &data); err != nil || data.Name != tt.want {
			t.Errorf("%s %q alone: data %s, want the name %q", tt.session, tt.content, ms[0].Data, tt.want)
		}
	}
	breedAmongFirstThree(t, svc, alice, bob)
}

// TestRepliesReachEarlierMessages: a message sent on its own is found by
// the replies that follow it, as in a session sent in one call (REC-36),
// and only by those within its context's reach.
func TestRepliesReachEarlierMessages(t *testing.T) {
	c := newClock()
	svc := newService(t, c)
	chat := []memory.Message{
		{Key: "/m/1", Role: "user", Name: "Caroline", Content: "Did you do anything fun last weekend?"},
		{Key: "/m/2", Role: "assistant", Name: "Melanie", Content: "We hiked up to the glacier lake with the kids."},
		{Key: "/m/3", Role: "user", Name: "Caroline", Content: "That sounds lovely."},
		{Key: "/m/4", Role: "assistant", Name: "Melanie", Content: "It was cold though."},
		{Key: "/m/5", Role: "user", Name: "Caroline", Content: "I bought a canoe yesterday."},
	}
	feedBothWays(t, svc, c, chat)
	keys := func(scope mnemo.Scope, q string) []string {
		t.Helper()
		return lexicalFind(t, svc, scope, q, func(r memory.Scored) string { return r.Key })
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		// The question is found by the answer two turns on.
		{"glacier lake", []string{"/m/1", "/m/2", "/m/3", "/m/4"}},
		// A turn three on is beyond the first message's context.
		{"canoe", []string{"/m/3", "/m/4", "/m/5"}},
	} {
		if got := keys(alice, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("%q, one call: %v, want %v", tt.query, got, tt.want)
		}
		if got := keys(bob, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("%q, a message a call: %v, want %v", tt.query, got, tt.want)
		}
	}
}
