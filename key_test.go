package mnemo_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

func TestNormalizeKey(t *testing.T) {
	tests := []struct {
		in, want, code string
	}{
		{"/user/preference/style", "/user/preference/style", ""},
		{"//user///calendar/", "/user/calendar", ""},
		{"/user/calendar/2026-02-23_10-00_牙科复诊", "/user/calendar/2026-02-23_10-00_牙科复诊", ""},
		{"knowledge://trading/rebound", "knowledge://trading/rebound", ""},
		{"knowledge://trading//rebound/", "knowledge://trading/rebound", ""},
		{"/turn/D1:3", "/turn/D1:3", ""},
		{"", "", mnemo.EINVALID},
		{"user/style", "", mnemo.EINVALID},
		{"/", "", mnemo.EINVALID},
		{"/a/../b", "", mnemo.EINVALID},
		{"/a/./b", "", mnemo.EINVALID},
		{"/a/\x00b", "", mnemo.EINVALID},
		{"/a/b\nc", "", mnemo.EINVALID},
		{"/a/ /b", "", mnemo.EINVALID},
		{"Know://x", "", mnemo.EINVALID},
		{"://x", "", mnemo.EINVALID},
		{"/\xff", "", mnemo.EINVALID},
		{"/" + strings.Repeat("a", mnemo.MaxKeyLen), "", mnemo.ETOOLARGE},
	}
	for _, tt := range tests {
		got, err := mnemo.NormalizeKey(tt.in)
		if code := mnemo.ErrorCode(err); code != tt.code {
			t.Errorf("NormalizeKey(%q) error %v, want code %q", tt.in, err, tt.code)
			continue
		}
		if got != tt.want {
			t.Errorf("NormalizeKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzNormalizeKey(f *testing.F) {
	for _, s := range []string{"/user/preference/style", "knowledge://a/b", "//a//b/", "/a/../b", "/牙科/复诊", "/a\x00", "x://", "/%2e%2e/x", "/a/b/c/d/e/f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := mnemo.NormalizeKey(in)
		if err != nil {
			if c := mnemo.ErrorCode(err); c != mnemo.EINVALID && c != mnemo.ETOOLARGE {
				t.Fatalf("NormalizeKey(%q): unexpected code %q", in, c)
			}
			return
		}
		// A normalised key is stable, bounded, safe to map to a path.
		if again, err := mnemo.NormalizeKey(got); err != nil || again != got {
			t.Fatalf("NormalizeKey not idempotent: %q -> %q -> %q, %v", in, got, again, err)
		}
		if len(got) > mnemo.MaxKeyLen || !utf8.ValidString(got) {
			t.Fatalf("bad key %q", got)
		}
		path := got
		if i := strings.Index(got, "://"); i > 0 {
			path = got[i+2:]
		}
		if !strings.HasPrefix(path, "/") || strings.Contains(path, "//") || strings.HasSuffix(path, "/") {
			t.Fatalf("key %q is not a clean path", got)
		}
		for _, seg := range strings.Split(path[1:], "/") {
			if seg == "." || seg == ".." || seg == "" {
				t.Fatalf("key %q has segment %q", got, seg)
			}
		}
		if strings.IndexFunc(got, unicode.IsControl) >= 0 {
			t.Fatalf("key %q has a control character", got)
		}
	})
}
