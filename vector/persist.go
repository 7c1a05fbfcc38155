package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ErrCorrupt is returned, wrapped, by Read for input that is not a complete,
// intact index of a supported version.
var ErrCorrupt = errors.New("vector: corrupt or unsupported index file")

const (
	magic = "mnemovec"
	// version is the format WriteTo writes. Version 2 is version 1 with
	// each section starting at a multiple of sectionAlign bytes from the
	// magic, zeros between, so that on Linux Read can map a file and use
	// its sections in place, every number aligned (PERF-13).
	// Read takes both.
	version = 2
	// headerSize is the fixed header: magic, then 8 uint32 fields
	// (version, dim, M, efConstruction, efSearch, exactBelow, nodes, entry),
	// then top as uint32, the rng state and the length of upper as uint64.
	headerSize   = 8 + 9*4 + 2*8
	sectionAlign = 64      // a cache line, and a multiple of every number's size
	chunk        = 1 << 16 // bytes per buffered read or write
)

// The sections of the body, in file order.
const (
	secIDs = iota
	secScales
	secFineSc
	secCodes
	secFine
	secLevels
	secState
	secLinks0
	secUpOff
	secUpper
	numSections
)

// layout is where a file's sections start, counted from the magic, and
// where its checksum does.
type layout struct {
	off [numSections]int64
	end int64
}

// sectionSizes returns the bytes each section of an index takes.
func sectionSizes(nodes, dim, per0, upLen int64) [numSections]int64 {
	return [numSections]int64{8 * nodes, 4 * nodes, 4 * nodes, nodes * dim, nodes * dim,
		nodes, nodes, 4 * nodes * per0, 4 * nodes, 4 * upLen}
}

// layoutOf returns the layout of an index of the given sizes in format
// version ver. The caller has bounded the sizes, so nothing overflows.
func layoutOf(ver int, nodes, dim, per0, upLen int64) layout {
	var l layout
	at := int64(headerSize)
	for i, n := range sectionSizes(nodes, dim, per0, upLen) {
		if ver >= 2 {
			at = (at + sectionAlign - 1) &^ (sectionAlign - 1)
		}
		l.off[i] = at
		at += n
	}
	l.end = at
	return l
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteTo writes the index to w in the format described in doc.go. It holds
// the read lock, so searches continue while it writes.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	x.insertMu.Lock() // no batch changes links while they are written
	defer x.insertMu.Unlock()
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.writeTo(w, version)
}

// writeTo writes the index in format version ver (tests write version 1).
// The caller holds insertMu and the read lock.
func (x *Index) writeTo(w io.Writer, ver int) (int64, error) {
	nodes := len(x.ids)
	lay := layoutOf(ver, int64(nodes), int64(x.dim), int64(x.m0+1), int64(len(x.upper)))
	e := &encoder{w: w, crc: crc32.New(castagnoli), buf: make([]byte, 0, chunk)}
	var h []byte
	h = append(h, magic...)
	for _, v := range []int{ver, x.dim, x.opts.M, x.opts.EfConstruction, x.opts.EfSearch, x.opts.ExactBelow, len(x.ids), int(x.entry), x.top} {
		h = binary.LittleEndian.AppendUint32(h, uint32(v))
	}
	h = binary.LittleEndian.AppendUint64(h, x.rng)
	h = binary.LittleEndian.AppendUint64(h, uint64(len(x.upper)))
	e.put(h)
	e.pad(lay.off[secIDs])
	for _, v := range x.ids {
		e.buf = binary.LittleEndian.AppendUint64(e.room(8), v)
	}
	for i, s := range [][]float32{x.scales, x.fineSc} {
		e.pad(lay.off[secScales+i])
		for _, v := range s {
			e.buf = binary.LittleEndian.AppendUint32(e.room(4), math.Float32bits(v))
		}
	}
	for i, chunks := range [][][]int8{x.codes, x.fine} {
		e.pad(lay.off[secCodes+i])
		for c, s := range chunks {
			for _, v := range s[:min(len(s), (nodes-c*chunkNodes)*x.dim)] {
				e.buf = append(e.room(1), byte(v))
			}
		}
	}
	e.pad(lay.off[secLevels])
	e.put(x.levels)
	e.pad(lay.off[secState])
	e.put(x.state)
	e.pad(lay.off[secLinks0])
	for c, s := range x.links0 {
		for _, v := range s[:min(len(s), (nodes-c*chunkNodes)*(x.m0+1))] {
			e.buf = binary.LittleEndian.AppendUint32(e.room(4), v)
		}
	}
	for i, s := range [][]uint32{x.upOff, x.upper} {
		e.pad(lay.off[secUpOff+i])
		for _, v := range s {
			e.buf = binary.LittleEndian.AppendUint32(e.room(4), v)
		}
	}
	e.flush()
	if e.err == nil {
		var sum [4]byte
		binary.LittleEndian.PutUint32(sum[:], e.crc.Sum32())
		var n int
		n, e.err = w.Write(sum[:])
		e.n += int64(n)
	}
	return e.n, e.err
}

// encoder buffers writes and checksums them.
type encoder struct {
	w   io.Writer
	crc hash.Hash32
	buf []byte
	n   int64
	err error
}

// room returns the buffer with room for k more bytes, flushing if needed.
func (e *encoder) room(k int) []byte {
	if len(e.buf)+k > cap(e.buf) {
		e.flush()
	}
	return e.buf
}

func (e *encoder) put(p []byte) {
	for len(p) > 0 {
		k := min(len(p), cap(e.buf)-len(e.buf))
		if k == 0 {
			e.flush()
			continue
		}
		e.buf = append(e.buf, p[:k]...)
		p = p[k:]
	}
}

// pad writes zeros up to offset at of the output.
func (e *encoder) pad(at int64) {
	for e.err == nil && e.n+int64(len(e.buf)) < at {
		e.buf = append(e.room(1), 0)
	}
}

func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		e.crc.Write(e.buf)
		var n int
		n, e.err = e.w.Write(e.buf)
		e.n += int64(n)
	}
	e.buf = e.buf[:0]
}

// decoder reads checksummed input. Unless the reader can tell how many
// bytes it holds, slices grow only as their bytes actually arrive, so a
// header that claims a huge index cannot make Read allocate much more than
// the input it was given.
type decoder struct {
	r     io.Reader
	crc   hash.Hash32
	buf   []byte
	sized bool // the input is known to hold the whole declared body
	err   error
}

// next returns the next k <= chunk bytes, or nil after an error.
func (d *decoder) next(k int) []byte {
	if d.err != nil {
		return nil
	}
	b := d.buf[:k]
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.err = fmt.Errorf("%w: %v", ErrCorrupt, err)
		return nil
	}
	d.crc.Write(b)
	return b
}

// readSlice reads n elements of size bytes each, decoding a chunk at a time.
func readSlice[T any](d *decoder, n, size int, decode func(dst []T, b []byte)) []T {
	c := min(n, chunk)
	if d.sized {
		c = n
	}
	out := make([]T, 0, c)
	if d.sized {
		// The codes and links are read at random by every search.
		adviseHuge(out)
	}
	for len(out) < n && d.err == nil {
		k := min(n-len(out), chunk/size)
		b := d.next(k * size)
		if b == nil {
			break
		}
		out = slices.Grow(out, k)
		m := len(out)
		out = out[:m+k]
		decode(out[m:], b)
	}
	return out
}

func readUint32s(d *decoder, n int) []uint32 {
	return readSlice(d, n, 4, func(dst []uint32, b []byte) {
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
	})
}

func readFloat32s(d *decoder, n int) []float32 {
	return readSlice(d, n, 4, func(dst []float32, b []byte) {
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	})
}

func readUint64s(d *decoder, n int) []uint64 {
	return readSlice(d, n, 8, func(dst []uint64, b []byte) {
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
	})
}

func readBytes(d *decoder, n int) []byte {
	return readSlice(d, n, 1, func(dst []byte, b []byte) { copy(dst, b) })
}

func readInt8s(d *decoder, n int) []int8 {
	b := readBytes(d, n)
	// int8 and byte share their layout; reinterpreting saves a copy of
	// what is most of the file.
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// remaining returns how many bytes r holds, if it can tell: for readers
// over memory and for regular files.
func remaining(r io.Reader) (int64, bool) {
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		return int64(r.Len()), true
	case *os.File:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		pos, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		return fi.Size() - pos, true
	}
	return 0, false
}

// Read reads an index written by WriteTo, of either format version. On
// Linux, given an *os.File holding a version 2 index at a multiple of 64
// bytes, it maps the file instead of copying it (readMapped); the file may
// then be renamed over or removed, but not truncated or written in place,
// while the Index lives. Given another *os.File or a bytes.Reader it
// allocates each slice once, at its final size; any other reader works
// too but costs some copying as the slices grow. Any damage, truncation or version
// mismatch gives an error wrapping ErrCorrupt; the checksum covers every
// byte, and the structure is validated besides, so a bad file never yields
// an index that could panic or answer wrongly.
func Read(r io.Reader) (*Index, error) {
	d := &decoder{r: r, crc: crc32.New(castagnoli), buf: make([]byte, chunk)}
	h := d.next(headerSize)
	if h == nil {
		return nil, d.err
	}
	if string(h[:8]) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	u32 := func(i int) int { return int(binary.LittleEndian.Uint32(h[8+4*i:])) }
	ver := u32(0)
	if ver != 1 && ver != version {
		return nil, fmt.Errorf("%w: version %d, want 1 or %d", ErrCorrupt, ver, version)
	}
	dim, m, efc, efs, exact, nodes, entry, top := u32(1), u32(2), u32(3), u32(4), u32(5), u32(6), u32(7), u32(8)
	rng := binary.LittleEndian.Uint64(h[8+36:])
	upLen := binary.LittleEndian.Uint64(h[8+44:])
	if dim < 1 || dim > maxDim || m < 2 || m > maxM || efc < m || efs < 1 || exact < 1 ||
		nodes > maxNodes || top > maxLevel || upLen > uint64(nodes)*uint64(maxLevel*(m+1)) ||
		uint64(nodes)*uint64(dim) > math.MaxInt/2 {
		return nil, fmt.Errorf("%w: bad header", ErrCorrupt)
	}
	lay := layoutOf(ver, int64(nodes), int64(dim), int64(2*m+1), int64(upLen))
	body := uint64(lay.end) + 4 - headerSize
	x := New(dim, Options{M: m, EfConstruction: efc, EfSearch: efs, ExactBelow: exact})
	x.rng = rng
	if ra, pos, left, ok := readerAt(r); ok {
		if uint64(left) < body {
			return nil, fmt.Errorf("%w: truncated: %d bytes left, want %d", ErrCorrupt, left, body)
		}
		mapped, err := x.readMapped(r, pos-headerSize, d.crc.Sum32(), lay, nodes, int(upLen))
		if err != nil {
			return nil, err
		}
		if !mapped {
			if err := x.readAt(ra, pos-headerSize, d.crc.Sum32(), lay, nodes, int(upLen)); err != nil {
				return nil, err
			}
		}
		// Leave r after the index, as reading it through would have.
		if _, err := r.(io.Seeker).Seek(pos+int64(body), io.SeekStart); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	} else {
		if left, ok := remaining(r); ok {
			if uint64(left) < body {
				return nil, fmt.Errorf("%w: truncated: %d bytes left, want %d", ErrCorrupt, left, body)
			}
			d.sized = true
		}
		if err := x.readFrom(d, lay, nodes, int(upLen)); err != nil {
			return nil, err
		}
	}
	x.entry, x.top = uint32(entry), top
	if err := x.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return x, nil
}

// readFrom reads the index's slices from d, one after the other, and
// checks the CRC that follows them.
func (x *Index) readFrom(d *decoder, lay layout, nodes, upLen int) error {
	dim := x.dim
	at := int64(headerSize)
	// skip reads the padding before section i.
	skip := func(i int) {
		if k := lay.off[i] - at; k > 0 {
			d.next(int(k))
		}
		at = lay.off[i] + sectionSizes(int64(nodes), int64(dim), int64(x.m0+1), int64(upLen))[i]
	}
	skip(secIDs)
	x.ids = readUint64s(d, nodes)
	skip(secScales)
	x.scales = readFloat32s(d, nodes)
	skip(secFineSc)
	x.fineSc = readFloat32s(d, nodes)
	skip(secCodes)
	x.codes = chunked(readInt8s(d, nodes*dim), dim)
	skip(secFine)
	x.fine = chunked(readInt8s(d, nodes*dim), dim)
	skip(secLevels)
	x.levels = readBytes(d, nodes)
	skip(secState)
	x.state = readBytes(d, nodes)
	skip(secLinks0)
	x.links0 = chunked(readUint32s(d, nodes*(x.m0+1)), x.m0+1)
	skip(secUpOff)
	x.upOff = readUint32s(d, nodes)
	skip(secUpper)
	x.upper = readUint32s(d, upLen)
	if d.err != nil {
		return d.err
	}
	want := d.crc.Sum32()
	sum := d.next(4)
	if sum == nil {
		return d.err
	}
	if binary.LittleEndian.Uint32(sum) != want {
		return fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	return nil
}

// chunked cuts flat, per elements a node, into the index's chunks of
// chunkNodes nodes without copying, but for the last, which is copied into
// a whole chunk so that later nodes have room.
func chunked[T any](flat []T, per int) [][]T {
	size := chunkNodes * per
	var out [][]T
	for len(flat) >= size {
		out = append(out, flat[:size:size])
		flat = flat[size:]
	}
	if len(flat) > 0 {
		last := make([]T, size)
		copy(last, flat)
		out = append(out, last)
	}
	return out
}

// validate checks every invariant the search code relies on and rebuilds
// the derived state: byID, the free list and the counts. The links, most
// of the file, are checked on every core while one builds byID (PERF-13).
func (x *Index) validate() error {
	n := len(x.ids)
	for u := range n {
		switch x.state[u] {
		case live:
			x.live++
		case dead:
			x.dead++
		case free:
			x.freed = append(x.freed, uint32(u))
		default:
			return fmt.Errorf("node %d: bad state %d", u, x.state[u])
		}
		lv := int(x.levels[u])
		if lv > maxLevel {
			return fmt.Errorf("node %d: level %d", u, lv)
		}
		if lv > 0 && uint64(x.upOff[u])+uint64(lv*(x.opts.M+1)) > uint64(len(x.upper)) {
			return fmt.Errorf("node %d: upper links out of range", u)
		}
		if x.state[u] != free {
			if s, f := float64(x.scales[u]), float64(x.fineSc[u]); !(s > 0) || math.IsInf(s, 0) || !(f >= 0) || math.IsInf(f, 0) {
				return fmt.Errorf("node %d: bad scale", u)
			}
		}
	}
	x.byID = make(map[uint64]uint32, x.live)
	var (
		wg     sync.WaitGroup
		next   atomic.Int64
		failed atomic.Bool
		errs   = make([]error, runtime.GOMAXPROCS(0)+1)
	)
	wg.Go(func() {
		for u := range n {
			if x.state[u] != live {
				continue
			}
			if _, dup := x.byID[x.ids[u]]; dup {
				errs[0] = fmt.Errorf("id %d appears twice", x.ids[u])
				failed.Store(true)
				return
			}
			x.byID[x.ids[u]] = uint32(u)
		}
	})
	anyFree := len(x.freed) > 0
	for w := range errs[1:] {
		wg.Go(func() {
			for !failed.Load() {
				lo := int(next.Add(1)-1) * chunkNodes
				if lo >= n {
					return
				}
				for u := lo; u < min(n, lo+chunkNodes); u++ {
					if err := x.checkLinks(uint32(u), anyFree); err != nil {
						errs[1+w] = err
						failed.Store(true)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if x.live+x.dead == 0 {
		if x.entry != noNode || x.top != 0 {
			return errors.New("bad entry point")
		}
		return nil
	}
	if int(x.entry) >= n || x.state[x.entry] == free || int(x.levels[x.entry]) != x.top {
		return errors.New("bad entry point")
	}
	return nil
}

// checkLinks checks the link blocks of node u: their counts, and that each
// link leads to a node that has the layer and, if anyFree, is not free.
func (x *Index) checkLinks(u uint32, anyFree bool) error {
	n := uint32(len(x.ids))
	isFree := x.state[u] == free
	for l := 0; l <= int(x.levels[u]); l++ {
		if isFree && l > 0 {
			break // the block is only reserved; alloc clears it
		}
		blk := x.links(u, l)
		c := blk[0]
		if c > uint32(len(blk)-1) || (l > 0 && c > uint32(x.opts.M)) || (isFree && c > 0) {
			return fmt.Errorf("node %d: bad link count", u)
		}
		nb := blk[1 : 1+c]
		if l == 0 {
			// Every node has layer 0: only the range is in question, and
			// the largest link tells it without a branch a link.
			var hi uint32
			for _, v := range nb {
				hi = max(hi, v)
			}
			if c > 0 && hi >= n {
				return fmt.Errorf("node %d: bad link", u)
			}
		} else {
			for _, v := range nb {
				if v >= n || int(x.levels[v]) < l {
					return fmt.Errorf("node %d: bad link", u)
				}
			}
		}
		if anyFree {
			for _, v := range nb {
				if x.state[v] == free {
					return fmt.Errorf("node %d: link to free node", u)
				}
			}
		}
	}
	return nil
}
