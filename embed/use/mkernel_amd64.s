#include "textflag.h"

// The int8 path on AVX2 (PERF-8): the products of qgemmGo with the
// weights of the VNNI kernel, as they are, and activations widened to
// int16. VPMADDWD multiplies pairs of int16 and adds each pair's products
// into an int32 lane, exactly: with a uint8 code and an int8 weight in
// each, no product or pair sum can overflow. So the sums, and with the
// same float epilogue the results, are the VNNI kernel's to the bit.
//
// A k-step of a group of 64 outputs is 256 bytes of weights, [4 panels][16
// outputs][4 inputs]; 8 outputs' are the 32 bytes at 32·b for block b of
// the group. VPMOVSXBW widens 4 outputs' 4 weights to 16 int16 and
// VPMADDWD meets them with the row's 4 codes broadcast: each output's sum
// builds up in two adjacent int32 lanes, which the epilogue adds.
//
// A block is 4 rows by 8 outputs: row r's sums in Y(2r) (outputs 0–3) and
// Y(2r+1) (outputs 4–7), the weights in Y8 and Y9, the codes in Y10 and
// Y13, the pair sums in Y11, Y12, Y14 and Y15.

// MADDROW adds one row's k-step: codes broadcast from src into act.
#define MADDROW(src, act, t0, t1, acc0, acc1) \
	VPBROADCASTQ src, act; \
	VPMADDWD Y8, act, t0; \
	VPMADDWD Y9, act, t1; \
	VPADDD t0, acc0, acc0; \
	VPADDD t1, acc1, acc1

// STORE writes Y12 to the row at DI and moves DI to the next row; ADD
// adds it to what the row holds.
#define STORE \
	VMOVUPS Y12, (DI); \
	ADDQ R10, DI

#define ADD \
	VADDPS (DI), Y12, Y12; \
	VMOVUPS Y12, (DI); \
	ADDQ R10, DI

// RESULT8 sets Y12 to one row's 8 results from its sums acc: less
// zp·colsum (ncs in Y8), scaled by sa·sw (sw in Y9), the bias (Y10)
// added. off is the row's offset in sa and zp, which R8 and CX point at.
#define RESULT8(acc, off) \
	VPBROADCASTD off(CX), Y13; \
	VPMULLD Y8, Y13, Y13; \
	VPADDD Y13, acc, Y12; \
	VCVTDQ2PS Y12, Y12; \
	VBROADCASTSS off(R8), Y13; \
	VMULPS Y9, Y13, Y13; \
	VFMADD213PS Y10, Y13, Y12

// HALF8 writes the 4 rows of results of the 8 outputs at R15 (a byte
// offset in c's rows, ncs, sw and bias) to c (DX), from the rows' sums
// a0–a3, with RESULT8 and STORE or ADD. The arguments are ncs, sw, bias,
// zp, sa and add in the frame, and two labels of the kernel's own.
#define HALF8(a0, a1, a2, a3, ncs, sw, bias, zp, sa, add, addLabel, doneLabel) \
	MOVQ ncs, AX; \
	VMOVDQU (AX)(R15*1), Y8; \
	MOVQ sw, AX; \
	VMOVUPS (AX)(R15*1), Y9; \
	MOVQ bias, AX; \
	VMOVUPS (AX)(R15*1), Y10; \
	MOVQ zp, CX; \
	MOVQ sa, R8; \
	LEAQ (DX)(R15*1), DI; \
	CMPB add, $0; \
	JNE addLabel; \
	RESULT8(a0, 0); \
	STORE; \
	RESULT8(a1, 4); \
	STORE; \
	RESULT8(a2, 8); \
	STORE; \
	RESULT8(a3, 12); \
	STORE; \
	JMP doneLabel; \
addLabel: \
	RESULT8(a0, 0); \
	ADD; \
	RESULT8(a1, 4); \
	ADD; \
	RESULT8(a2, 8); \
	ADD; \
	RESULT8(a3, 12); \
	ADD; \
doneLabel:

#define ZEROSUMS \
	VPXOR Y0, Y0, Y0; \
	VPXOR Y1, Y1, Y1; \
	VPXOR Y2, Y2, Y2; \
	VPXOR Y3, Y3, Y3; \
	VPXOR Y4, Y4, Y4; \
	VPXOR Y5, Y5, Y5; \
	VPXOR Y6, Y6, Y6; \
	VPXOR Y7, Y7, Y7

// func gemmMadd4x8(a *int16, lda int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)
//
// For 4 rows of int16 codes a, lda codes apart, and every output of the
// groups' weights w: the contract of qgemmGo.
TEXT ·gemmMadd4x8(SB), NOSPLIT, $0-97
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $1, R8
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	MOVQ w+16(FP), R14
	MOVQ groups+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R10
	SHLQ $2, R10
	XORQ R15, R15 // the block's byte offset in c's rows, ncs, sw and bias

mgroup:
	XORQ BX, BX // the block's byte offset in a k-step

mblock:
	LEAQ (R14)(BX*1), DI
	ZEROSUMS
	MOVQ k4+24(FP), CX
	XORQ R8, R8 // the k-step

mloop:
	VPMOVSXBW (DI), Y8
	VPMOVSXBW 16(DI), Y9
	MADDROW((SI)(R8*8), Y10, Y11, Y12, Y0, Y1)
	MADDROW((R11)(R8*8), Y13, Y14, Y15, Y2, Y3)
	MADDROW((R12)(R8*8), Y10, Y11, Y12, Y4, Y5)
	MADDROW((R13)(R8*8), Y13, Y14, Y15, Y6, Y7)
	ADDQ $256, DI
	INCQ R8
	CMPQ R8, CX
	JLT mloop

	// Each output's two lanes added, in order.
	VPHADDD Y1, Y0, Y0
	VPERMQ $0xD8, Y0, Y0
	VPHADDD Y3, Y2, Y2
	VPERMQ $0xD8, Y2, Y2
	VPHADDD Y5, Y4, Y4
	VPERMQ $0xD8, Y4, Y4
	VPHADDD Y7, Y6, Y6
	VPERMQ $0xD8, Y6, Y6
	HALF8(Y0, Y2, Y4, Y6, ncs+72(FP), sw+80(FP), bias+88(FP), zp+64(FP), sa+56(FP), add+96(FP), madd, mnext)

	ADDQ $32, R15
	ADDQ $32, BX
	CMPQ BX, $256
	JLT mblock

	// The next group's weights.
	MOVQ k4+24(FP), CX
	SHLQ $8, CX
	ADDQ CX, R14
	DECQ R9
	JNZ mgroup

	VZEROUPPER
	RET

// The int8 path on AVX-VNNI (PERF-8): VPDPBUSD on 256-bit registers, the
// VEX form that CPUs without AVX-512 have (Intel's since Alder Lake), with
// the VNNI kernel's weights and codes: the same exact sums, and with the
// same float epilogue the same results to the bit. The Go assembler knows
// VPDPBUSD only in its EVEX form, which these CPUs lack, so DOTROW spells
// the VEX form out (VEX.256.66.0F38.W0 50 /r): YMMa += the unsigned bytes
// of Ycodes times the signed bytes at (DI) or 32(DI), 4 to a lane.
//
// A block is 4 rows by 16 outputs, one panel: the 64 bytes at 64·b of a
// k-step for block b of the group. Row r's sums are in Y(2r) (outputs
// 0–7) and Y(2r+1) (8–15), its codes broadcast in Y(8+r).
#define DOTROWS \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x3d; BYTE $0x50; BYTE $0xc4; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x3d; BYTE $0x50; BYTE $0xcd; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x35; BYTE $0x50; BYTE $0xd4; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x35; BYTE $0x50; BYTE $0xdd; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x2d; BYTE $0x50; BYTE $0xe4; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x2d; BYTE $0x50; BYTE $0xed; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x25; BYTE $0x50; BYTE $0xf4; \
	BYTE $0xc4; BYTE $0xc2; BYTE $0x25; BYTE $0x50; BYTE $0xfd

// func gemmDot4x16(a *uint8, lda int, w *int8, k4 int, groups int, c *float32, ldc int, sa *float32, zp *int32, ncs *int32, sw *float32, bias *float32, add bool)
//
// For 4 rows of uint8 codes a, lda bytes apart, and every output of the
// groups' weights w: the contract of qgemmGo.
TEXT ·gemmDot4x16(SB), NOSPLIT, $0-97
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	MOVQ w+16(FP), R14
	MOVQ groups+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R10
	SHLQ $2, R10
	XORQ R15, R15 // the block's byte offset in c's rows, ncs, sw and bias

dgroup:
	XORQ BX, BX // the block's byte offset in a k-step

dblock:
	LEAQ (R14)(BX*1), DI
	ZEROSUMS
	MOVQ k4+24(FP), CX
	XORQ R8, R8 // the k-step

dloop:
	VPBROADCASTD (SI)(R8*4), Y8
	VPBROADCASTD (R11)(R8*4), Y9
	VPBROADCASTD (R12)(R8*4), Y10
	VPBROADCASTD (R13)(R8*4), Y11
	VMOVDQU (DI), Y12
	VMOVDQU 32(DI), Y13
	DOTROWS
	ADDQ $256, DI
	INCQ R8
	CMPQ R8, CX
	JLT dloop

	HALF8(Y0, Y2, Y4, Y6, ncs+72(FP), sw+80(FP), bias+88(FP), zp+64(FP), sa+56(FP), add+96(FP), dadd0, dnext0)
	ADDQ $32, R15
	HALF8(Y1, Y3, Y5, Y7, ncs+72(FP), sw+80(FP), bias+88(FP), zp+64(FP), sa+56(FP), add+96(FP), dadd1, dnext1)
	ADDQ $32, R15

	ADDQ $64, BX
	CMPQ BX, $256
	JLT dblock

	// The next group's weights.
	MOVQ k4+24(FP), CX
	SHLQ $8, CX
	ADDQ CX, R14
	DECQ R9
	JNZ dgroup

	VZEROUPPER
	RET

// func minMax8(x *float32, n int, out *[16]float32)
//
// Lane-wise minimum and maximum of x[0:n] (n a multiple of 16), both
// starting from 0: out[0:8] the minima, out[8:16] the maxima.
TEXT ·minMax8(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ out+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	SHRQ $4, CX
	JZ mmdone
mmloop:
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMINPS Y4, Y0, Y0
	VMAXPS Y4, Y1, Y1
	VMINPS Y5, Y2, Y2
	VMAXPS Y5, Y3, Y3
	ADDQ $64, SI
	DECQ CX
	JNZ mmloop
mmdone:
	VMINPS Y2, Y0, Y0
	VMAXPS Y3, Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

DATA codemax<>+0(SB)/4, $255
GLOBL codemax<>(SB), RODATA|NOPTR, $4

// QUANTSETUP loads quantWords' and quantBytes' arguments: x in SI, n/16
// in CX, dst in DI, inv, z, 0 and 255 broadcast in Y1–Y4.
#define QUANTSETUP \
	MOVQ x+0(FP), SI; \
	MOVQ n+8(FP), CX; \
	MOVQ dst+16(FP), DI; \
	VBROADCASTSS inv+24(FP), Y1; \
	VBROADCASTSS z+28(FP), Y2; \
	VXORPS Y3, Y3, Y3; \
	VPBROADCASTD codemax<>(SB), Y4; \
	SHRQ $4, CX

// QUANT16 sets Y0 to the codes of the 16 floats at SI, as int16 in order.
// VCVTTPS2DQ gives 0x80000000 for what does not fit, which the unsigned
// minimum takes to 255 as quant16's unsigned saturation does.
#define QUANT16 \
	VMOVUPS (SI), Y0; \
	VMOVUPS 32(SI), Y5; \
	VFMADD213PS Y2, Y1, Y0; \
	VFMADD213PS Y2, Y1, Y5; \
	VMAXPS Y3, Y0, Y0; \
	VMAXPS Y3, Y5, Y5; \
	VCVTTPS2DQ Y0, Y0; \
	VCVTTPS2DQ Y5, Y5; \
	VPMINUD Y4, Y0, Y0; \
	VPMINUD Y4, Y5, Y5; \
	VPACKUSDW Y5, Y0, Y0; \
	VPERMQ $0xD8, Y0, Y0

// func quantWords(x *float32, n int, dst *int16, inv, z float32)
//
// quant16 with AVX2, the codes widened to int16: dst[i] =
// clamp(x[i]*inv + z, 0, 255), truncated, for n a multiple of 16.
TEXT ·quantWords(SB), NOSPLIT, $0-32
	QUANTSETUP
	JZ qwdone
qwloop:
	QUANT16
	VMOVDQU Y0, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ qwloop
qwdone:
	VZEROUPPER
	RET

// func quantBytes(x *float32, n int, dst *uint8, inv, z float32)
//
// quantWords with the codes as bytes, quant16's to the bit, for the
// AVX-VNNI kernel.
TEXT ·quantBytes(SB), NOSPLIT, $0-32
	QUANTSETUP
	JZ qbdone
qbloop:
	QUANT16
	VEXTRACTI128 $1, Y0, X5
	VPACKUSWB X5, X0, X0
	VMOVDQU X0, (DI)
	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ qbloop
qbdone:
	VZEROUPPER
	RET

// func scores4AVX2(q, k *float32, stride, n, hd int, out *float32, ostride int)
//
// Attention's scores for 4 queries at once: out[r*ostride+j] = q_r·k_j for
// the rows q_r and k_j stride floats apart, j < n (even), hd a multiple of
// 8. A block is 4 queries by 2 keys: the sums in Y0–Y7 (query r, key t in
// Y(2r+t)), the keys' 8 floats in Y8 and Y9, a query's in Y10.
TEXT ·scores4AVX2(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ k+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	MOVQ n+24(FP), R9
	SHRQ $1, R9
	MOVQ hd+32(FP), R10
	SHRQ $3, R10
	MOVQ out+40(FP), DX
	MOVQ ostride+48(FP), R11
	SHLQ $2, R11
	LEAQ (SI)(R8*1), R12 // query 1
	LEAQ (R12)(R8*1), R13 // query 2
	LEAQ (R13)(R8*1), R14 // query 3
	TESTQ R9, R9
	JZ s4done

s4pair:
	ZEROSUMS
	XORQ AX, AX // byte offset in the rows
	MOVQ R10, CX
	LEAQ (DI)(R8*1), BX // the second key

s4loop:
	VMOVUPS (DI)(AX*1), Y8
	VMOVUPS (BX)(AX*1), Y9
	VMOVUPS (SI)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VMOVUPS (R12)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y2
	VFMADD231PS Y9, Y10, Y3
	VMOVUPS (R13)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y4
	VFMADD231PS Y9, Y10, Y5
	VMOVUPS (R14)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y6
	VFMADD231PS Y9, Y10, Y7
	ADDQ $32, AX
	DECQ CX
	JNZ s4loop

	// Eight sums into Y1: r0k0, r0k1, r1k0, r1k1, r2k0, r2k1, r3k0, r3k1.
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4
	VPERM2F128 $0x20, Y4, Y0, Y1
	VPERM2F128 $0x31, Y4, Y0, Y2
	VADDPS Y2, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	MOVQ DX, AX
	VMOVLPS X1, (AX)
	ADDQ R11, AX
	VMOVHPS X1, (AX)
	ADDQ R11, AX
	VMOVLPS X2, (AX)
	ADDQ R11, AX
	VMOVHPS X2, (AX)

	ADDQ $8, DX
	LEAQ (DI)(R8*2), DI
	DECQ R9
	JNZ s4pair

s4done:
	VZEROUPPER
	RET

// func wsum4AVX2(v *float32, stride, n, hd int, w *float32, wstride int, out *float32, ostride int)
//
// Attention's weighted sums for 4 queries at once: out_r = Σ_j w[r*wstride+j]
// v_j for the value rows v_j stride floats apart, j < n, hd a multiple of
// 16. A block is 16 of the head's floats for the 4 queries: the sums in
// Y0–Y7 (query r in Y(2r) and Y(2r+1)), the value's 16 floats in Y8 and
// Y9, a query's weight in Y10.
TEXT ·wsum4AVX2(SB), NOSPLIT, $0-64
	MOVQ v+0(FP), SI
	MOVQ stride+8(FP), R8
	SHLQ $2, R8
	MOVQ hd+24(FP), R10
	SHRQ $4, R10
	MOVQ w+32(FP), BX
	MOVQ wstride+40(FP), R9
	SHLQ $2, R9
	LEAQ (BX)(R9*1), R12
	LEAQ (R12)(R9*1), R13
	LEAQ (R13)(R9*1), R14
	MOVQ out+48(FP), DX
	MOVQ ostride+56(FP), R11
	SHLQ $2, R11

w4block:
	ZEROSUMS
	MOVQ SI, DI
	XORQ AX, AX
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JZ w4store

w4loop:
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9
	VBROADCASTSS (BX)(AX*4), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VBROADCASTSS (R12)(AX*4), Y10
	VFMADD231PS Y8, Y10, Y2
	VFMADD231PS Y9, Y10, Y3
	VBROADCASTSS (R13)(AX*4), Y10
	VFMADD231PS Y8, Y10, Y4
	VFMADD231PS Y9, Y10, Y5
	VBROADCASTSS (R14)(AX*4), Y10
	VFMADD231PS Y8, Y10, Y6
	VFMADD231PS Y9, Y10, Y7
	ADDQ R8, DI
	INCQ AX
	DECQ CX
	JNZ w4loop

w4store:
	MOVQ DX, DI
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ R11, DI
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ R11, DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ R11, DI
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DX
	DECQ R10
	JNZ w4block

	VZEROUPPER
	RET
