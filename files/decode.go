package files

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	segjson "github.com/segmentio/encoding/json"

	"github.com/mnemo-dev/mnemo/internal/panics"
)

// decodeChunk is how many lines a decoding worker takes at a time.
const decodeChunk = 512

type decoded struct {
	raw  []byte
	l    line
	err  error
	torn bool // the last line, without its newline
}

// decodeLines decodes the lines of r on every core and calls fn with each,
// in order. A last line without its newline comes with torn set. Folding
// a state of 100,000 memories is mostly decoding JSON: this divides it by
// the cores.
func decodeLines(r io.Reader, fn func(d *decoded) error) error {
	type chunk struct {
		lines []decoded
		done  chan struct{}
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	todo := make(chan *chunk, workers)
	order := make(chan *chunk, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range todo {
				for i := range c.lines {
					d := &c.lines[i]
					if !d.torn {
						// A line the decoder chokes on is a bad line, not a crash.
						d.err = panics.Call(nil, "decoding a log line", func() error { return segjson.Unmarshal(d.raw, &d.l) })
					}
				}
				close(c.done)
			}
		})
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(todo)
		defer panics.Recover(nil, "reading a log", &readErr)
		br := bufio.NewReaderSize(r, bufSize(r))
		for {
			c := &chunk{lines: make([]decoded, 0, decodeChunk), done: make(chan struct{})}
			end := false
			for len(c.lines) < decodeChunk {
				raw, err := br.ReadBytes('\n')
				if len(raw) > 0 {
					c.lines = append(c.lines, decoded{raw: raw, torn: raw[len(raw)-1] != '\n'})
				}
				if err != nil {
					if !errors.Is(err, io.EOF) {
						readErr = err
					}
					end = true
					break
				}
			}
			if len(c.lines) > 0 {
				order <- c
				todo <- c
			}
			if end {
				return
			}
		}
	}()
	var err error
	for c := range order {
		<-c.done
		for i := range c.lines {
			if err == nil {
				err = fn(&c.lines[i])
			}
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	if readErr != nil {
		return fmt.Errorf("files: %w", readErr)
	}
	return nil
}

// bufSize is a read buffer of a megabyte, or less for a reader that says
// how much it holds: a small log opens without clearing a megabyte.
func bufSize(r io.Reader) int {
	if l, ok := r.(interface{ Len() int }); ok {
		return min(1<<20, max(16, l.Len()+1))
	}
	return 1 << 20
}
