//go:build !linux

package vector

// adviseHuge does nothing where there is no madvise(MADV_HUGEPAGE).
func adviseHuge[T any](s []T) {}
