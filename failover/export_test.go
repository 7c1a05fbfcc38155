package failover

// SetDown marks the primary unreachable, as a call that found it so does.
func (s *Store) SetDown(err error) { s.setDown(err) }

// SetBeforePass has f called before each pass of a replay; set it before
// the replay starts.
func (s *Store) SetBeforePass(f func()) { s.beforePass.Store(&f) }
