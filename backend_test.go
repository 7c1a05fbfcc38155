package mnemo_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// NewBackend finds every ability a store has, and leaves nil the ones it
// lacks: the services read these fields instead of asserting.
func TestNewBackend(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := mnemo.NewBackend(db)
	if b.Store == nil || b.Vectors == nil || b.State == nil || b.Life == nil || b.Events == nil ||
		b.EventVectors == nil || b.Insights == nil {
		t.Errorf("sqlite backend lacks an ability: %+v", b)
	}

	m := mnemo.NewBackend(inmem.New(inmem.Options{}))
	if m.Vectors == nil || m.State == nil || m.Life == nil {
		t.Errorf("inmem backend lacks vectors, state or lifecycle: %+v", m)
	}
	if m.Events != nil || m.EventVectors != nil || m.Insights != nil {
		t.Errorf("inmem backend claims event abilities it lacks: %+v", m)
	}
}
