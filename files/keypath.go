package files

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// maxSegment is the longest encoded path segment, in bytes, kept whole:
// file systems allow 255; the rest is room for the hash suffix and ".json".
const maxSegment = 200

// KeyPath maps a key to the relative path of its index file: one
// directory per key segment and "<last>.json". The mapping is
// deterministic, safe and reversible (DecodeKeyPath) for every segment up
// to maxSegment encoded bytes (FS-10):
//
//   - letters that have case, and marks, are percent-encoded, so that two
//     keys never share a file on a case-insensitive or normalising file
//     system (macOS, Windows);
//   - "/" separates segments; everything else unsafe in a file name (and
//     "%", "@", ":", a leading ".") is percent-encoded;
//   - a longer segment is cut and suffixed with "@" and a hash of the
//     whole, so it stays unique (its key is then read from the file);
//   - a URI's scheme is a first segment of its own, "scheme%3A%2F%2F",
//     which no path key can produce.
//
// The result never starts with "/" and has no "." or ".." component: it
// cannot leave the directory it is joined to.
func KeyPath(key string) (string, error) {
	norm, err := mnemo.NormalizeKey(key)
	if err != nil {
		return "", err
	}
	var segs []string
	rest := norm
	if i := strings.Index(norm, "://"); i > 0 {
		segs = append(segs, encodeSegment(norm[:i+3]))
		rest = norm[i+2:] // keep the leading "/"
	}
	for _, s := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		segs = append(segs, encodeSegment(s))
	}
	segs[len(segs)-1] += ".json"
	return path.Join(segs...), nil
}

// DecodeKeyPath reverses KeyPath; ok is false for a path KeyPath cannot
// have made, or one whose segment was cut (read the key from the file).
func DecodeKeyPath(p string) (key string, ok bool) {
	p, ok = strings.CutSuffix(p, ".json")
	if !ok {
		return "", false
	}
	segs := strings.Split(p, "/")
	var b strings.Builder
	for i, s := range segs {
		if strings.Contains(s, "@") {
			return "", false // cut: the hash does not give the segment back
		}
		d, ok := decodeSegment(s)
		if !ok || d == "" {
			return "", false
		}
		if i == 0 && strings.HasSuffix(d, "://") {
			b.WriteString(strings.TrimSuffix(d, "/"))
			continue
		}
		b.WriteString("/" + d)
	}
	key = b.String()
	if norm, err := mnemo.NormalizeKey(key); err != nil || norm != key {
		return "", false
	}
	return key, true
}

// safe reports whether r may stand for itself in a file name.
func safe(r rune, first bool) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
		return true
	case r == '.':
		return !first // no hidden files, no "." or ".."
	case r < utf8.RuneSelf:
		return false // upper case, punctuation, space, "%", "@", ":"
	case unicode.IsUpper(r) || unicode.IsTitle(r) || unicode.SimpleFold(r) != r:
		return false // has case: would share a name on a case-insensitive file system
	case unicode.IsMark(r) || unicode.IsSpace(r) || !unicode.IsPrint(r):
		return false // combining marks normalise; spaces and invisibles deceive
	}
	return true
}

func encodeSegment(s string) string {
	var b strings.Builder
	for i, r := range s {
		if safe(r, i == 0) {
			b.WriteRune(r)
			continue
		}
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		for _, c := range buf[:n] {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	out := b.String()
	if len(out) <= maxSegment {
		return out
	}
	cut := maxSegment - 10
	for cut > 0 && (out[cut-1] == '%' || cut >= 2 && out[cut-2] == '%' || !utf8.RuneStart(out[cut])) {
		cut--
	}
	sum := sha256.Sum256([]byte(s))
	return out[:cut] + "@" + hex.EncodeToString(sum[:4])
}

func decodeSegment(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		var v byte
		if _, err := fmt.Sscanf(s[i+1:i+3], "%02X", &v); err != nil || s[i+1:i+3] != strings.ToUpper(s[i+1:i+3]) {
			return "", false
		}
		b.WriteByte(v)
		i += 2
	}
	out := b.String()
	if !utf8.ValidString(out) || encodeSegment(out) != s {
		return "", false // not what KeyPath writes: refuse rather than guess
	}
	return out, true
}
