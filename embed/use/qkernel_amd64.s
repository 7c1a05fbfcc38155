#include "textflag.h"

// The int8 kernels (issue 20, EMB-3 throughput): for 4 rows r of uint8
// codes a and each group of 64 output columns,
//
//	c[r][o] = sa[r]*sw[o] * (Σ_i a[r][i]*w[o][i] - zp[r]*colsum[o]) + bias[o]
//
// plus c[r][o]'s old value if add is set, with ncs = -colsum. Writing the
// bias in the epilogue spares the caller a pass over c before the call,
// which at a batch's size misses the cache.
//
// The sum runs over k-steps of 4 inputs. w is packed [groups][k4][4
// panels][16 outputs][4 inputs]: one k-step of a group is 256 contiguous
// bytes, four ZMM loads. VPDPBUSD multiplies 4 unsigned activation bytes by
// 4 signed weight bytes and adds the sum to each int32 lane, exactly (no
// saturation). The 4×64 block of int32 sums lives in Z0–Z15 (row r, panel
// p in Z(4r+p)); Z16–Z19 hold weights, Z20–Z23 the broadcast activations,
// Z24–Z27 zp and Z28–Z31 sa per row. K1 is all ones if add is set, else
// zero: the masked add then leaves the new value as it is. Both kernels
// keep ncs, sw and bias in R14, BX and R15, c in DX and its row stride in
// R10, and the groups left in R9.

// SUMSINIT starts each sum of the group at -zp[r]*colsum[o].
#define SUMSINIT \
	VMOVDQU32 (R14), Z16; \
	VMOVDQU32 64(R14), Z17; \
	VMOVDQU32 128(R14), Z18; \
	VMOVDQU32 192(R14), Z19; \
	VPMULLD Z16, Z24, Z0; \
	VPMULLD Z17, Z24, Z1; \
	VPMULLD Z18, Z24, Z2; \
	VPMULLD Z19, Z24, Z3; \
	VPMULLD Z16, Z25, Z4; \
	VPMULLD Z17, Z25, Z5; \
	VPMULLD Z18, Z25, Z6; \
	VPMULLD Z19, Z25, Z7; \
	VPMULLD Z16, Z26, Z8; \
	VPMULLD Z17, Z26, Z9; \
	VPMULLD Z18, Z26, Z10; \
	VPMULLD Z19, Z26, Z11; \
	VPMULLD Z16, Z27, Z12; \
	VPMULLD Z17, Z27, Z13; \
	VPMULLD Z18, Z27, Z14; \
	VPMULLD Z19, Z27, Z15

// DOT4x4 adds one k-step: weights in Z16–Z19, activations in Z20–Z23.
#define DOT4x4 \
	VPDPBUSD Z16, Z20, Z0; \
	VPDPBUSD Z17, Z20, Z1; \
	VPDPBUSD Z18, Z20, Z2; \
	VPDPBUSD Z19, Z20, Z3; \
	VPDPBUSD Z16, Z21, Z4; \
	VPDPBUSD Z17, Z21, Z5; \
	VPDPBUSD Z18, Z21, Z6; \
	VPDPBUSD Z19, Z21, Z7; \
	VPDPBUSD Z16, Z22, Z8; \
	VPDPBUSD Z17, Z22, Z9; \
	VPDPBUSD Z18, Z22, Z10; \
	VPDPBUSD Z19, Z22, Z11; \
	VPDPBUSD Z16, Z23, Z12; \
	VPDPBUSD Z17, Z23, Z13; \
	VPDPBUSD Z18, Z23, Z14; \
	VPDPBUSD Z19, Z23, Z15

// STORE4x64 writes the group's 4×64 results and moves c, ncs, sw and bias
// 64 columns on.
#define STORE4x64 \
	VMOVUPS (BX), Z16; \
	VMOVUPS 64(BX), Z17; \
	VMOVUPS 128(BX), Z18; \
	VMOVUPS 192(BX), Z19; \
	VMULPS Z16, Z28, Z20; \
	VMULPS Z17, Z28, Z21; \
	VMULPS Z18, Z28, Z22; \
	VMULPS Z19, Z28, Z23; \
	VCVTDQ2PS Z0, Z0; \
	VCVTDQ2PS Z1, Z1; \
	VCVTDQ2PS Z2, Z2; \
	VCVTDQ2PS Z3, Z3; \
	VFMADD213PS (R15), Z20, Z0; \
	VFMADD213PS 64(R15), Z21, Z1; \
	VFMADD213PS 128(R15), Z22, Z2; \
	VFMADD213PS 192(R15), Z23, Z3; \
	VADDPS (DX), Z0, K1, Z0; \
	VADDPS 64(DX), Z1, K1, Z1; \
	VADDPS 128(DX), Z2, K1, Z2; \
	VADDPS 192(DX), Z3, K1, Z3; \
	VMOVUPS Z0, (DX); \
	VMOVUPS Z1, 64(DX); \
	VMOVUPS Z2, 128(DX); \
	VMOVUPS Z3, 192(DX); \
	LEAQ (DX)(R10*1), AX; \
	VMULPS Z16, Z29, Z20; \
	VMULPS Z17, Z29, Z21; \
	VMULPS Z18, Z29, Z22; \
	VMULPS Z19, Z29, Z23; \
	VCVTDQ2PS Z4, Z4; \
	VCVTDQ2PS Z5, Z5; \
	VCVTDQ2PS Z6, Z6; \
	VCVTDQ2PS Z7, Z7; \
	VFMADD213PS (R15), Z20, Z4; \
	VFMADD213PS 64(R15), Z21, Z5; \
	VFMADD213PS 128(R15), Z22, Z6; \
	VFMADD213PS 192(R15), Z23, Z7; \
	VADDPS (AX), Z4, K1, Z4; \
	VADDPS 64(AX), Z5, K1, Z5; \
	VADDPS 128(AX), Z6, K1, Z6; \
	VADDPS 192(AX), Z7, K1, Z7; \
	VMOVUPS Z4, (AX); \
	VMOVUPS Z5, 64(AX); \
	VMOVUPS Z6, 128(AX); \
	VMOVUPS Z7, 192(AX); \
	ADDQ R10, AX; \
	VMULPS Z16, Z30, Z20; \
	VMULPS Z17, Z30, Z21; \
	VMULPS Z18, Z30, Z22; \
	VMULPS Z19, Z30, Z23; \
	VCVTDQ2PS Z8, Z8; \
	VCVTDQ2PS Z9, Z9; \
	VCVTDQ2PS Z10, Z10; \
	VCVTDQ2PS Z11, Z11; \
	VFMADD213PS (R15), Z20, Z8; \
	VFMADD213PS 64(R15), Z21, Z9; \
	VFMADD213PS 128(R15), Z22, Z10; \
	VFMADD213PS 192(R15), Z23, Z11; \
	VADDPS (AX), Z8, K1, Z8; \
	VADDPS 64(AX), Z9, K1, Z9; \
	VADDPS 128(AX), Z10, K1, Z10; \
	VADDPS 192(AX), Z11, K1, Z11; \
	VMOVUPS Z8, (AX); \
	VMOVUPS Z9, 64(AX); \
	VMOVUPS Z10, 128(AX); \
	VMOVUPS Z11, 192(AX); \
	ADDQ R10, AX; \
	VMULPS Z16, Z31, Z20; \
	VMULPS Z17, Z31, Z21; \
	VMULPS Z18, Z31, Z22; \
	VMULPS Z19, Z31, Z23; \
	VCVTDQ2PS Z12, Z12; \
	VCVTDQ2PS Z13, Z13; \
	VCVTDQ2PS Z14, Z14; \
	VCVTDQ2PS Z15, Z15; \
	VFMADD213PS (R15), Z20, Z12; \
	VFMADD213PS 64(R15), Z21, Z13; \
	VFMADD213PS 128(R15), Z22, Z14; \
	VFMADD213PS 192(R15), Z23, Z15; \
	VADDPS (AX), Z12, K1, Z12; \
	VADDPS 64(AX), Z13, K1, Z13; \
	VADDPS 128(AX), Z14, K1, Z14; \
	VADDPS 192(AX), Z15, K1, Z15; \
	VMOVUPS Z12, (AX); \
	VMOVUPS Z13, 64(AX); \
	VMOVUPS Z14, 128(AX); \
	VMOVUPS Z15, 192(AX); \
	ADDQ $256, DX; \
	ADDQ $256, R14; \
	ADDQ $256, BX; \
	ADDQ $256, R15

// func gemmVNNI4x64(a *uint8, lda int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)
//
// The dense kernel: every k-step of 4 rows of a, lda bytes apart.
TEXT ·gemmVNNI4x64(SB), NOSPLIT, $0-97
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	MOVQ w+16(FP), DI
	MOVQ k4+24(FP), CX
	MOVQ groups+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R10
	SHLQ $2, R10
	MOVQ sa+56(FP), AX
	VBROADCASTSS (AX), Z28
	VBROADCASTSS 4(AX), Z29
	VBROADCASTSS 8(AX), Z30
	VBROADCASTSS 12(AX), Z31
	MOVQ zp+64(FP), AX
	VPBROADCASTD (AX), Z24
	VPBROADCASTD 4(AX), Z25
	VPBROADCASTD 8(AX), Z26
	VPBROADCASTD 12(AX), Z27
	MOVQ ncs+72(FP), R14
	MOVQ sw+80(FP), BX
	MOVQ bias+88(FP), R15
	MOVBLZX add+96(FP), AX
	NEGL AX
	KMOVW AX, K1

	// Row pointers of a: SI, R11, R12, R13.
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13

dgroup:
	SUMSINIT
	XORQ R8, R8 // the k-step

dinner:
	VMOVDQU32 (DI), Z16
	VMOVDQU32 64(DI), Z17
	VMOVDQU32 128(DI), Z18
	VMOVDQU32 192(DI), Z19
	VPBROADCASTD (SI)(R8*4), Z20
	VPBROADCASTD (R11)(R8*4), Z21
	VPBROADCASTD (R12)(R8*4), Z22
	VPBROADCASTD (R13)(R8*4), Z23
	DOT4x4
	ADDQ $256, DI
	INCQ R8
	CMPQ R8, CX
	JLT dinner

	// DI already points at the next group.
	STORE4x64
	DECQ R9
	JNZ dgroup

	VZEROUPPER
	RET

// func gemmVNNI4x64Sparse(p *uint32, ks *int32, nk int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)
//
// The sparse kernel: only the nk k-steps packBlock listed, where some
// row's codes are not all zero. p holds their codes, the 4 rows' 4 bytes
// each side by side, and ks their byte offsets in a group's weights.
TEXT ·gemmVNNI4x64Sparse(SB), NOSPLIT, $0-105
	MOVQ w+24(FP), DI
	MOVQ k4+32(FP), R12
	SHLQ $8, R12 // bytes of a group's weights
	MOVQ groups+40(FP), R9
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R10
	SHLQ $2, R10
	MOVQ sa+64(FP), AX
	VBROADCASTSS (AX), Z28
	VBROADCASTSS 4(AX), Z29
	VBROADCASTSS 8(AX), Z30
	VBROADCASTSS 12(AX), Z31
	MOVQ zp+72(FP), AX
	VPBROADCASTD (AX), Z24
	VPBROADCASTD 4(AX), Z25
	VPBROADCASTD 8(AX), Z26
	VPBROADCASTD 12(AX), Z27
	MOVQ ncs+80(FP), R14
	MOVQ sw+88(FP), BX
	MOVQ bias+96(FP), R15
	MOVBLZX add+104(FP), AX
	NEGL AX
	KMOVW AX, K1

sgroup:
	SUMSINIT
	MOVQ p+0(FP), SI
	MOVQ ks+8(FP), R11
	MOVQ nk+16(FP), CX
	TESTQ CX, CX
	JZ ssums

sinner:
	MOVL (R11), AX // the k-step's offset in the group's weights
	VMOVDQU32 (DI)(AX*1), Z16
	VMOVDQU32 64(DI)(AX*1), Z17
	VMOVDQU32 128(DI)(AX*1), Z18
	VMOVDQU32 192(DI)(AX*1), Z19
	VPBROADCASTD (SI), Z20
	VPBROADCASTD 4(SI), Z21
	VPBROADCASTD 8(SI), Z22
	VPBROADCASTD 12(SI), Z23
	DOT4x4
	ADDQ $16, SI
	ADDQ $4, R11
	DECQ CX
	JNZ sinner

ssums:
	STORE4x64
	ADDQ R12, DI
	DECQ R9
	JNZ sgroup

	VZEROUPPER
	RET

// func minMax16(x *float32, n int, out *[32]float32)
//
// Lane-wise minimum and maximum of x[0:n] (n a multiple of 16), both
// starting from 0: out[0:16] the minima, out[16:32] the maxima.
TEXT ·minMax16(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ out+16(FP), DI
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	SHRQ $4, CX
	TESTQ $1, CX
	JZ pairs
	VMOVUPS (SI), Z4
	VMINPS Z4, Z0, Z0
	VMAXPS Z4, Z1, Z1
	ADDQ $64, SI
	DECQ CX
pairs:
	SHRQ $1, CX
	JZ done
loop:
	VMOVUPS (SI), Z4
	VMOVUPS 64(SI), Z5
	VMINPS Z4, Z0, Z0
	VMAXPS Z4, Z1, Z1
	VMINPS Z5, Z2, Z2
	VMAXPS Z5, Z3, Z3
	ADDQ $128, SI
	DECQ CX
	JNZ loop
done:
	VMINPS Z2, Z0, Z0
	VMAXPS Z3, Z1, Z1
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VZEROUPPER
	RET

// func quant16(x *float32, n int, dst *uint8, inv, z float32)
//
// dst[i] = uint8(clamp(x[i]*inv + z, 0, 255)), rounded half up, for n a
// multiple of 16; z carries the zero point plus one half, so that
// truncation rounds.
TEXT ·quant16(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ dst+16(FP), DI
	VBROADCASTSS inv+24(FP), Z1
	VBROADCASTSS z+28(FP), Z2
	VXORPS Z3, Z3, Z3
	SHRQ $4, CX
	JZ qdone
qloop:
	VMOVUPS (SI), Z0
	VFMADD213PS Z2, Z1, Z0 // Z0 = x*inv + z
	VMAXPS Z3, Z0, Z0
	VCVTTPS2DQ Z0, Z0
	VPMOVUSDB Z0, (DI)
	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ qloop
qdone:
	VZEROUPPER
	RET

// packBlock's transpose: dword 4j+r of the result is k-step j of row r.
DATA packperm<>+0(SB)/4, $0
DATA packperm<>+4(SB)/4, $4
DATA packperm<>+8(SB)/4, $8
DATA packperm<>+12(SB)/4, $12
DATA packperm<>+16(SB)/4, $1
DATA packperm<>+20(SB)/4, $5
DATA packperm<>+24(SB)/4, $9
DATA packperm<>+28(SB)/4, $13
DATA packperm<>+32(SB)/4, $2
DATA packperm<>+36(SB)/4, $6
DATA packperm<>+40(SB)/4, $10
DATA packperm<>+44(SB)/4, $14
DATA packperm<>+48(SB)/4, $3
DATA packperm<>+52(SB)/4, $7
DATA packperm<>+56(SB)/4, $11
DATA packperm<>+60(SB)/4, $15
GLOBL packperm<>(SB), RODATA|NOPTR, $64

// func packBlockAVX512(p *uint32, ks *int32, a *uint8, in int) int
//
// packBlock with AVX-512, four k-steps an iteration (in a multiple of 16):
// the four rows' 16 bytes into one ZMM, transposed so that each 128-bit
// lane is a k-step's four rows, the lanes with a non-zero byte compressed
// to the front and stored whole. The stores run up to 48 bytes past the
// kept codes and 12 past the kept offsets: packBlock's buffers, in dwords
// and in/4 offsets, have room.
TEXT ·packBlockAVX512(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), DI
	MOVQ ks+8(FP), R8
	MOVQ a+16(FP), SI
	MOVQ in+24(FP), R9
	LEAQ (SI)(R9*1), R10
	LEAQ (R10)(R9*1), R11
	LEAQ (R11)(R9*1), R12
	MOVQ R9, CX
	SHRQ $4, CX
	XORQ AX, AX // kept so far
	XORQ DX, DX // byte offset in the rows
	VMOVDQU32 packperm<>(SB), Z5
	MOVL $256, BX
	VPBROADCASTD BX, X7
	VPXORD X6, X6, X6
	MOVL $0x00000100, BX // offsets 0, 256, 512, 768 for k-steps 0..3
	VPINSRD $1, BX, X6, X6
	MOVL $0x00000200, BX
	VPINSRD $2, BX, X6, X6
	MOVL $0x00000300, BX
	VPINSRD $3, BX, X6, X6
	VPSLLD $2, X7, X7 // four k-steps' worth: 1024
	TESTQ CX, CX
	JZ pdone
ploop:
	VMOVDQU32 (SI)(DX*1), X0
	VINSERTI32X4 $1, (R10)(DX*1), Z0, Z0
	VINSERTI32X4 $2, (R11)(DX*1), Z0, Z0
	VINSERTI32X4 $3, (R12)(DX*1), Z0, Z0
	VPERMD Z0, Z5, Z0
	VPTESTMD Z0, Z0, K1
	KMOVW K1, BX
	// Bit 4j of BX: k-step j has a non-zero byte in some row.
	MOVL BX, R13
	SHRL $2, R13
	ORL R13, BX
	MOVL BX, R13
	SHRL $1, R13
	ORL R13, BX
	ANDL $0x1111, BX
	// The k-steps' lanes whole, and the four bits side by side.
	MOVL BX, R13
	IMULL $15, R13
	KMOVW R13, K2
	MOVL BX, R13
	SHRL $3, R13
	ORL R13, BX
	MOVL BX, R13
	SHRL $6, R13
	ORL R13, BX
	ANDL $15, BX
	KMOVW BX, K3
	VPCOMPRESSD Z0, K2, Z1
	MOVQ AX, R13
	SHLQ $4, R13
	VMOVDQU32 Z1, (DI)(R13*1)
	VPCOMPRESSD X6, K3, X2
	VMOVDQU32 X2, (R8)(AX*4)
	POPCNTL BX, R13
	ADDQ R13, AX
	VPADDD X7, X6, X6
	ADDQ $16, DX
	DECQ CX
	JNZ ploop
pdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
