package http_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
)

// The records that are not memories carry a security level too (SEC-11,
// SEC-12), and a masking key reads them masked: sessions, runs, events and
// what is built from them.

// The secrets the tests plant: a card number (restricted) and an e-mail
// address (confidential), and what of each must never reach a masking key.
const (
	cardText  = "Remember that my card number is 4111 1111 1111 1111"
	cardLeak  = "4111"
	emailText = "write to dana.okafor@example.com about the audit"
	emailLeak = "dana.okafor"
)

// levelServer is a server with an owner key (every scope) and a masking
// key of the same tenant that may read and write.
func levelServer(t *testing.T) *testServer {
	t.Helper()
	viewer := apiKey("viewer", "t", nil, mhttp.ScopeRead, mhttp.ScopeWrite)
	viewer.Mask = true
	return start(t, mhttp.Options{Keys: []mhttp.APIKey{apiKey("owner", "t", nil, allScopes...), viewer}}, nil)
}

// read is a read as the owner and as the masking key: the owner's answer
// must hold whole, the masking key's none of leak and a mask marker.
type read struct {
	method, path string
	body         any
	whole, leak  string
}

func (rd read) check(t *testing.T, ts *testServer) {
	t.Helper()
	st, raw := callAs(t, secret("owner"), rd.method, ts.URL+rd.path, rd.body, nil)
	if st >= 300 || !strings.Contains(string(raw), rd.whole) {
		t.Errorf("%s %s as the owner: %d %s; want %q whole", rd.method, rd.path, st, raw, rd.whole)
	}
	st, raw = callAs(t, secret("viewer"), rd.method, ts.URL+rd.path, rd.body, nil)
	if st >= 300 || strings.Contains(string(raw), rd.leak) || !strings.Contains(string(raw), "******") {
		t.Errorf("%s %s as the masking key: %d %s; want %q masked", rd.method, rd.path, st, raw, rd.leak)
	}
}

// TestMaskedSessions: a card number said in a session makes its working
// memory restricted, and a masking key reads its facts, topic and
// variables masked wherever the session comes back; the owner reads them.
func TestMaskedSessions(t *testing.T) {
	ts := levelServer(t)
	var wm struct {
		Facts         []string `json:"facts"`
		SecurityLevel string   `json:"security_level"`
	}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/sessions/s1/turns", map[string]any{"agent_id": "a", "text": cardText}, &wm); st != 200 {
		t.Fatalf("turn: %d %s", st, raw)
	}
	if wm.SecurityLevel != mnemo.SecurityRestricted || len(wm.Facts) != 1 || !strings.Contains(wm.Facts[0], "4111 1111 1111 1111") {
		t.Fatalf("after the turn: %+v; want the fact kept, restricted", wm)
	}
	for _, rd := range []read{
		{"GET", "/v1/sessions/s1?agent_id=a", nil, "4111 1111 1111 1111", cardLeak},
		{"GET", "/memory/working/s1?agent_id=a", nil, "4111 1111 1111 1111", cardLeak},
		{"GET", "/v1/sessions?agent_id=a", nil, "4111 1111 1111 1111", cardLeak},
		{"POST", "/v1/sessions/s1/turns", map[string]any{"agent_id": "a", "text": "and what else?"}, "4111 1111 1111 1111", cardLeak},
	} {
		rd.check(t, ts)
	}
	// Ending it answers with the working memory too.
	st, raw := callAs(t, secret("viewer"), "DELETE", ts.URL+"/v1/sessions/s1?agent_id=a", nil, nil)
	if st != 200 || strings.Contains(string(raw), cardLeak) || !strings.Contains(string(raw), "[RESTRICTED]") {
		t.Errorf("end as the masking key: %d %s; want the facts masked", st, raw)
	}
}

// TestMaskedRuns: what a run records is classified part by part, and a
// masking key reads the secret parts masked, the others whole, also once
// the round holding a secret is compacted to a sentence.
func TestMaskedRuns(t *testing.T) {
	ts := levelServer(t)
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/runs", map[string]any{"agent_id": "a", "run_id": "r1",
		"trigger": map[string]any{"type": "message"}, "focus": "the quarterly audit", "token_limit": 400}, nil); st != 201 {
		t.Fatalf("open: %d %s", st, raw)
	}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/runs/r1/calls", map[string]any{"agent_id": "a",
		"name": "lookup_contact", "input": map[string]any{"who": "the auditor"}, "output": "the auditor is " + emailText}, nil); st != 200 {
		t.Fatalf("call: %d %s", st, raw)
	}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/runs/r1/responses", map[string]any{"agent_id": "a", "text": "I found the auditor."}, nil); st != 200 {
		t.Fatalf("response: %d %s", st, raw)
	}
	var run struct {
		SecurityLevel string `json:"security_level"`
		Focus         string `json:"focus"`
		Rounds        []struct {
			SecurityLevel string `json:"security_level"`
		} `json:"rounds"`
	}
	if st, raw := callAs(t, secret("owner"), "GET", ts.URL+"/v1/runs/r1?agent_id=a", nil, &run); st != 200 || run.SecurityLevel != mnemo.SecurityConfidential ||
		len(run.Rounds) != 1 || run.Rounds[0].SecurityLevel != mnemo.SecurityConfidential {
		t.Fatalf("the run as the owner: %d %s; want it and its round confidential", st, raw)
	}
	rd := read{"GET", "/v1/runs/r1?agent_id=a", nil, emailLeak, emailLeak}
	rd.check(t, ts)
	if st, raw := callAs(t, secret("viewer"), "GET", ts.URL+"/v1/runs/r1?agent_id=a", nil, &run); st != 200 || run.Focus != "the quarterly audit" {
		t.Errorf("the run as the masking key: %d %s; want the internal focus whole", st, raw)
	}
	// Enough rounds to compact the secret one into a sentence.
	for i := range 8 {
		if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/runs/r1/calls", map[string]any{"agent_id": "a",
			"name": "step", "output": strings.Repeat(fmt.Sprintf("step %d went fine. ", i), 8)}, nil); st != 200 {
			t.Fatalf("call %d: %d %s", i, st, raw)
		}
	}
	var compacted struct {
		Earlier []struct {
			N             int    `json:"n"`
			Summary       string `json:"summary"`
			SecurityLevel string `json:"security_level"`
		} `json:"earlier"`
	}
	if st, raw := callAs(t, secret("owner"), "GET", ts.URL+"/v1/runs/r1?agent_id=a", nil, &compacted); st != 200 || len(compacted.Earlier) == 0 ||
		compacted.Earlier[0].N != 1 || compacted.Earlier[0].SecurityLevel != mnemo.SecurityConfidential {
		t.Fatalf("after compaction: %d %s; want round 1's sentence confidential", st, raw)
	}
	for _, rd := range []read{
		{"GET", "/v1/runs/r1?agent_id=a", nil, "lookup_contact", "auditor is"},
		{"DELETE", "/v1/runs/r1?agent_id=a", nil, "", "auditor is"},
	} {
		if rd.method == "DELETE" {
			st, raw := callAs(t, secret("viewer"), rd.method, ts.URL+rd.path, nil, nil)
			if st != 200 || strings.Contains(string(raw), rd.leak) || strings.Contains(string(raw), emailLeak) {
				t.Errorf("close as the masking key: %d %s", st, raw)
			}
			continue
		}
		rd.check(t, ts)
	}
}

// TestMaskedEvents: an event is classified on append, and its data reaches
// a masking key masked by every way out of the event layers: a query, a
// get, the stream and a search (an export, whole, it may not make); what is built from it (a summary, a capability) is at its level.
func TestMaskedEvents(t *testing.T) {
	ts := levelServer(t)
	at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	// Decoded into local types: the test compiles, and fails, before levels.
	var evs struct {
		Events []struct {
			ID            string `json:"id"`
			SecurityLevel string `json:"security_level"`
		} `json:"events"`
	}
	vec := []float32{1, 0, 0}
	body := map[string]any{"agent_id": "a", "events": []any{
		map[string]any{"id": "card", "type": "DeployCompleted", "ts": at, "data": map[string]any{"text": cardText, "description": "paid with " + cardText},
			"vectors": []any{map[string]any{"modality": "text", "model": "m", "vector": vec, "input": cardText}}},
		map[string]any{"id": "plain", "type": "DeployCompleted", "ts": at.Add(time.Minute), "data": map[string]any{"text": "deployed the api"}},
		map[string]any{"id": "plain2", "type": "DeployCompleted", "ts": at.Add(2 * time.Minute), "data": map[string]any{"text": "deployed the web"}},
	}}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/events/batch", body, &evs); st != 201 || len(evs.Events) != 3 {
		t.Fatalf("append: %d %s", st, raw)
	}
	for i, want := range []string{mnemo.SecurityRestricted, mnemo.SecurityInternal, mnemo.SecurityInternal} {
		if evs.Events[i].SecurityLevel != want {
			t.Errorf("event %s: level %q, want %q", evs.Events[i].ID, evs.Events[i].SecurityLevel, want)
		}
	}
	for _, rd := range []read{
		{"GET", "/v1/events?agent_id=a", nil, "4111 1111 1111 1111", cardLeak},
		{"GET", "/v1/events/card?agent_id=a", nil, "4111 1111 1111 1111", cardLeak},
		{"POST", "/v1/events/search", map[string]any{"agent_id": "a", "vector": vec, "model": "m"}, "4111 1111 1111 1111", cardLeak},
		{"POST", "/v1/events/capabilities/extract", map[string]any{"agent_id": "a"}, "4111 1111 1111 1111", cardLeak},
		{"GET", "/v1/events/capabilities?agent_id=a", nil, "4111 1111 1111 1111", cardLeak},
		{"GET", "/v1/events/capabilities?agent_id=a&text=deploy", nil, "4111 1111 1111 1111", cardLeak},
	} {
		rd.check(t, ts)
	}
	// An export is whole: the owner's holds the card, the masking key may
	// not export (SEC-8).
	for _, format := range []string{"json", "csv"} {
		if st, raw := callAs(t, secret("owner"), "GET", ts.URL+"/v1/events/export?agent_id=a&format="+format, nil, nil); st != 200 || !strings.Contains(string(raw), "4111 1111 1111 1111") {
			t.Errorf("export %s as the owner: %d %s", format, st, raw)
		}
		if st, raw := callAs(t, secret("viewer"), "GET", ts.URL+"/v1/events/export?agent_id=a&format="+format, nil, nil); st != 403 || strings.Contains(string(raw), cardLeak) {
			t.Errorf("export %s as the masking key: %d %s; want 403", format, st, raw)
		}
	}
	// The stream, as each key reads it.
	stream := func(key string) string {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/events/stream?agent_id=a", nil)
		req.Header.Set("Authorization", "Bearer "+secret(key))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		for _, m := range readSSE(t, resp.Body) {
			b.WriteString(m.data + "\n")
		}
		return b.String()
	}
	if got := stream("owner"); !strings.Contains(got, "4111 1111 1111 1111") {
		t.Errorf("the stream as the owner: %s", got)
	}
	if got := stream("viewer"); strings.Contains(got, cardLeak) || !strings.Contains(got, "[RESTRICTED]") || !strings.Contains(got, "deployed the api") {
		t.Errorf("the stream as the masking key: %s; want the card masked, the rest whole", got)
	}
	// A level its writer gives is kept; one that is none is refused.
	var given struct {
		SecurityLevel string `json:"security_level"`
	}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/events", map[string]any{"agent_id": "a", "id": "given", "type": "note",
		"ts": at.Add(3 * time.Minute), "data": map[string]any{"text": "nothing to see"}, "security_level": "confidential"}, &given); st != 201 || given.SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("an event given confidential: %d %s", st, raw)
	}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/events", map[string]any{"agent_id": "a", "type": "note", "security_level": "secret"}, nil); st != 400 {
		t.Errorf("an unknown level: %d %s; want 400", st, raw)
	}
	// A summary of the day is at its most secret event's level.
	var sum struct {
		SecurityLevel string   `json:"security_level"`
		Trends        []string `json:"trends"`
	}
	if st, raw := callAs(t, secret("viewer"), "POST", ts.URL+"/v1/events/summaries", map[string]any{"agent_id": "a", "period": "week", "at": at}, &sum); st != 200 ||
		sum.SecurityLevel != mnemo.SecurityRestricted || len(sum.Trends) == 0 || !strings.HasPrefix(sum.Trends[0], "[RESTRICTED]") {
		t.Errorf("the week's summary as the masking key: %d %s; want it restricted, its trends masked", st, raw)
	}
	var caps struct {
		Capabilities []struct {
			SecurityLevel string `json:"security_level"`
		} `json:"capabilities"`
	}
	if st, raw := callAs(t, secret("owner"), "GET", ts.URL+"/v1/events/capabilities?agent_id=a", nil, &caps); st != 200 || len(caps.Capabilities) != 1 ||
		caps.Capabilities[0].SecurityLevel != mnemo.SecurityRestricted {
		t.Errorf("the capability: %d %s; want one, restricted", st, raw)
	}
}

// TestMaskedProfile: the user profile is at the level of the most secret
// interaction it was built from (SEC-11), and a masking key reads what it
// holds of the user's words masked.
func TestMaskedProfile(t *testing.T) {
	ts := levelServer(t)
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/profile/interactions", map[string]any{"agent_id": "a",
		"text": "I love jazz, and my card number is 4111 1111 1111 1111"}, nil); st != 200 {
		t.Fatalf("interaction: %d %s", st, raw)
	}
	var rec struct {
		SecurityLevel string `json:"security_level"`
	}
	if st, raw := callAs(t, secret("owner"), "GET", ts.URL+"/v1/profile?agent_id=a", nil, &rec); st != 200 || rec.SecurityLevel != mnemo.SecurityRestricted {
		t.Fatalf("the profile: %d %s; want it restricted", st, raw)
	}
	for _, rd := range []read{
		{"GET", "/v1/profile?agent_id=a", nil, "jazz", "jazz"},
		{"POST", "/v1/profile/interactions", map[string]any{"agent_id": "a", "text": "hello again"}, "jazz", "jazz"},
	} {
		rd.check(t, ts)
	}
}

// TestCompactionKeepsLevel: reflect's compaction merges 55 memories of a
// tag, one of them confidential by its writer's word, into one summary
// memory that is
// confidential too (SEC-12), so that a masking key reads it masked in
// every read of memories.
func TestCompactionKeepsLevel(t *testing.T) {
	ts := levelServer(t)
	const word = "heron"
	var drafts []any
	for i := range 55 {
		d := map[string]any{"content": fmt.Sprintf("Ops %d: backup done.", i), "tags": []string{"ops"}}
		if i == 7 { // confidential by its writer's word: nothing in its text says so
			d["content"], d["security_level"] = "Ops 7: the on-call vault word is "+word+".", "confidential"
		}
		drafts = append(drafts, d)
	}
	if st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/memories/batch", map[string]any{"agent_id": "a", "memories": drafts}, nil); st != 201 {
		t.Fatalf("write: %d %s", st, raw)
	}
	var rep struct {
		Compacted []struct {
			SummaryID     string `json:"summary_id"`
			SecurityLevel string `json:"security_level"`
		}
		SecurityLevel string `json:"security_level"`
	}
	st, raw := callAs(t, secret("owner"), "POST", ts.URL+"/v1/reflect", map[string]any{"agent_id": "a", "phases": []string{"compact"}}, &rep)
	if st != 200 || len(rep.Compacted) != 1 {
		t.Fatalf("reflect: %d %s; want one compaction", st, raw)
	}
	if rep.Compacted[0].SecurityLevel != mnemo.SecurityConfidential || rep.SecurityLevel != mnemo.SecurityConfidential {
		t.Errorf("reflect: %s; want the compaction and the report confidential", raw)
	}
	var m mnemo.Memory
	if st, raw := callAs(t, secret("owner"), "GET", ts.URL+"/v1/memories/"+rep.Compacted[0].SummaryID+"?agent_id=a", nil, &m); st != 200 ||
		m.SecurityLevel != mnemo.SecurityConfidential || !strings.Contains(m.Content, word) {
		t.Errorf("the summary memory: %d %s; want it confidential, holding the word", st, raw)
	}
	for _, rd := range []read{
		{"GET", "/v1/memories/" + m.ID + "?agent_id=a", nil, word, word},
		{"GET", "/v1/memories?agent_id=a&tags=compacted", nil, word, word},
		{"POST", "/v1/recall", map[string]any{"agent_id": "a", "query": "on-call vault word"}, word, word},
		{"POST", "/v1/surface", map[string]any{"agent_id": "a", "query": "on-call vault word"}, word, word},
		{"GET", "/v1/recall/path?agent_id=a&prefix=/compacted", nil, word, word},
		{"GET", "/v1/boot?agent_id=a", nil, word, word},
	} {
		rd.check(t, ts)
	}
	// The body of the answers is JSON all along.
	if st, raw := callAs(t, secret("viewer"), "GET", ts.URL+"/v1/recall/path?agent_id=a&prefix=/compacted", nil, nil); st != 200 || !json.Valid(raw) {
		t.Errorf("recall/path: %d %s", st, raw)
	}
}
