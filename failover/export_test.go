package failover

// SetDown marks the primary unreachable, as a call that found it so does.
func (s *Store) SetDown(err error) { s.setDown(err) }
