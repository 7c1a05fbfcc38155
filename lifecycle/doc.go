// Package lifecycle is how memories age and leave (LIFE): reflect (decay,
// tidy, govern, retention, capacity, compaction, purge), soft forget, prune,
// reset and restore from the ledger, and markdown ingest.
package lifecycle
