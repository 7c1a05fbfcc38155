package cedict

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

func builtin(t testing.TB) *Lexicon {
	t.Helper()
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// words returns the segmentation of seg with each word's first glosses.
func words(l *Lexicon, seg string) []string {
	var out []string
	l.Segment(seg, func(i, _ int) {
		var g []string
		l.Glosses(i, 3, func(w string) { g = append(g, w) })
		out = append(out, strings.Join(g, ","))
	})
	return out
}

func TestSegment(t *testing.T) {
	l := builtin(t)
	if l.Len() < 50000 {
		t.Errorf("%d words, want the dictionary's tens of thousands", l.Len())
	}
	for _, tt := range []struct {
		seg  string
		want []string // each word's glosses must contain this word
	}{
		{"老师", []string{"teacher"}},
		{"咖啡", []string{"coffee"}},
		{"花生过敏", []string{"peanut", "allergic"}}, // longest match, not 生过
		{"水龙头漏水", []string{"faucet", "leak"}},    // three characters, then two
		{"妻子", []string{"wife"}},                 // a word of two readings
		{"喝", []string{"drink"}},                 // a character's first reading
		{"的", nil},                               // a particle says nothing
	} {
		got := words(l, tt.seg)
		if len(got) != len(tt.want) && !(tt.want == nil && len(got) == 1 && got[0] == "") {
			t.Errorf("%s: %q, want %d words with %q", tt.seg, got, len(tt.want), tt.want)
			continue
		}
		for i, w := range tt.want {
			if !slices.Contains(strings.Split(got[i], ","), w) {
				t.Errorf("%s: word %d glossed %q, want %q among them", tt.seg, i, got[i], w)
			}
		}
	}
}

func TestTranslate(t *testing.T) {
	l := builtin(t)
	for _, tt := range []struct {
		text string
		has  []string
	}{
		{"The cat sat on the mat.", []string{"The cat sat on the mat."}}, // unchanged
		{"", []string{""}},
		{"用户每天喝咖啡", []string{"user", "every", "drink", "coffee"}},
		{"数据库用PostgreSQL", []string{"database", "PostgreSQL"}}, // Latin kept
		{"私はコーヒーが好きです", []string{"私はコーヒーが好きです"}},               // Japanese: unchanged
	} {
		got := l.Translate(tt.text, 2)
		if IsChinese(tt.text) && HasHan(got) {
			t.Errorf("Translate(%q) = %q, has Han characters left", tt.text, got)
		}
		for _, w := range tt.has {
			if !strings.Contains(got, w) {
				t.Errorf("Translate(%q) = %q, want %q in it", tt.text, got, w)
			}
		}
	}
}

// TestParseRejects checks that a damaged file is an error, never a panic
// or a lexicon that reads out of bounds.
func TestParseRejects(t *testing.T) {
	good := append([]byte(nil), data...)
	version := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(version[len(magic):], 9)
	huge := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(huge[len(magic)+4:], 1<<30)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     []byte("MNGLOVE\n" + strings.Repeat("\x00", 40)),
		"version":   version,
		"count":     huge,
		"truncated": good[:len(good)/2],
		"header":    good[:headerSize],
	} {
		if _, err := Parse(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := Parse(good); err != nil {
		t.Fatal(err)
	}
}

// TestManifest checks the embedded lexicon against the manifest
// scripts/cedict/convert.mjs wrote beside it.
func TestManifest(t *testing.T) {
	b, err := os.ReadFile("data/zh-en.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version int    `json:"version"`
		Entries int    `json:"entries"`
		Size    int    `json:"size"`
		SHA256  string `json:"sha256"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if m.Size != len(data) || m.SHA256 != hex.EncodeToString(sum[:]) || m.Version != fileVersion {
		t.Errorf("embedded lexicon: %d bytes, sha256 %x, version %d; manifest %+v", len(data), sum, fileVersion, m)
	}
	if l := builtin(t); l.Len() != m.Entries {
		t.Errorf("%d words, manifest %d", l.Len(), m.Entries)
	}
}
