package tracing

// arenaChunk is how many values an arena adds at a time.
const arenaChunk = 256

// arena hands out zeroed values that stay where they are until reset,
// which zeroes every value handed out so the next batch reuses them.
type arena[T any] struct {
	chunks [][]T
	n      int
}

func (a *arena[T]) next() *T {
	c, i := a.n/arenaChunk, a.n%arenaChunk
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]T, arenaChunk))
	}
	a.n++
	return &a.chunks[c][i]
}

func (a *arena[T]) reset() {
	for c := 0; c*arenaChunk < a.n; c++ {
		clear(a.chunks[c][:min(arenaChunk, a.n-c*arenaChunk)])
	}
	a.n = 0
}

// slab hands out slices cut from one buffer, each with no room to
// append into the next; when the buffer is full a larger one replaces
// it (what was handed out stays valid) and is kept after reset.
type slab[T any] struct{ buf []T }

func (s *slab[T]) take(n int) []T {
	if len(s.buf)+n > cap(s.buf) {
		s.buf = make([]T, 0, max(2*cap(s.buf), n, arenaChunk))
	}
	at := len(s.buf)
	s.buf = s.buf[:at+n]
	return s.buf[at : at+n : at+n]
}

func (s *slab[T]) reset() {
	clear(s.buf)
	s.buf = s.buf[:0]
}
