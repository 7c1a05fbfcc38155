package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// EnvelopeOf is a memory as the file layout keeps it: its key (a memory
// without one is /memories/<id>), its last write time, its source, and as
// content the JSON it was written with (set_memory's json_content) or, for a
// text memory, an object of its text and the fields the default read uses.
func EnvelopeOf(m *mnemo.Memory) Envelope {
	key := m.Key
	if key == "" {
		key = "/memories/" + m.ID
	}
	content := m.Data
	if len(content) == 0 || m.Content != "" && string(m.Data) != m.Content {
		obj := map[string]any{
			"id": m.ID, "text": m.Content, "type": m.Type, "priority": m.Priority,
			"importance": m.Importance, "tags": m.Tags, "created_at": m.CreatedAt,
		}
		if m.Summary != "" {
			obj["summary"] = m.Summary
		}
		if m.Category != "" {
			obj["category"] = m.Category
		}
		if len(m.Data) > 0 {
			obj["data"] = json.RawMessage(m.Data)
		}
		if m.ExpiresAt != nil {
			obj["expired_at"] = m.ExpiresAt.UTC().Format(time.RFC3339)
		}
		content, _ = json.Marshal(obj)
	}
	return Envelope{Key: key, TS: m.UpdatedAt.UTC(), Valid: true, Source: m.Source, Content: content}
}

// ExportTree writes memories as a memory root in dir — log.jsonl, index/
// and state.jsonl — for reading with ls, find, grep, jq and cat
// (FS-12). dir must not exist or be empty: an export never mixes with other
// files.
func ExportTree(dir string, ms []mnemo.Memory) (int, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return 0, mnemo.Errorf(mnemo.EINVALID, "%s is not empty: export into a new directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("files: %w", err)
	}
	envs := make([]Envelope, len(ms))
	for i := range ms {
		envs[i] = EnvelopeOf(&ms[i])
	}
	slices.SortStableFunc(envs, func(a, b Envelope) int { return a.TS.Compare(b.TS) })
	l, err := OpenLog(dir, LogOptions{NoSync: true})
	if err != nil {
		return 0, err
	}
	defer l.Close()
	for chunk := range slices.Chunk(envs, 1000) {
		if err := l.Append(chunk...); err != nil {
			return 0, err
		}
	}
	if err := l.f.Sync(); err != nil {
		return 0, fmt.Errorf("files: %w", err)
	}
	res, err := Compact(dir, l, KeepLog, time.Now())
	return res.Live, err
}
