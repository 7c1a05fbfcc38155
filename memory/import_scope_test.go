package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/storetest"
)

func TestImportAcrossScopes(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.ImportAcrossScopes(t, db)
}

func TestImportRevisions(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.ImportRevisions(t, db)
}
