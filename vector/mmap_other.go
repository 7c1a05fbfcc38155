//go:build !linux

package vector

import "io"

// readMapped maps only on Linux; elsewhere Read copies.
func (x *Index) readMapped(r io.Reader, start int64, head uint32, lay layout, nodes, upLen int) (bool, error) {
	return false, nil
}
