package files

import (
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

func TestKeyPath(t *testing.T) {
	tests := []struct{ key, want string }{
		{"/user/preference/style", "user/preference/style.json"},
		{"//user//calendar/2026-02-23_10-00_牙科复诊/", "user/calendar/2026-02-23_10-00_牙科复诊.json"},
		{"/User/A", "%55ser/%41.json"},
		{"/a b/c%d@e:f", "a%20b/c%25d%40e%3Af.json"},
		{"/.hidden/x.y", "%2Ehidden/x.y.json"},
		{"knowledge://trading/rebound", "knowledge%3A%2F%2F/trading/rebound.json"},
		{"/knowledge:/trading", "knowledge%3A/trading.json"},
		{"/café", "caf%C3%A9.json"},
		{"/cafe\u0301", "cafe%CC%81.json"},
	}
	for _, tt := range tests {
		got, err := KeyPath(tt.key)
		if err != nil || got != tt.want {
			t.Errorf("KeyPath(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
			continue
		}
		norm, _ := mnemo.NormalizeKey(tt.key)
		if back, ok := DecodeKeyPath(got); !ok || back != norm {
			t.Errorf("DecodeKeyPath(%q) = %q, %v; want %q", got, back, ok, norm)
		}
	}
	for _, bad := range []string{"", "relative", "/a/../b", "/a\x00b", "/a\nb"} {
		if _, err := KeyPath(bad); err == nil {
			t.Errorf("KeyPath(%q) accepted", bad)
		}
	}
	long := "/" + strings.Repeat("長", 120)
	p, err := KeyPath(long)
	if err != nil || len(path.Base(p)) > 255 || !strings.Contains(p, "@") || !utf8.ValidString(p) {
		t.Fatalf("long segment: %q, %v", p, err)
	}
	if _, ok := DecodeKeyPath(p); ok {
		t.Error("a cut segment decoded")
	}
	other, _ := KeyPath("/" + strings.Repeat("長", 119) + "短")
	if other == p {
		t.Error("two long keys share a path")
	}
	for _, bad := range []string{"a/../b.json", "a.json.txt", "a%4a.json", "%2F.json", "x%.json"} {
		if k, ok := DecodeKeyPath(bad); ok {
			t.Errorf("DecodeKeyPath(%q) = %q, accepted", bad, k)
		}
	}
}

// FuzzKeyPath: any key gives a path inside the root, the same every time,
// that decodes to the key; two keys never share a path, even on a file
// system that ignores case.
func FuzzKeyPath(f *testing.F) {
	for _, s := range []string{"/user/a", "/User/a", "knowledge://x/y", "/knowledge:/x/y", "/a/./b", "/..", "/é", "/e\u0301", "/İ", "/ı", "/K", "/\u212a", "/ａ", "/%41"} {
		f.Add(s, strings.ToUpper(s))
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		pa, errA := KeyPath(a)
		pb, errB := KeyPath(b)
		if errA != nil || errB != nil {
			return
		}
		for _, p := range []string{pa, pb} {
			if strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.HasPrefix(p, "../") || p == ".." {
				t.Fatalf("path %q escapes the root", p)
			}
			for _, seg := range strings.Split(p, "/") {
				if seg == "." || seg == ".." || seg == "" || len(seg) > 255 || strings.HasPrefix(seg, ".") {
					t.Fatalf("path %q has segment %q", p, seg)
				}
				for _, r := range seg {
					if r < ' ' || r == 0x7f {
						t.Fatalf("path %q has a control character", p)
					}
				}
			}
		}
		na, _ := mnemo.NormalizeKey(a)
		nb, _ := mnemo.NormalizeKey(b)
		if na != nb && strings.EqualFold(pa, pb) {
			t.Fatalf("%q and %q share %q on a case-insensitive file system", na, nb, pa)
		}
		if back, ok := DecodeKeyPath(pa); ok && back != na {
			t.Fatalf("DecodeKeyPath(KeyPath(%q)) = %q", na, back)
		} else if !ok && !strings.Contains(pa, "@") {
			t.Fatalf("KeyPath(%q) = %q does not decode", na, pa)
		}
	})
}
