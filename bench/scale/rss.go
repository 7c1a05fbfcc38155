package scale

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// A stageMeter measures the peak resident set and the CPU time of each
// stage of a run apart (PERF-12: the ANN build's own peak, not the
// process's whole-run high-water mark). Each stage starts by returning the
// heap the previous one left to the OS and resetting the kernel's
// high-water mark (writing 5 to /proc/self/clear_refs, Linux); where that
// cannot be done, a stage's peak is 0 ("n/a") and only the overall one is
// known.
type stageMeter struct {
	separate bool          // the last start reset the high-water mark
	overall  int64         // the highest peak read so far
	cpu0     time.Duration // CPU time when the stage started
}

// start begins a stage.
func (m *stageMeter) start() {
	m.overall = max(m.overall, peakRSS())
	debug.FreeOSMemory()
	m.separate = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	m.cpu0 = cpuTime()
}

// end returns the stage's peak resident set (0 when it cannot be told
// apart) and the CPU time it took, user and system.
func (m *stageMeter) end() (peak int64, cpu time.Duration) {
	p := peakRSS()
	m.overall = max(m.overall, p)
	if c := cpuTime(); c > 0 {
		cpu = c - m.cpu0
	}
	if !m.separate {
		return 0, cpu
	}
	return p, cpu
}

// peakRSS is the process's peak resident set (VmHWM) since it started or
// since the high-water mark was last reset, 0 where /proc has no such line.
func peakRSS() int64 { return procStatus("VmHWM:") }

// rss is the process's resident set now (VmRSS), 0 where /proc has no such
// line.
func rss() int64 { return procStatus("VmRSS:") }

// procStatus reads a size in kB from /proc/self/status.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
