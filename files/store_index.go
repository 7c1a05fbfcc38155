package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/inmem"
)

// ref names a memory the index may hold a file of.
type ref struct {
	sc      mnemo.Scope
	key, id string
}

// recentWrites is how many of the last writes an open checks the index of:
// a crash between a write's log line and its index file leaves the file
// behind, and only the last writes of a process can be cut so.
const recentWrites = 1000

func (s *Store) noteWrite(r ref) {
	if len(s.recent) >= recentWrites {
		s.recent = s.recent[1:]
	}
	s.recent = append(s.recent, r)
}

// scopeBase is the directory of a scope's index files.
func (s *Store) scopeBase(sc mnemo.Scope) string {
	base := filepath.Join(s.root, IndexName)
	if sc == s.opts.Home {
		return base
	}
	return filepath.Join(base, scopesDir, encodeSegment(sc.TenantID), encodeSegment(sc.AgentID))
}

// indexRel is the path of a memory's index file under its scope's base.
func indexRel(key, id string) (string, error) {
	if key != "" {
		return KeyPath(key)
	}
	return memoriesDir + "/" + encodeSegment(id) + ".json", nil
}

// plainEnvelope is what a memory's index file holds: the bare envelope
// (FS-8).
func plainEnvelope(m *mnemo.Memory) Envelope {
	return Envelope{Key: envelopeKey(m), TS: m.UpdatedAt.UTC(), Valid: true, Source: m.Source, Content: ContentOf(m)}
}

// syncIndex makes the index file of r agree with mem: the live memory's
// envelope, or no file.
func (s *Store) syncIndex(ctx context.Context, mem *inmem.Store, r ref) error {
	var (
		m   mnemo.Memory
		err error
	)
	if r.key != "" {
		m, err = mem.GetByKey(ctx, r.sc, r.key)
	} else {
		m, err = mem.Get(ctx, r.sc, r.id)
	}
	rel, perr := indexRel(r.key, r.id)
	if perr != nil {
		return perr
	}
	base := s.scopeBase(r.sc)
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
		return putFile(base, rel, Envelope{Key: r.key})
	} else if err != nil {
		return err
	}
	return putFile(base, rel, plainEnvelope(&m))
}

// indexRows brings the index files of a batch's keys and ids up to date.
func (s *Store) indexRows(ctx context.Context, mem *inmem.Store, sc mnemo.Scope, recs []mnemo.Record) error {
	done := map[ref]bool{}
	for _, rec := range recs {
		r := ref{sc: sc, key: rec.Memory.Key}
		if r.key == "" {
			r.id = rec.Memory.ID
		}
		if done[r] {
			continue
		}
		done[r] = true
		if err := s.syncIndex(ctx, mem, r); err != nil {
			return err
		}
	}
	return nil
}

// unindex removes the files of forgotten memories.
func (s *Store) unindex(sc mnemo.Scope, gone []inmem.Found) error {
	for _, g := range gone {
		rel, err := indexRel(g.Key, g.ID)
		if err != nil {
			return err
		}
		if err := putFile(s.scopeBase(sc), rel, Envelope{Key: g.Key}); err != nil {
			return err
		}
	}
	return nil
}

// clearIndex removes a scope's files: its directory, or for the home scope
// everything in index/ but the other scopes.
func (s *Store) clearIndex(sc mnemo.Scope) error {
	base := s.scopeBase(sc)
	if sc != s.opts.Home {
		return removeAll(base)
	}
	entries, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	for _, e := range entries {
		if e.Name() != scopesDir {
			if err := removeAll(filepath.Join(base, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func removeAll(p string) error {
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// repairIndex brings the index up to date with memory at open: in full
// when it is missing, else for the last writes folded.
func (s *Store) repairIndex(ctx context.Context) error {
	mem := s.mem.Load()
	if _, err := os.Stat(filepath.Join(s.root, IndexName)); errors.Is(err, fs.ErrNotExist) {
		return s.rebuildIndex(mem.Snapshot())
	}
	dirs := map[string]bool{}
	for _, r := range s.recent {
		if err := s.syncIndex(ctx, mem, r); err != nil {
			return err
		}
		if rel, err := indexRel(r.key, r.id); err == nil {
			dirs[filepath.Dir(filepath.Join(s.scopeBase(r.sc), filepath.FromSlash(rel)))] = true
		}
	}
	s.recent = nil
	// A crash between writing an index file's temporary and renaming it
	// leaves the temporary beside where the file goes: it is no memory, and
	// grep over the index would find it (FS-8).
	for dir := range dirs {
		tmps, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
		for _, p := range tmps {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("files: %w", err)
			}
		}
	}
	return nil
}

// rebuildIndex writes the index of snap afresh and swaps it in (see
// rebuildFrom).
func (s *Store) rebuildIndex(snap *inmem.Snapshot) error {
	files := make(map[string]Envelope)
	for i := range snap.Rows {
		r := &snap.Rows[i]
		if r.Tombstone {
			continue
		}
		rel, err := indexRel(r.Memory.Key, r.Memory.ID)
		if err != nil {
			return err
		}
		base := s.scopeBase(r.Memory.Scope())
		rel, _ = filepath.Rel(filepath.Join(s.root, IndexName), filepath.Join(base, filepath.FromSlash(rel)))
		files[filepath.ToSlash(rel)] = plainEnvelope(&r.Memory)
	}
	return rebuildFiles(s.root, files)
}

// putFile is writeIndex at a path given relative to base: e with content,
// or no file for an invalid e.
func putFile(base, rel string, e Envelope) error {
	if strings.HasPrefix(rel, "/") || strings.Contains("/"+rel+"/", "/../") {
		return fmt.Errorf("files: index path %q leaves the index", rel)
	}
	return writeIndexAt(base, rel, e)
}
