//go:build !amd64

package vector

// dotInt8 returns the dot product of two codes of equal length.
func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }

func prefetch(p *int8) {}
