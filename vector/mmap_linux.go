package vector

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapFrom is the smallest index, in bytes, that Read maps rather than
// copies: below it a copy costs about what the mapping's system calls do.
const mapFrom = 1 << 20

// readMapped points x's sections into a private mapping of the file r, in
// which the index, laid out as lay, starts at start, and reports whether it
// did. It does not when r is not a regular file, the index is small, the
// machine is big-endian, the sections are not aligned (version 1, or an
// index at an odd offset) or the mapping fails: Read copies then.
//
// Reopening a large store within PERF-13 rules out copying the file into
// fresh memory: most of that is the kernel providing and zeroing pages.
// The file was just written or read, so its pages are in the page cache:
// mapped, they are used where they are. The mapping is private and
// writable: inserts, deletes and vacuums write to copies of the pages they
// touch, never to the file, and saving writes a new file and renames it
// over this one, which leaves the mapping on the old one. Every byte is
// still checksummed, on every core, and the structure validated as a copy
// would be. The mapping is released when x is no longer reachable: only
// x's slices point into it, and every method that reads them keeps x.
func (x *Index) readMapped(r io.Reader, start int64, head uint32, lay layout, nodes, upLen int) (bool, error) {
	f, ok := r.(*os.File)
	if !ok || !littleEndian() || lay.end+4 < mapFrom || start%sectionAlign != 0 {
		return false, nil
	}
	for _, off := range lay.off {
		if off%sectionAlign != 0 {
			return false, nil
		}
	}
	page := int64(os.Getpagesize())
	base := start &^ (page - 1)
	size := start - base + lay.end + 4
	if int64(int(size)) != size {
		return false, nil
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return false, nil
	}
	var data []byte
	cerr := sc.Control(func(fd uintptr) {
		data, err = unix.Mmap(int(fd), base, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	})
	if cerr != nil || err != nil {
		return false, nil
	}
	// Searches read the codes and links at random: huge pages keep them
	// in few TLB entries, as adviseHuge does for a copy. The kernel maps
	// the page cache's 2 MB folios with huge pages whatever the advice
	// (sqlite's save writes 4 MB at a time so that it has them); advised,
	// the pages it reads back from disk come in 2 MB folios too.
	unix.Madvise(data, unix.MADV_HUGEPAGE)
	b := data[start-base:]
	if err := checkMapped(b, head, lay); err != nil {
		unix.Munmap(data)
		return false, err
	}
	runtime.AddCleanup(x, func(data []byte) { unix.Munmap(data) }, data)

	dim, per0 := x.dim, x.m0+1
	sec := func(i int) []byte {
		n := sectionSizes(int64(nodes), int64(dim), int64(per0), int64(upLen))[i]
		return b[lay.off[i] : lay.off[i]+n : lay.off[i]+n]
	}
	x.ids = view[uint64](sec(secIDs))
	x.scales = view[float32](sec(secScales))
	x.fineSc = view[float32](sec(secFineSc))
	// chunked copies the last, partial chunk into a whole one on the
	// heap: later nodes are allocated in it.
	x.codes = chunked(view[int8](sec(secCodes)), dim)
	x.fine = chunked(view[int8](sec(secFine)), dim)
	x.levels = sec(secLevels)
	x.state = sec(secState)
	x.links0 = chunked(view[uint32](sec(secLinks0)), per0)
	x.upOff = view[uint32](sec(secUpOff))
	x.upper = view[uint32](sec(secUpper))
	return true, nil
}

// checkMapped checks the checksum of the index mapped at b, laid out as
// lay, whose header's CRC is head: in pieces spread over the cores, their
// CRCs combined as readAt does.
func checkMapped(b []byte, head uint32, lay layout) error {
	body := b[headerSize:lay.end]
	pieces := (len(body) + readPiece - 1) / readPiece
	sums := make([]uint32, pieces+1) // and the checksum's, unused
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), pieces) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= pieces {
					return
				}
				sums[i] = crc32.Checksum(body[i*readPiece:min(len(body), (i+1)*readPiece)], castagnoli)
			}
		})
	}
	wg.Wait()
	sum := combinePieces(head, sums, func(i int) int { return min(readPiece, len(body)-i*readPiece) })
	if binary.LittleEndian.Uint32(b[lay.end:]) != sum {
		return fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	return nil
}

// view is b, aligned for T, as a slice of T.
func view[T uint64 | uint32 | float32 | int8](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
