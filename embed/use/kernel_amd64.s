#include "textflag.h"

// func gemm4x16(a *float32, lda int, w *float32, k int, panels int, c *float32, ldc int)
//
// For each of 4 rows r of a (lda floats apart) and each panel of 16 output
// columns: c[r][panel] += Σ_i a[r][i] * w[panel][i][0:16]. The 4×16 block of
// c lives in Y0–Y7 while the panel streams past; each weight vector loaded
// feeds four FMAs.
TEXT ·gemm4x16(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), R8
	SHLQ $2, R8
	MOVQ w+16(FP), DI
	MOVQ k+24(FP), CX
	MOVQ panels+32(FP), R9
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R10
	SHLQ $2, R10

	// Row pointers of a: SI, R11, R12, R13.
	LEAQ (SI)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	LEAQ (R12)(R8*1), R13

panel:
	// Rows of c at the current panel: DX, R14, BX, AX.
	LEAQ (DX)(R10*1), R14
	LEAQ (R14)(R10*1), BX
	LEAQ (BX)(R10*1), AX
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS (R14), Y2
	VMOVUPS 32(R14), Y3
	VMOVUPS (BX), Y4
	VMOVUPS 32(BX), Y5
	VMOVUPS (AX), Y6
	VMOVUPS 32(AX), Y7

	XORQ R8, R8 // R8 (lda) is free now: reuse it as the index i

inner:
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9
	VBROADCASTSS (SI)(R8*4), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VBROADCASTSS (R11)(R8*4), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VBROADCASTSS (R12)(R8*4), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VBROADCASTSS (R13)(R8*4), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ $64, DI
	INCQ R8
	CMPQ R8, CX
	JLT inner

	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (R14)
	VMOVUPS Y3, 32(R14)
	VMOVUPS Y4, (BX)
	VMOVUPS Y5, 32(BX)
	VMOVUPS Y6, (AX)
	VMOVUPS Y7, 32(AX)

	// DI already points at the next panel; move c 16 columns right.
	ADDQ $64, DX
	DECQ R9
	JNZ panel

	VZEROUPPER
	RET

// func dotAVX2(a, b *float32, n int) float32
//
// a·b over n floats, n a multiple of 16: attention's scores.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	SHRQ $4, CX
	JZ ddone
dloop:
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	VFMADD231PS (DI), Y2, Y0
	VFMADD231PS 32(DI), Y3, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ dloop
ddone:
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func axpyAVX2(y, x *float32, n int, s float32)
//
// y += s·x over n floats, n a multiple of 16: attention's weighted values.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-28
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS s+24(FP), Y0
	SHRQ $4, CX
	JZ adone
aloop:
	VMOVUPS (DI), Y1
	VMOVUPS 32(DI), Y2
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VMOVUPS Y1, (DI)
	VMOVUPS Y2, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ aloop
adone:
	VZEROUPPER
	RET
