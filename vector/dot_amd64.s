#include "textflag.h"

// AVXSETUP loads the AVX-VNNI kernels' arguments: a in SI, c in DI, n/32
// in CX; zeroes the sums Y0 and Y1 and sets every byte of Y2 to 128.
#define AVXSETUP \
	MOVQ         a+0(FP), SI; \
	MOVQ         c+8(FP), DI; \
	MOVQ         n+16(FP), CX; \
	SHRQ         $5, CX; \
	VPXOR        Y0, Y0, Y0; \
	VPXOR        Y1, Y1, Y1; \
	MOVL         $0x80808080, AX; \
	VMOVD        AX, X2; \
	VPBROADCASTD X2, Y2

// func dotInt8AVX2(a, b *int8, n int) int32
//
// n is a multiple of 16. Each step sign-extends 16 int8 of a and of b to
// int16 (VPMOVSXBW), multiplies them and adds adjacent pairs into eight
// int32 (VPMADDWD: at most 2·128² = 32768 a lane, no overflow), and
// accumulates; two accumulators for 32 components a loop.
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

loop32:
	CMPQ CX, $32
	JL   tail16
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMADDWD  Y3, Y2, Y2
	VPADDD    Y2, Y0, Y0
	VPMOVSXBW 16(SI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD  Y5, Y4, Y4
	VPADDD    Y4, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	JMP       loop32

tail16:
	CMPQ CX, $16
	JL   done
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMADDWD  Y3, Y2, Y2
	VPADDD    Y2, Y0, Y0

done:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func dotFloatInt8AVX2(q *float32, c *int8, n int) float32
//
// n is a multiple of 16. Each step sign-extends 8 int8 of c to int32
// (VPMOVSXBD), converts them to float (VCVTDQ2PS) and multiplies-adds them
// with 8 floats of q (VFMADD231PS); two accumulators for 16 a loop.
TEXT ·dotFloatInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ c+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

floop:
	CMPQ        CX, $16
	JL          fdone
	VPMOVSXBD   (DI), Y2
	VCVTDQ2PS   Y2, Y2
	VFMADD231PS (SI), Y2, Y0
	VPMOVSXBD   8(DI), Y3
	VCVTDQ2PS   Y3, Y3
	VFMADD231PS 32(SI), Y3, Y1
	ADDQ        $16, DI
	ADDQ        $64, SI
	SUBQ        $16, CX
	JMP         floop

fdone:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func prefetch(p *int8)
//
// Asks for the cache line at p ahead of use (hnswlib does the same for the
// neighbours it is about to score).
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func dotFloatAVX2(a, b *float32, n int) float32
//
// n is a multiple of 16. Each step multiplies-adds 8 floats of a and b
// (VFMADD231PS); two accumulators for 16 a loop.
TEXT ·dotFloatAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

dloop:
	CMPQ        CX, $16
	JL          ddone
	VMOVUPS     (SI), Y2
	VFMADD231PS (DI), Y2, Y0
	VMOVUPS     32(SI), Y3
	VFMADD231PS 32(DI), Y3, Y1
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         dloop

ddone:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func prefetchLines(p *int8, n int)
//
// Asks for every cache line of p[:n], n > 0: a code at 612 dimensions
// spans ten lines, and the dot product otherwise waits on each in turn.
TEXT ·prefetchLines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	ADDQ AX, CX
	ANDQ $~63, AX

pfloop:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, CX
	JB         pfloop
	RET

// func dotFloatInt8x2AVX2(q *float32, c, f *int8, n int) (sc, sf float32)
//
// The dot products of q[:n] with c[:n] and with f[:n], n a multiple of 16,
// in one pass: reranking scores a candidate against both of its codes, and
// this reads the query once for the two.
TEXT ·dotFloatInt8x2AVX2(SB), NOSPLIT, $0-40
	MOVQ   q+0(FP), SI
	MOVQ   c+8(FP), DI
	MOVQ   f+16(FP), R8
	MOVQ   n+24(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f2loop:
	CMPQ        CX, $16
	JL          f2done
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VPMOVSXBD   (DI), Y6
	VCVTDQ2PS   Y6, Y6
	VFMADD231PS Y4, Y6, Y0
	VPMOVSXBD   8(DI), Y7
	VCVTDQ2PS   Y7, Y7
	VFMADD231PS Y5, Y7, Y1
	VPMOVSXBD   (R8), Y8
	VCVTDQ2PS   Y8, Y8
	VFMADD231PS Y4, Y8, Y2
	VPMOVSXBD   8(R8), Y9
	VCVTDQ2PS   Y9, Y9
	VFMADD231PS Y5, Y9, Y3
	ADDQ        $16, DI
	ADDQ        $16, R8
	ADDQ        $64, SI
	SUBQ        $16, CX
	JMP         f2loop

f2done:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VADDPS       Y3, Y2, Y2
	VEXTRACTF128 $1, Y2, X3
	VADDPS       X3, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	VZEROUPPER
	MOVSS        X0, sc+32(FP)
	MOVSS        X2, sf+36(FP)
	RET

// func prefetch2(p, q *int8)
//
// Asks for the cache lines at p and at q: one call for a node's code and
// scale.
TEXT ·prefetch2(SB), NOSPLIT, $0-16
	MOVQ       p+0(FP), AX
	MOVQ       q+8(FP), BX
	PREFETCHT0 (AX)
	PREFETCHT0 (BX)
	RET

// func dotUint8Int8VNNI(u *uint8, c *int8, n int) int32
//
// Σ (u[i]-128)·c[i] over n > 0 components, where u is a code plus 128
// (its bytes XOR 0x80). VPDPBUSD multiplies unsigned by signed bytes and
// adds each four products into an int32 lane, 64 components an
// instruction; a second VPDPBUSD sums 128·c, which is subtracted at the
// end. The last n mod 64 bytes are read with a mask, which does not fault
// past the end. No overflow: a lane gains at most 4·255·128 a step.
TEXT ·dotUint8Int8VNNI(SB), NOSPLIT, $0-28
	MOVQ         u+0(FP), SI
	MOVQ         c+8(FP), DI
	MOVQ         n+16(FP), CX
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	MOVL         $0x80808080, AX
	VPBROADCASTD AX, Z2

vloop:
	CMPQ     CX, $64
	JL       vtail
	VMOVDQU8 (SI), Z4
	VMOVDQU8 (DI), Z3
	VPDPBUSD Z3, Z4, Z0
	VPDPBUSD Z3, Z2, Z1
	ADDQ     $64, SI
	ADDQ     $64, DI
	SUBQ     $64, CX
	JMP      vloop

vtail:
	TESTQ      CX, CX
	JZ         vdone
	MOVQ       $1, AX
	SHLQ       CX, AX
	DECQ       AX
	KMOVQ      AX, K1
	VMOVDQU8.Z (SI), K1, Z4
	VMOVDQU8.Z (DI), K1, Z3
	VPDPBUSD   Z3, Z4, Z0
	VPDPBUSD   Z3, Z2, Z1

vdone:
	VPSUBD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4E, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xB1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, AX
	VZEROUPPER
	MOVL          AX, ret+24(FP)
	RET

// func dotInt8VNNI(a, b *int8, n int) int32
//
// Σ a[i]·b[i] over n > 0 components, as dotUint8Int8VNNI with a's bytes
// offset by 128 (XOR 0x80) as they are read: for two stored codes, where
// neither has an offset copy.
TEXT ·dotInt8VNNI(SB), NOSPLIT, $0-28
	MOVQ         a+0(FP), SI
	MOVQ         b+8(FP), DI
	MOVQ         n+16(FP), CX
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	MOVL         $0x80808080, AX
	VPBROADCASTD AX, Z2

wloop:
	CMPQ     CX, $64
	JL       wtail
	VMOVDQU8 (SI), Z4
	VPXORD   Z2, Z4, Z4
	VMOVDQU8 (DI), Z3
	VPDPBUSD Z3, Z4, Z0
	VPDPBUSD Z3, Z2, Z1
	ADDQ     $64, SI
	ADDQ     $64, DI
	SUBQ     $64, CX
	JMP      wloop

wtail:
	TESTQ      CX, CX
	JZ         wdone
	MOVQ       $1, AX
	SHLQ       CX, AX
	DECQ       AX
	KMOVQ      AX, K1
	VMOVDQU8.Z (SI), K1, Z4
	VPXORD     Z2, Z4, Z4
	VMOVDQU8.Z (DI), K1, Z3
	VPDPBUSD   Z3, Z4, Z0
	VPDPBUSD   Z3, Z2, Z1

wdone:
	VPSUBD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4E, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xB1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, AX
	VZEROUPPER
	MOVL          AX, ret+24(FP)
	RET

// AVXDOT is the two VPDPBUSD of the AVX-VNNI kernels, in their VEX form
// (VEX.256.66.0F38.W0 50 /r), which the Go assembler does not have: Y0 +=
// the unsigned bytes of Y4 times the signed bytes of Y3, and Y1 += 128
// (Y2) times them.
#define AVXDOT \
	BYTE $0xc4; BYTE $0xe2; BYTE $0x5d; BYTE $0x50; BYTE $0xc3; \
	BYTE $0xc4; BYTE $0xe2; BYTE $0x6d; BYTE $0x50; BYTE $0xcb

// AVXSUM returns Y0 - Y1, summed across its lanes, in ret.
#define AVXSUM(ret) \
	VPSUBD       Y1, Y0, Y0; \
	VEXTRACTI128 $1, Y0, X1; \
	VPADDD       X1, X0, X0; \
	VPSHUFD      $0x4E, X0, X1; \
	VPADDD       X1, X0, X0; \
	VPSHUFD      $0xB1, X0, X1; \
	VPADDD       X1, X0, X0; \
	VMOVD        X0, AX; \
	VZEROUPPER; \
	MOVL         AX, ret

// func dotUint8Int8AVXVNNI(a *uint8, c *int8, n int) int32
//
// dotUint8Int8VNNI with AVX-VNNI (VPDPBUSD on 256 bits, for CPUs without
// AVX-512): 32 components an instruction pair, n a positive multiple of
// 32.
TEXT ·dotUint8Int8AVXVNNI(SB), NOSPLIT, $0-28
	AVXSETUP

xloop:
	VMOVDQU (SI), Y4
	VMOVDQU (DI), Y3
	AVXDOT
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     xloop
	AVXSUM(ret+24(FP))
	RET

// func dotInt8AVXVNNI(a, c *int8, n int) int32
//
// dotInt8VNNI with AVX-VNNI: a's bytes offset by 128 as they are read, n
// a positive multiple of 32.
TEXT ·dotInt8AVXVNNI(SB), NOSPLIT, $0-28
	AVXSETUP

yloop:
	VMOVDQU (SI), Y4
	VPXOR   Y2, Y4, Y4
	VMOVDQU (DI), Y3
	AVXDOT
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     yloop
	AVXSUM(ret+24(FP))
	RET
