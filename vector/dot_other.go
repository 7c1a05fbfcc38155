//go:build !amd64

package vector

const useAVX2 = false

func dotInt8AVX2(a, b *int8, n int) int32 { panic("vector: no AVX2 kernel on this architecture") }

const useFMA = false

func dotFloatInt8AVX2(q *float32, c *int8, n int) float32 {
	panic("vector: no AVX2 kernel on this architecture")
}

func dotFloatAVX2(a, b *float32, n int) float32 {
	panic("vector: no AVX2 kernel on this architecture")
}

func prefetch(p *int8) {}

func prefetchLines(p *int8, n int) {}

func dotFloatInt8x2AVX2(q *float32, c, f *int8, n int) (sc, sf float32) {
	panic("vector: no AVX2 kernel on this architecture")
}

func prefetch2(p, q *int8) {}

const useVNNI = false

func dotUint8Int8VNNI(u *uint8, c *int8, n int) int32 {
	panic("vector: no VNNI kernel on this architecture")
}

func dotInt8VNNI(a, b *int8, n int) int32 { panic("vector: no VNNI kernel on this architecture") }

const useAVXVNNI = false

func dotUint8Int8AVXVNNI(a *uint8, c *int8, n int) int32 {
	panic("vector: no AVX-VNNI kernel on this architecture")
}

func dotInt8AVXVNNI(a, c *int8, n int) int32 {
	panic("vector: no AVX-VNNI kernel on this architecture")
}
