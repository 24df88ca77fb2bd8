package tracing

import (
	"strings"
	"sync"
)

// memoLimit bounds a memo: past it, values are made per call again, so
// ids that never repeat cannot grow it without end.
const memoLimit = 256

// memo keeps the value made from a key (a span name, an attribute) so
// the keys that repeat turn after turn — an agent id, a model id, a stop
// reason — make theirs once.
type memo[V any] struct {
	build func(string) V
	mu    sync.RWMutex
	m     map[string]V
}

func newMemo[V any](build func(string) V) *memo[V] {
	return &memo[V]{build: build, m: map[string]V{}}
}

func (c *memo[V]) get(key string) V {
	c.mu.RLock()
	v, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = c.build(key)
	c.mu.Lock()
	if len(c.m) < memoLimit {
		c.m[strings.Clone(key)] = v
	}
	c.mu.Unlock()
	return v
}
