package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// readPiece is the most Read reads and checksums at once from a file: a
// piece is checksummed right after it arrives, while it is still in the
// core's cache.
const readPiece = 1 << 20

// readerAt returns r as an io.ReaderAt, with its position and the bytes it
// holds after it, when r can read at offsets and tell its size: regular
// files and in-memory readers.
func readerAt(r io.Reader) (ra io.ReaderAt, pos, left int64, ok bool) {
	ra, isAt := r.(io.ReaderAt)
	sk, isSeeker := r.(io.Seeker)
	if !isAt || !isSeeker {
		return nil, 0, 0, false
	}
	if f, isFile := r.(*os.File); isFile {
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return nil, 0, 0, false
		}
	}
	pos, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0, 0, false
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, 0, 0, false
	}
	if _, err := sk.Seek(pos, io.SeekStart); err != nil {
		return nil, 0, 0, false
	}
	return ra, pos, end - pos, true
}

// readAt reads the body of an index file, laid out as lay from start in ra,
// into x's slices, allocated once at their final size: straight into their
// memory, a piece at a time, the pieces spread over the cores. Reopening a
// large store reads gigabytes; one core copying them through a buffer,
// faulting in the fresh pages and checksumming them would take most of the
// reopen (PERF-13). Each piece is checksummed as it arrives, and the
// pieces' CRCs are combined into the file's, which head began (the CRC of
// the header).
func (x *Index) readAt(ra io.ReaderAt, start int64, head uint32, lay layout, nodes, upLen int) error {
	dim, per0 := x.dim, x.m0+1
	// Whole chunks, so that chunked cuts them without copying the last.
	whole := (nodes + chunkMask) &^ chunkMask
	x.ids = make([]uint64, nodes)
	x.scales = make([]float32, nodes)
	x.fineSc = make([]float32, nodes)
	codes := make([]int8, whole*dim)
	fine := make([]int8, whole*dim)
	x.levels = make([]byte, nodes)
	x.state = make([]byte, nodes)
	links0 := make([]uint32, whole*per0)
	x.upOff = make([]uint32, nodes)
	x.upper = make([]uint32, upLen)
	// Searches read the codes and links at random.
	adviseHuge(codes)
	adviseHuge(fine)
	adviseHuge(links0)

	// The sections in file order, and the size of their numbers.
	sections := [numSections]struct {
		b    []byte
		size int
	}{
		{asBytes(x.ids), 8}, {asBytes(x.scales), 4}, {asBytes(x.fineSc), 4},
		{asBytes(codes[:nodes*dim]), 1}, {asBytes(fine[:nodes*dim]), 1},
		{x.levels, 1}, {x.state, 1},
		{asBytes(links0[:nodes*per0]), 4}, {asBytes(x.upOff), 4}, {asBytes(x.upper), 4},
	}
	type piece struct {
		b   []byte
		off int64
	}
	var pieces []piece
	off := int64(headerSize)
	for i, sec := range sections {
		if k := lay.off[i] - off; k > 0 {
			// The padding of version 2: checksummed, not kept.
			pieces = append(pieces, piece{make([]byte, k), start + off})
		}
		off = lay.off[i]
		for s := sec.b; len(s) > 0; {
			k := min(len(s), readPiece)
			pieces = append(pieces, piece{s[:k], start + off})
			s, off = s[k:], off+int64(k)
		}
	}
	var tail [4]byte
	pieces = append(pieces, piece{tail[:], start + off})

	sums := make([]uint32, len(pieces))
	var (
		next   atomic.Int64
		failed atomic.Bool
		errMu  sync.Mutex
		first  error
		wg     sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(pieces)) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(pieces) {
					return
				}
				p := pieces[i]
				if n, err := ra.ReadAt(p.b, p.off); n < len(p.b) {
					if err == nil || errors.Is(err, io.EOF) {
						err = io.ErrUnexpectedEOF
					}
					errMu.Lock()
					if first == nil {
						first = err
					}
					errMu.Unlock()
					failed.Store(true)
					return
				}
				sums[i] = crc32.Checksum(p.b, castagnoli)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, first)
	}
	sum := combinePieces(head, sums, func(i int) int { return len(pieces[i].b) })
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if !littleEndian() {
		for _, sec := range sections {
			fromLittle(sec.b, sec.size)
		}
	}
	x.codes = chunked(codes, dim)
	x.fine = chunked(fine, dim)
	x.links0 = chunked(links0, per0)
	return nil
}

// combinePieces returns the CRC of the input whose first bytes had the CRC
// head and which went on with the pieces whose CRCs are sums but the last
// (the file's checksum), piece i of size(i) bytes.
func combinePieces(head uint32, sums []uint32, size func(i int) int) uint32 {
	sum := head
	whole32 := x2nModP(readPiece, 3) // the CRC operator of a full piece
	for i := range len(sums) - 1 {
		if n := size(i); n == readPiece {
			sum = multModP(whole32, sum) ^ sums[i]
		} else {
			sum = crcCombine(sum, sums[i], int64(n))
		}
	}
	return sum
}

// asBytes is the memory of s, which holds no pointers, as bytes.
func asBytes[T uint64 | uint32 | float32 | int8](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// littleEndian reports whether the machine stores numbers as the file does.
func littleEndian() bool {
	v := uint16(1)
	return *(*byte)(unsafe.Pointer(&v)) == 1
}

// fromLittle turns the little-endian numbers of size bytes in b into the
// machine's order, in place.
func fromLittle(b []byte, size int) {
	if size == 1 {
		return
	}
	for i := 0; i+size <= len(b); i += size {
		if size == 8 {
			binary.NativeEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:]))
		} else {
			binary.NativeEndian.PutUint32(b[i:], binary.LittleEndian.Uint32(b[i:]))
		}
	}
}
