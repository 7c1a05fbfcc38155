package postgres

// SetIterative turns pgvector's iterative index scan off (or on), to test
// the over-fetching search older pgvector versions get.
func SetIterative(db *DB, on bool) { db.iterative = on }

// Iterative reports whether the store found pgvector's iterative scan.
func Iterative(db *DB) bool { return db.iterative }
