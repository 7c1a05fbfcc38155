package vector

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

func TestCRCCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 70000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, tt := range []struct{ a, b int }{
		{0, 0}, {0, 1}, {1, 0}, {1, 1}, {3, 7}, {60, 1 << 16}, {1000, 1}, {33333, 36667}, {1, 69999},
	} {
		a, b := data[:tt.a], data[tt.a:tt.a+tt.b]
		want := crc32.Checksum(data[:tt.a+tt.b], castagnoli)
		got := crcCombine(crc32.Checksum(a, castagnoli), crc32.Checksum(b, castagnoli), int64(len(b)))
		if got != want {
			t.Errorf("combine(%d, %d bytes) = %08x, want %08x", tt.a, tt.b, got, want)
		}
	}
	// Many pieces, as Read combines them.
	var sum uint32
	for off := 0; off < len(data); {
		k := min(len(data)-off, 1+rng.IntN(5000))
		sum = crcCombine(sum, crc32.Checksum(data[off:off+k], castagnoli), int64(k))
		off += k
	}
	if want := crc32.Checksum(data, castagnoli); sum != want {
		t.Errorf("combined pieces = %08x, want %08x", sum, want)
	}
}
