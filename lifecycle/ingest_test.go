package lifecycle_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/lifecycle"
)

const dailyNote = `# 2026-02-23

## 身份
- 我是诺亚，小心的契约者

## 情感
- 小心说过爱你

## 决策
- DD 流程改用 Codex
- ⚠️ Codex 默认会卡在 Plan 阶段

## Log
- 10:30 部署了 new-api 到 kitty
- ok

Met with Ana about the garden plan; she was happy with it.

` + "```" + `
go test ./...
` + "```" + `
`

func TestIngest(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	dry, err := svc.Ingest(ctx, alice, lifecycle.IngestRequest{Text: dailyNote, Source: "memory/2026-02-23.md", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range dry.Items {
		got = append(got, fmt.Sprintf("%s %s P%d %s", it.Key, it.Type, it.Priority, it.Action))
	}
	want := []string{
		"/ingest/memory/2026-02-23.md/身份/1 identity P0 would_write",
		"/ingest/memory/2026-02-23.md/情感/1 emotion P1 would_write",
		"/ingest/memory/2026-02-23.md/决策/1 knowledge P2 would_write",
		"/ingest/memory/2026-02-23.md/决策/2 knowledge P2 would_write",
		"/ingest/memory/2026-02-23.md/log/1 event P3 would_write",
		"/ingest/memory/2026-02-23.md/log/2 event P3 would_write",
		"/ingest/memory/2026-02-23.md/log/3 event P3 would_write",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("extracted:\n%v\nwant:\n%v", got, want)
	}
	if st, _ := svc.Stats(ctx, alice); st.Memories != 0 {
		t.Fatal("a dry run wrote")
	}
	res, err := svc.Ingest(ctx, alice, lifecycle.IngestRequest{Text: dailyNote, Source: "memory/2026-02-23.md"})
	if err != nil {
		t.Fatal(err)
	}
	// "ok" is too short for the Write Guard.
	if res.Extracted != 7 || res.Written != 6 || res.Skipped != 1 || res.Items[5].Action != "skipped" {
		t.Fatalf("ingest: %+v", res)
	}
	m, err := svc.GetByKey(ctx, alice, "/ingest/memory/2026-02-23.md/身份/1")
	if err != nil || m.Type != mnemo.TypeIdentity || m.Priority != 0 || string(m.Source) != `"auto:memory/2026-02-23.md"` {
		t.Fatalf("identity memory: %+v, %v", m, err)
	}
	// Again: nothing changed, nothing written.
	again, _ := svc.Ingest(ctx, alice, lifecycle.IngestRequest{Text: dailyNote, Source: "memory/2026-02-23.md"})
	if again.Written != 0 || again.Skipped != 7 {
		t.Fatalf("re-ingest: %+v", again)
	}
	for _, bad := range []lifecycle.IngestRequest{{}, {Text: "x", Source: "../../etc/passwd\x00"}} {
		if _, err := svc.Ingest(ctx, alice, bad); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
