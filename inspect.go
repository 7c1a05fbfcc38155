package mnemo

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The optional store interfaces the inspector's routes use (API-13 to
// API-15): the agents of a tenant, one level of the key tree, and a
// keyless memory changed in place.

// AgentCount is one agent of a tenant and how many active memories
// (neither archived nor tombstones) it has.
type AgentCount struct {
	AgentID  string `json:"agent_id"`
	Memories int    `json:"memories"`
}

// AgentLister is a Store that can list the agents of a tenant.
type AgentLister interface {
	// Agents returns every agent of tenant that has, or had, memories,
	// in agent order, with its count of active memories.
	Agents(ctx context.Context, tenant string) ([]AgentCount, error)
}

// KeyChild is one entry of a level of the key tree: a "directory" (its
// name ends in "/" or "://") with the number of live keys below it, or a
// leaf key (count 1).
type KeyChild struct {
	Name  string `json:"name"`
	Dir   bool   `json:"dir"`
	Count int    `json:"count"`
}

// KeyTreeLister is a Store that can list one level of the key tree.
type KeyTreeLister interface {
	// KeyTree returns the children of prefix, in key order, at most limit
	// of them, and whether there are more. Every live memory with a key
	// counts, archived and expired ones too.
	KeyTree(ctx context.Context, scope Scope, prefix string, limit int) ([]KeyChild, bool, error)
}

// MaxKeyTreeChildren bounds one level of the key tree.
const MaxKeyTreeChildren = 1000

var schemeRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://`)

// KeyTreeChild returns the child of prefix that key is in, as a directory
// listing shows it: at the top a scheme ("kb://") or a first segment with
// its slash ("/user/"), below it the next segment with its slash, or the
// rest of the key when it has no further slash (a leaf). key must start
// with prefix. web/static/views/memories.js's nextSegment is the same.
func KeyTreeChild(prefix, key string) (name string, dir bool) {
	rest := key[len(prefix):]
	if prefix == "" {
		if s := schemeRe.FindString(rest); s != "" {
			return s, true
		}
	}
	from := 0
	if strings.HasPrefix(rest, "/") {
		from = 1
	}
	i := strings.IndexByte(rest[from:], '/')
	if i < 0 {
		return rest, false
	}
	return rest[:from+i+1], true
}

// CheckKeyTreePrefix checks a key tree prefix: any start of a key, "" for
// the top, with no control character and at most MaxKeyLen bytes.
func CheckKeyTreePrefix(prefix string) error {
	if len(prefix) > MaxKeyLen {
		return Errorf(EINVALID, "prefix is longer than %d bytes", MaxKeyLen)
	}
	if !utf8.ValidString(prefix) || strings.ContainsFunc(prefix, unicode.IsControl) {
		return Errorf(EINVALID, "prefix is not valid UTF-8 or has a control character")
	}
	return nil
}
