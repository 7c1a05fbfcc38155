//go:build !amd64

package use

// pickKernel returns the portable kernel: only amd64 has an assembly one.
func pickKernel() kernel { return gemmGo }
