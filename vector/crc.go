package vector

// crcCombine returns the CRC-32C of a followed by b, given a's CRC, b's CRC
// and b's length: the way zlib's crc32_combine does it, by multiplying a's
// CRC by x^(8·lenB) modulo the polynomial. It lets Read checksum pieces of
// the file on several cores and still check the single CRC the file ends
// with (PERF-13).
func crcCombine(crcA, crcB uint32, lenB int64) uint32 {
	return multModP(x2nModP(lenB, 3), crcA) ^ crcB
}

// castagnoliPoly is the Castagnoli polynomial, bit-reflected.
const castagnoliPoly = 0x82f63b78

// multModP returns a·b modulo the polynomial, both reflected.
func multModP(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ castagnoliPoly
		} else {
			b >>= 1
		}
	}
	return p
}

// x2nModP returns x^(n·2^k) modulo the polynomial.
func x2nModP(n int64, k uint) uint32 {
	p := uint32(1) << 31  // x^0
	sq := uint32(1) << 30 // x^1, squared k times below
	for range k {
		sq = multModP(sq, sq)
	}
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			p = multModP(sq, p)
		}
		sq = multModP(sq, sq)
	}
	return p
}
