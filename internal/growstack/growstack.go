// Package growstack gives a short-lived goroutine the stack its work will
// need before the work starts.
//
// A goroutine starts with a small stack and doubles it whenever a call
// needs more, copying every frame on it each time. A gateway request or a
// run that reaches the store (SQLite's frames are large) grows it several
// times, deep in the call, where each copy walks many frames. One large
// frame at the start, while the stack holds almost nothing, takes the room
// in one cheap step. Long-lived goroutines grow once and need none of
// this.
package growstack

// Frame is the room Grow makes: enough for a request's or a run's deepest
// call into the store, so that neither grows again.
const Frame = 16 << 10

// Grow grows the calling goroutine's stack so that Frame more bytes fit.
//
//go:noinline
func Grow() {
	var buf [Frame]byte
	touch(&buf)
}

// touch keeps buf, and so Grow's frame, from being optimized away; it
// does not keep the pointer, so buf stays on the stack.
//
//go:noinline
func touch(buf *[Frame]byte) {
	buf[0] = 1
}
