package http_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/service"
)

// TestImportCounts imports an agent's export line of a keyless memory with
// new content and a later updated_at (API-22): the memory changes in
// place, and the answer counts one update; imported again, one skip; an
// earlier revision, one skip and no change. On sqlite and on files.
func TestImportCounts(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testImportCounts(t, serve(t, mhttp.Options{}))
	})
	t.Run("files", func(t *testing.T) {
		t.Parallel()
		st, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		srv := mhttp.NewServer(service.New(st, service.Options{}), mhttp.Options{})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			st.Close()
		})
		testImportCounts(t, "http://"+ln.Addr().String())
	})
}

func testImportCounts(t *testing.T, base string) {
	var kept mnemo.Memory
	if st, raw := call(t, "POST", base+"/v1/memories", `{"agent_id":"a","content":"likes green tea"}`, &kept); st != 201 {
		t.Fatalf("remember: %d %s", st, raw)
	}
	st, export := call(t, "GET", base+"/v1/export?agent_id=a", nil, nil)
	if st != 200 {
		t.Fatalf("export: %d %s", st, export)
	}
	var line map[string]any
	if err := json.Unmarshal(export, &line); err != nil {
		t.Fatal(err)
	}
	edit := func(content string, updated time.Time) string {
		line["content"], line["updated_at"] = content, updated
		b, _ := json.Marshal(line)
		return string(b) + "\n"
	}
	type counts struct {
		Imported, Updated, Skipped int
		IDs                        map[string]string
	}
	for _, tt := range []struct {
		name, body string
		want       counts
		content    string
	}{
		{"a later revision", edit("likes black tea", kept.UpdatedAt.Add(time.Hour)), counts{Updated: 1}, "likes black tea"},
		{"the same again", edit("likes black tea", kept.UpdatedAt.Add(time.Hour)), counts{Skipped: 1}, "likes black tea"},
		{"an earlier revision", edit("likes white tea", kept.UpdatedAt.Add(-time.Hour)), counts{Skipped: 1}, "likes black tea"},
	} {
		var got counts
		if st, raw := call(t, "POST", base+"/v1/import?agent_id=a", tt.body, &got); st != 200 || got.Imported != tt.want.Imported ||
			got.Updated != tt.want.Updated || got.Skipped != tt.want.Skipped || len(got.IDs) != 0 {
			t.Errorf("%s: %d %s; want %+v", tt.name, st, raw, tt.want)
		}
		var m mnemo.Memory
		if st, raw := call(t, "GET", base+"/v1/memories/"+kept.ID+"?agent_id=a", nil, &m); st != 200 || m.Content != tt.content {
			t.Errorf("%s: the memory is %d %s; want %q", tt.name, st, raw, tt.content)
		}
	}
	var list listAnswer
	if call(t, "GET", base+"/v1/memories?agent_id=a", nil, &list); list.Total != 1 || !strings.Contains(list.Memories[0].Content, "black") {
		t.Errorf("the agent holds %d memories, want the one, changed", list.Total)
	}
}
