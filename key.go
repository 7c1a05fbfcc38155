package mnemo

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxKeyLen is the longest key accepted, in bytes, after normalisation.
const MaxKeyLen = 512

// NormalizeKey returns the canonical form of a memory key, or an EINVALID
// error. A key is a logical path ("/user/preference/style") or a URI
// ("knowledge://trading/rebound"). Normalisation collapses repeated slashes
// and drops a trailing slash; it rejects "." and ".." segments, control
// characters (NUL, newlines) and invalid UTF-8, so that a key can always be
// mapped to a file under a root without escaping it.
func NormalizeKey(key string) (string, error) {
	if key == "" {
		return "", Errorf(EINVALID, "key is empty")
	}
	if !utf8.ValidString(key) {
		return "", Errorf(EINVALID, "key is not valid UTF-8")
	}
	for _, r := range key {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return "", Errorf(EINVALID, "key contains a control character")
		}
	}
	scheme, path := "", key
	if i := strings.Index(key, "://"); i > 0 {
		scheme, path = key[:i], key[i+3:]
		if !validScheme(scheme) {
			return "", Errorf(EINVALID, "key scheme %q must be lower-case letters, digits, '+', '-' or '.'", scheme)
		}
		path = "/" + path
	} else if !strings.HasPrefix(key, "/") {
		return "", Errorf(EINVALID, "key must start with '/' or be a URI such as knowledge://topic/name")
	}

	segs := strings.Split(path, "/")
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		switch s {
		case "":
			continue
		case ".", "..":
			return "", Errorf(EINVALID, "key must not contain '.' or '..' segments")
		}
		if strings.TrimSpace(s) == "" {
			return "", Errorf(EINVALID, "key segments must not be blank")
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "", Errorf(EINVALID, "key has no segments")
	}
	norm := "/" + strings.Join(out, "/")
	if scheme != "" {
		norm = scheme + ":/" + norm
	}
	if len(norm) > MaxKeyLen {
		return "", Errorf(ETOOLARGE, "key is %d bytes, the limit is %d", len(norm), MaxKeyLen)
	}
	return norm, nil
}

func validScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}
