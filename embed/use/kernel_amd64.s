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

// func scoresAVX2(q, k *float32, stride, n, hd int, out *float32)
//
// out[j] = q · k[j*stride : j*stride+hd] for j < n, hd a multiple of 16:
// one query's attention scores against a text's keys in one call. Keys go
// four at a time, two sums each (even and odd 8-float chunks), so that the
// FMAs' latency overlaps, and the four keys' sums reduce together into one
// 4-float store; the last n%4 keys go one at a time.
TEXT ·scoresAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ k+8(FP), DI
	MOVQ stride+16(FP), R8
	SHLQ $2, R8
	MOVQ n+24(FP), R9
	MOVQ hd+32(FP), R10
	SHRQ $4, R10
	MOVQ out+40(FP), DX
	LEAQ (R8)(R8*2), R11 // 3 keys' stride

squad:
	CMPQ R9, $4
	JLT srow
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R10, CX
sqloop:
	VMOVUPS (AX), Y4
	VMOVUPS 32(AX), Y9
	VFMADD231PS (BX), Y4, Y0
	VFMADD231PS (BX)(R8*1), Y4, Y1
	VFMADD231PS (BX)(R8*2), Y4, Y2
	VFMADD231PS (BX)(R11*1), Y4, Y3
	VFMADD231PS 32(BX), Y9, Y5
	VFMADD231PS 32(BX)(R8*1), Y9, Y6
	VFMADD231PS 32(BX)(R8*2), Y9, Y7
	VFMADD231PS 32(BX)(R11*1), Y9, Y8
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ sqloop
	VADDPS Y5, Y0, Y0
	VADDPS Y6, Y1, Y1
	VADDPS Y7, Y2, Y2
	VADDPS Y8, Y3, Y3
	VHADDPS Y1, Y0, Y0 // key 0's and key 1's pairs
	VHADDPS Y3, Y2, Y2 // key 2's and key 3's
	VHADDPS Y2, Y0, Y0 // each key's quarter sums, per 128-bit lane
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVUPS X0, (DX)
	ADDQ $16, DX
	LEAQ (DI)(R8*4), DI
	SUBQ $4, R9
	JMP squad

srow:
	TESTQ R9, R9
	JZ sdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R10, CX
sloop:
	VMOVUPS (AX), Y2
	VMOVUPS 32(AX), Y3
	VFMADD231PS (BX), Y2, Y0
	VFMADD231PS 32(BX), Y3, Y1
	ADDQ $64, AX
	ADDQ $64, BX
	DECQ CX
	JNZ sloop
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ R8, DI
	DECQ R9
	JMP srow
sdone:
	VZEROUPPER
	RET

// func wsumAVX2(v *float32, stride, n, hd int, w *float32, out *float32)
//
// out[0:hd] = Σ_{j<n} w[j] · v[j*stride : j*stride+hd], hd a multiple of
// 64: one query's attention output for one head, 64 columns at a time in
// eight registers, so that eight FMAs a key are independent.
TEXT ·wsumAVX2(SB), NOSPLIT, $0-48
	MOVQ v+0(FP), SI
	MOVQ stride+8(FP), R8
	SHLQ $2, R8
	MOVQ n+16(FP), R9
	MOVQ hd+24(FP), R10
	SHRQ $6, R10
	MOVQ w+32(FP), R11
	MOVQ out+40(FP), DX
	TESTQ R10, R10
	JZ wdone
wcol:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ SI, AX
	MOVQ R11, BX
	MOVQ R9, CX
	TESTQ CX, CX
	JZ wstore
wloop:
	VBROADCASTSS (BX), Y8
	VFMADD231PS (AX), Y8, Y0
	VFMADD231PS 32(AX), Y8, Y1
	VFMADD231PS 64(AX), Y8, Y2
	VFMADD231PS 96(AX), Y8, Y3
	VFMADD231PS 128(AX), Y8, Y4
	VFMADD231PS 160(AX), Y8, Y5
	VFMADD231PS 192(AX), Y8, Y6
	VFMADD231PS 224(AX), Y8, Y7
	ADDQ $4, BX
	ADDQ R8, AX
	DECQ CX
	JNZ wloop
wstore:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VMOVUPS Y4, 128(DX)
	VMOVUPS Y5, 160(DX)
	VMOVUPS Y6, 192(DX)
	VMOVUPS Y7, 224(DX)
	ADDQ $256, SI
	ADDQ $256, DX
	DECQ R10
	JNZ wcol
wdone:
	VZEROUPPER
	RET

// func layerNormAVX2(dst, src *float32, rows, dim int, scale, bias *float32, eps float64)
//
// layerNormGo for rows rows of dim floats (a multiple of 32), with the same
// operations in the same order, so the same result to the bit: the sums
// over four registers of eight lanes, the lanes and registers combined as
// laneSum does, the square root and reciprocal in float64.
TEXT ·layerNormAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ rows+16(FP), R9
	MOVQ dim+24(FP), R10
	MOVQ scale+32(FP), R11
	MOVQ bias+40(FP), R12
	VMOVSD eps+48(FP), X15
	VCVTSI2SDQ R10, X14, X14 // float64(dim)
	VCVTSI2SSQ R10, X13, X13 // float32(dim)
	MOVQ $1, AX
	VCVTSI2SDQ AX, X12, X12 // 1.0
	MOVQ R10, R13
	SHLQ $2, R13 // bytes a row
	TESTQ R9, R9
	JZ lndone

lnrow:
	// Pass 1: the sum, for the mean.
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ SI, AX
	MOVQ R10, CX
	SHRQ $5, CX
lnsum:
	VADDPS (AX), Y0, Y0
	VADDPS 32(AX), Y1, Y1
	VADDPS 64(AX), Y2, Y2
	VADDPS 96(AX), Y3, Y3
	ADDQ $128, AX
	DECQ CX
	JNZ lnsum
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSS X1, X0, X0
	VDIVSS X13, X0, X0
	VBROADCASTSS X0, Y4 // mean

	// Pass 2: the sum of squared deviations.
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ SI, AX
	MOVQ R10, CX
	SHRQ $5, CX
lnsq:
	VMOVUPS (AX), Y5
	VMOVUPS 32(AX), Y6
	VMOVUPS 64(AX), Y7
	VMOVUPS 96(AX), Y8
	VSUBPS Y4, Y5, Y5
	VSUBPS Y4, Y6, Y6
	VSUBPS Y4, Y7, Y7
	VSUBPS Y4, Y8, Y8
	VMULPS Y5, Y5, Y5
	VMULPS Y6, Y6, Y6
	VMULPS Y7, Y7, Y7
	VMULPS Y8, Y8, Y8
	VADDPS Y5, Y0, Y0
	VADDPS Y6, Y1, Y1
	VADDPS Y7, Y2, Y2
	VADDPS Y8, Y3, Y3
	ADDQ $128, AX
	DECQ CX
	JNZ lnsq
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSS X1, X0, X0

	// inv = float32(1 / sqrt(float64(sq)/float64(dim) + eps))
	VCVTSS2SD X0, X0, X0
	VDIVSD X14, X0, X0
	VADDSD X15, X0, X0
	VSQRTSD X0, X0, X0
	VDIVSD X0, X12, X0
	VCVTSD2SS X0, X0, X0
	VBROADCASTSS X0, Y5

	// Pass 3: dst = scale*inv*(x-mean) + bias.
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R11, DX
	MOVQ R12, R8
	MOVQ R10, CX
	SHRQ $3, CX
lnout:
	VMULPS (DX), Y5, Y6
	VMOVUPS (AX), Y7
	VSUBPS Y4, Y7, Y7
	VMULPS Y7, Y6, Y6
	VADDPS (R8), Y6, Y6
	VMOVUPS Y6, (BX)
	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNZ lnout

	ADDQ R13, SI
	ADDQ R13, DI
	DECQ R9
	JNZ lnrow
lndone:
	VZEROUPPER
	RET

// Constants of softmaxAVX2's exp, from Cephes' expf.
DATA expc<>+0(SB)/4, $0x3fb8aa3b  // log2(e)
DATA expc<>+4(SB)/4, $0x3f318000  // C1 = 0.693359375
DATA expc<>+8(SB)/4, $0xb95e8083  // C2 = -2.12194440e-4; C1+C2 = ln 2
DATA expc<>+12(SB)/4, $0x39506967 // 1.9875691500e-4
DATA expc<>+16(SB)/4, $0x3ab743ce // 1.3981999507e-3
DATA expc<>+20(SB)/4, $0x3c088908 // 8.3334519073e-3
DATA expc<>+24(SB)/4, $0x3d2aa9c1 // 4.1665795894e-2
DATA expc<>+28(SB)/4, $0x3e2aaaaa // 1.6666665459e-1
DATA expc<>+32(SB)/4, $0x3f000000 // 5.0000001201e-1
DATA expc<>+36(SB)/4, $0x3f800000 // 1
DATA expc<>+40(SB)/4, $0xc2b00000 // -88: exp's floor, which 2^n flushes to 0
DATA expc<>+44(SB)/4, $127        // the exponent bias
GLOBL expc<>(SB), RODATA|NOPTR, $48

// func softmaxAVX2(x *float32, n int, scale float32)
//
// x[0:n] = exp(scale·(x[j] − max x)) / Σ_j exp(scale·(x[j] − max x)), n a
// multiple of 8. exp is Cephes' expf, within about an ulp of the float64
// one: 2^k·e^r with k = round(x·log2 e) and a degree-7 polynomial in r, k
// at −127 (from x below −88, where the caller's −Inf padding lands) giving
// exactly 0.
TEXT ·softmaxAVX2(SB), NOSPLIT, $0-20
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $3, CX
	JZ smdone

	// The maximum.
	VMOVUPS (SI), Y0
	LEAQ 32(SI), AX
	MOVQ CX, DX
	DECQ DX
	JZ smmaxed
smmax:
	VMAXPS (AX), Y0, Y0
	ADDQ $32, AX
	DECQ DX
	JNZ smmax
smmaxed:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	VBROADCASTSS X0, Y15 // top
	VBROADCASTSS scale+16(FP), Y14

	VBROADCASTSS expc<>+0(SB), Y13  // log2 e
	VBROADCASTSS expc<>+4(SB), Y12  // C1
	VBROADCASTSS expc<>+8(SB), Y11  // C2
	VBROADCASTSS expc<>+36(SB), Y10 // 1
	VBROADCASTSS expc<>+40(SB), Y9  // -88
	VPBROADCASTD expc<>+44(SB), Y8  // 127
	VXORPS Y7, Y7, Y7               // the total

	// x = exp(scale*(x-top)), summed.
	MOVQ SI, AX
	MOVQ CX, DX
smexp:
	VMOVUPS (AX), Y0
	VSUBPS Y15, Y0, Y0
	VMULPS Y14, Y0, Y0
	VMAXPS Y9, Y0, Y0
	VMULPS Y13, Y0, Y1
	VROUNDPS $0, Y1, Y1 // k, to nearest
	VFNMADD231PS Y12, Y1, Y0 // r = x - k*C1 - k*C2
	VFNMADD231PS Y11, Y1, Y0
	VBROADCASTSS expc<>+12(SB), Y2
	VBROADCASTSS expc<>+16(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expc<>+20(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expc<>+24(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expc<>+28(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expc<>+32(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VMULPS Y0, Y0, Y4        // r²
	VFMADD213PS Y0, Y4, Y2   // p·r² + r
	VADDPS Y10, Y2, Y2       // + 1
	VCVTPS2DQ Y1, Y1         // 2^k: (k+127) << 23
	VPADDD Y8, Y1, Y1
	VPSLLD $23, Y1, Y1
	VMULPS Y1, Y2, Y2
	VMOVUPS Y2, (AX)
	VADDPS Y2, Y7, Y7
	ADDQ $32, AX
	DECQ DX
	JNZ smexp

	VEXTRACTF128 $1, Y7, X1
	VADDPS X1, X7, X7
	VHADDPS X7, X7, X7
	VHADDPS X7, X7, X7
	VDIVSS X7, X10, X7 // 1/total
	VBROADCASTSS X7, Y7

	MOVQ SI, AX
	MOVQ CX, DX
smnorm:
	VMULPS (AX), Y7, Y0
	VMOVUPS Y0, (AX)
	ADDQ $32, AX
	DECQ DX
	JNZ smnorm
smdone:
	VZEROUPPER
	RET

// func normStatsAVX2(x *float32, dim int, eps float64) (mean, inv float32)
//
// normStatsGo in assembly, to the bit: layerNormAVX2's first two passes.
TEXT ·normStatsAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ dim+8(FP), R10
	VMOVSD eps+16(FP), X15
	VCVTSI2SDQ R10, X14, X14 // float64(dim)
	VCVTSI2SSQ R10, X13, X13 // float32(dim)
	MOVQ $1, AX
	VCVTSI2SDQ AX, X12, X12 // 1.0

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ SI, AX
	MOVQ R10, CX
	SHRQ $5, CX
nssum:
	VADDPS (AX), Y0, Y0
	VADDPS 32(AX), Y1, Y1
	VADDPS 64(AX), Y2, Y2
	VADDPS 96(AX), Y3, Y3
	ADDQ $128, AX
	DECQ CX
	JNZ nssum
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSS X1, X0, X0
	VDIVSS X13, X0, X0
	VMOVSS X0, mean+24(FP)
	VBROADCASTSS X0, Y4

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ SI, AX
	MOVQ R10, CX
	SHRQ $5, CX
nssq:
	VMOVUPS (AX), Y5
	VMOVUPS 32(AX), Y6
	VMOVUPS 64(AX), Y7
	VMOVUPS 96(AX), Y8
	VSUBPS Y4, Y5, Y5
	VSUBPS Y4, Y6, Y6
	VSUBPS Y4, Y7, Y7
	VSUBPS Y4, Y8, Y8
	VMULPS Y5, Y5, Y5
	VMULPS Y6, Y6, Y6
	VMULPS Y7, Y7, Y7
	VMULPS Y8, Y8, Y8
	VADDPS Y5, Y0, Y0
	VADDPS Y6, Y1, Y1
	VADDPS Y7, Y2, Y2
	VADDPS Y8, Y3, Y3
	ADDQ $128, AX
	DECQ CX
	JNZ nssq
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSS X1, X0, X0

	VCVTSS2SD X0, X0, X0
	VDIVSD X14, X0, X0
	VADDSD X15, X0, X0
	VSQRTSD X0, X0, X0
	VDIVSD X0, X12, X0
	VCVTSD2SS X0, X0, X0
	VMOVSS X0, inv+28(FP)
	VZEROUPPER
	RET

// func centreAVX2(out, t, c, d *float32, n int, mean, inv float32)
//
// out[j] = inv*(t[j] - mean*c[j]) + d[j] for n a multiple of 8, each a
// fused multiply-add.
TEXT ·centreAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ t+8(FP), SI
	MOVQ c+16(FP), R8
	MOVQ d+24(FP), R9
	MOVQ n+32(FP), CX
	VBROADCASTSS mean+40(FP), Y14
	VBROADCASTSS inv+44(FP), Y15
	SHRQ $3, CX
	JZ cdone
cloop:
	VMOVUPS (SI), Y0
	VFNMADD231PS (R8), Y14, Y0 // t - mean*c
	VFMADD213PS (R9), Y15, Y0  // inv*() + d
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, DI
	DECQ CX
	JNZ cloop
cdone:
	VZEROUPPER
	RET
