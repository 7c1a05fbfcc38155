package use

// pickKernel returns gemmAVX2 on CPUs (and operating systems) with AVX2 and
// FMA, and the portable gemmGo elsewhere.
func pickKernel() kernel {
	if hasAVX2FMA() {
		return gemmAVX2
	}
	return gemmGo
}

// hasAVX2FMA reports whether the CPU has AVX2 and FMA and the OS saves the
// YMM registers across context switches.
func hasAVX2FMA() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if eax, _ := xgetbv(); eax&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}

// gemmAVX2 is the kernel type's contract implemented in assembly.
func gemmAVX2(a []float32, lda int, l *linear, c []float32, ldc int) {
	in, panels := l.in, l.out/panelWidth
	// Bounds the assembly relies on, checked once here.
	_ = a[3*lda+in-1]
	_ = c[3*ldc+l.out-1]
	_ = l.panels[panels*in*panelWidth-1]
	gemm4x16(&a[0], lda, &l.panels[0], in, panels, &c[0], ldc)
}

//go:noescape
func gemm4x16(a *float32, lda int, w *float32, k int, panels int, c *float32, ldc int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)
