// Package cache puts an LRU cache of text -> vector in front of any
// mnemo.Embedder, so that repeated texts (frequent queries, re-indexed
// memories) cost one call to a paid or slow provider, not many.
package cache

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// DefaultSize is the number of entries kept when New is given a size <= 0.
const DefaultSize = 1000

// Cache is an Embedder that remembers the vectors of the last Size distinct
// texts. It is safe for concurrent use. Two concurrent calls that miss on
// the same text both ask the inner Embedder; the cache does not coalesce
// them.
type Cache struct {
	inner mnemo.Embedder
	size  int

	mu     sync.Mutex
	order  *list.List // of *entry, most recently used first
	items  map[string]*list.Element
	hits   uint64
	misses uint64
}

type entry struct {
	text string
	vec  []float32
}

var _ mnemo.Embedder = (*Cache)(nil)

// New returns a Cache of size entries (DefaultSize when size <= 0) in front
// of inner. The cache is keyed by text alone, so each inner Embedder needs
// its own Cache.
func New(inner mnemo.Embedder, size int) *Cache {
	if size <= 0 {
		size = DefaultSize
	}
	return &Cache{
		inner: inner,
		size:  size,
		order: list.New(),
		items: make(map[string]*list.Element),
	}
}

// Dimension returns the inner Embedder's dimension.
func (c *Cache) Dimension() int { return c.inner.Dimension() }

// Model returns the inner Embedder's model: a cache does not change vectors.
func (c *Cache) Model() string { return c.inner.Model() }

// Embed returns one vector per text, in order, asking the inner Embedder,
// in a single call, only for the distinct texts not in the cache. Returned
// vectors are copies, so a caller may modify them without corrupting the
// cache. When the inner Embedder fails, nothing is cached and the error is
// returned.
func (c *Cache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	pending := make(map[string][]int) // text -> positions in out waiting for it
	c.mu.Lock()
	for i, text := range texts {
		if el, ok := c.items[text]; ok {
			c.order.MoveToFront(el)
			out[i] = slices.Clone(el.Value.(*entry).vec)
			c.hits++
			continue
		}
		if _, ok := pending[text]; ok {
			// A repeat within this call is served by the first occurrence.
			c.hits++
		} else {
			missing = append(missing, text)
			c.misses++
		}
		pending[text] = append(pending[text], i)
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}

	vecs, err := c.inner.Embed(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if len(vecs) != len(missing) {
		return nil, mnemo.Errorf(mnemo.EINTERNAL, "embedder %s returned %d vectors for %d texts", c.inner.Model(), len(vecs), len(missing))
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	for j, text := range missing {
		vec := slices.Clone(vecs[j])
		c.put(text, vec)
		for _, i := range pending[text] {
			out[i] = slices.Clone(vec)
		}
	}
	return out, nil
}

// put stores vec under text as the most recently used entry, evicting the
// least recently used one when full. c.mu must be held.
func (c *Cache) put(text string, vec []float32) {
	if el, ok := c.items[text]; ok {
		// Filled by a concurrent call meanwhile; the vectors are equal.
		el.Value.(*entry).vec = vec
		c.order.MoveToFront(el)
		return
	}
	c.items[text] = c.order.PushFront(&entry{text: text, vec: vec})
	for c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*entry).text)
	}
}

// Len returns the number of cached entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Stats returns how many texts were served from the cache and how many
// were sent to the inner Embedder.
func (c *Cache) Stats() (hits, misses uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// HitRate returns hits / (hits + misses), or 0 before any lookup.
func (c *Cache) HitRate() float64 {
	hits, misses := c.Stats()
	if hits+misses == 0 {
		return 0
	}
	return float64(hits) / float64(hits+misses)
}
