package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// maxTrackedLine bounds the partial line a gate buffers. The SDK refuses
// longer frames itself (DefaultMaxLineLength), so a longer line is only
// skipped by the accounting.
const maxTrackedLine = 16<<20 + 1

// gate holds back the end of a stdio input stream until every request
// read before it has been answered.
//
// The SDK cancels the calls in flight as soon as its reader sees EOF, so
// `printf '…' | switchboard mcp` would get no answers to its tool calls.
// The gate counts request ids on the way in and response ids on the way
// out, and passes EOF on only when none is pending (or the connection is
// closed). A notifications/cancelled forgets its request, which gets no
// answer.
type gate struct {
	mu      sync.Mutex
	pending map[string]bool
	changed chan struct{} // closed and replaced on every change
	closed  bool

	in, out lineSplitter // owned by the reading and the writing side
}

func newGate() *gate {
	return &gate{pending: map[string]bool{}, changed: make(chan struct{})}
}

// envelope is the part of a JSON-RPC message the gate reads.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// messages decodes one line: a message or a batch of them. Lines that are
// not JSON-RPC are the SDK's to refuse.
func messages(line []byte) []envelope {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var batch []envelope
		if json.Unmarshal(line, &batch) != nil {
			return nil
		}
		return batch
	}
	var m envelope
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []envelope{m}
}

// idKey normalizes an id so 2 and 2.0 match, and "2" does not.
func idKey(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return fmt.Sprintf("%T:%v", v, v), true
}

func (g *gate) update(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f()
	close(g.changed)
	g.changed = make(chan struct{})
}

// sawInput records the client's requests and cancellations in a chunk
// read from the input.
func (g *gate) sawInput(p []byte) {
	for _, line := range g.in.feed(p) {
		g.input(line)
	}
}

func (g *gate) input(line []byte) {
	for _, m := range messages(line) {
		switch {
		case m.Method == "notifications/cancelled":
			if k, ok := idKey(m.Params.RequestID); ok {
				g.update(func() { delete(g.pending, k) })
			}
		case m.Method != "":
			if k, ok := idKey(m.ID); ok {
				g.update(func() { g.pending[k] = true })
			}
		}
	}
}

// sawOutput records the responses in a chunk written to the output.
func (g *gate) sawOutput(p []byte) {
	for _, line := range g.out.feed(p) {
		for _, m := range messages(line) {
			if m.Method != "" {
				continue // a server-to-client request or notification
			}
			if k, ok := idKey(m.ID); ok {
				g.update(func() { delete(g.pending, k) })
			}
		}
	}
}

// awaitIdle blocks until no request is pending or the gate is closed.
func (g *gate) awaitIdle() {
	for {
		g.mu.Lock()
		idle := len(g.pending) == 0 || g.closed
		ch := g.changed
		g.mu.Unlock()
		if idle {
			return
		}
		<-ch
	}
}

func (g *gate) close() { g.update(func() { g.closed = true }) }

// lineSplitter cuts a byte stream into newline-terminated lines.
type lineSplitter struct {
	buf  []byte
	skip bool // the current line is too long to track
}

func (s *lineSplitter) feed(p []byte) [][]byte {
	var lines [][]byte
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			break
		}
		s.add(p[:i])
		if !s.skip {
			lines = append(lines, s.buf)
		}
		s.buf, s.skip = nil, false
		p = p[i+1:]
	}
	return lines
}

func (s *lineSplitter) add(p []byte) {
	if s.skip {
		return
	}
	if len(s.buf)+len(p) > maxTrackedLine {
		s.buf, s.skip = nil, true
		return
	}
	s.buf = append(s.buf, p...)
}

// rest returns an unterminated last line.
func (s *lineSplitter) rest() []byte {
	b := s.buf
	s.buf = nil
	if s.skip {
		return nil
	}
	return b
}

// gatedReader is the server's input. It reports requests to the gate
// before the SDK sees them and holds EOF back until the gate is idle.
type gatedReader struct {
	r io.Reader
	g *gate
}

func (r gatedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.g.sawInput(p[:n])
	if err == io.EOF {
		if last := r.g.in.rest(); len(last) > 0 {
			r.g.input(last)
		}
		if n > 0 {
			return n, nil // EOF again on the next call, after these bytes
		}
		r.g.awaitIdle()
	}
	return n, err
}

// Close ends any wait for answers and closes the underlying reader when
// it can, so closing the connection unblocks a pending read.
func (r gatedReader) Close() error {
	r.g.close()
	if c, ok := r.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// gatedWriter is the server's output. It reports answers to the gate once
// written; it never closes the underlying writer (os.Stdout is the
// caller's).
type gatedWriter struct {
	w io.Writer
	g *gate
}

func (w gatedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.g.sawOutput(p[:n])
	return n, err
}

func (gatedWriter) Close() error { return nil }
