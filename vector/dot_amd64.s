#include "textflag.h"

// func dotInt8AVX2(a, b *int8, n int) int32
//
// Σ a[i]*b[i] over n bytes, n a multiple of 32: each 16 bytes are widened
// to int16 (VPMOVSXBW) and multiplied and summed in pairs into int32
// (VPMADDWD). Codes are within [-127, 127], so no pair overflows.
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	SHRQ $5, CX
	JZ done
loop:
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMOVSXBW 16(SI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD Y3, Y2, Y2
	VPMADDWD Y5, Y4, Y4
	VPADDD Y2, Y0, Y0
	VPADDD Y4, Y1, Y1
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop
done:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+24(FP)
	VZEROUPPER
	RET

// func prefetch(p *int8)
//
// Asks for the cache line at p ahead of use (hnswlib does the same for the
// neighbours it is about to score).
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET
