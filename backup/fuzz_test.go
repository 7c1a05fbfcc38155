package backup_test

import (
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/mnemo-dev/mnemo/backup"
)

// FuzzParseManifest: no input panics, and an accepted manifest names only
// distinct, relative paths inside the backup.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"format":1,"store":"sqlite","created_at":"2026-01-02T03:04:05Z","mnemo_version":"v1","files":[{"path":"mnemo.db","size":4096,"sha256":"` + zeros + `"}]}`))
	f.Add([]byte(`{"format":1,"store":"files","created_at":"2026-01-02T03:04:05Z","files":[{"path":"../x","size":1,"sha256":"` + zeros + `"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := backup.ParseManifest(b)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, file := range m.Files {
			if !fs.ValidPath(file.Path) || file.Path == "." || seen[file.Path] || file.Size < 0 {
				t.Fatalf("accepted %q", file.Path)
			}
			seen[file.Path] = true
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := backup.ParseManifest(again); err != nil {
			t.Fatalf("an accepted manifest, written again, is refused: %v", err)
		}
	})
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"
