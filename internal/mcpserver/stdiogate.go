package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTrackedLine bounds a line a gate buffers: the SDK's own limit
// (mcp.DefaultMaxLineLength), less room for its read-ahead. A longer input
// line is refused by the gate; a longer output line is left out of the
// accounting.
const maxTrackedLine = mcp.DefaultMaxLineLength - 64<<10

// readChunk is how much a gate reads from its input at a time.
const readChunk = 32 << 10

// gate stands between a stdio stream and the SDK, in both directions.
//
// It admits input line by line (see admission): a line the SDK would end
// the connection on, or a request before initialize, is answered by the
// gate with a JSON-RPC error and never reaches the SDK.
//
// It holds back the end of the input until every request read before it
// has been answered. The SDK cancels the calls in flight as soon as its
// reader sees EOF, so `printf '…' | switchboard mcp` would get no answers
// to its tool calls. The gate counts request ids on the way in and
// response ids on the way out, and passes EOF on only when none is
// pending (or the connection is closed). A notifications/cancelled
// forgets its request, which gets no answer.
type gate struct {
	mu      sync.Mutex
	pending map[string]bool
	changed chan struct{} // closed and replaced on every change
	closed  bool
	initID  string // the id of the initialize request
	version string // the protocol version the server answered initialize with

	wmu sync.Mutex // serializes writes to w: the SDK's and the gate's answers
	w   io.Writer

	// Owned by the reading side.
	in      lineSplitter
	admit   admission
	scratch []byte
	ready   []byte // admitted input the SDK has not read yet
	readErr error  // the input's error, returned once ready is drained

	out lineSplitter // owned by the writing side
}

// newGate returns a gate that writes its own answers to w (the stream the
// SDK writes to through gatedWriter).
func newGate(w io.Writer) *gate {
	return &gate{pending: map[string]bool{}, changed: make(chan struct{}), w: w}
}

// messages decodes one line as the SDK does (jsonrpc.DecodeMessage): a
// message or a batch of them; what the SDK cannot decode is left out (the
// admission refused it, or the SDK answers it). Decoding with another
// decoder than the SDK's lost requests the SDK answers: a duplicate key of
// another type ("method":3,"method":"ng") or params of an unexpected shape
// failed encoding/json, so the request was not counted as pending and EOF
// cut its answer off (found by FuzzStdioLine).
func messages(line []byte) []jsonrpc.Message {
	line = trimJSONSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] != '[' {
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil
		}
		return []jsonrpc.Message{m}
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) != nil {
		return nil
	}
	out := make([]jsonrpc.Message, 0, len(batch))
	for _, raw := range batch {
		if m, err := jsonrpc.DecodeMessage(raw); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// keyOf is the key of a decoded id: the SDK's own normalization (an id of
// 2.0 or 2.5 is answered as 2), so a request and its answer match.
func keyOf(id jsonrpc.ID) (string, bool) {
	if !id.IsValid() {
		return "", false
	}
	return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()), true
}

// cancelledKey is the key of the request a notifications/cancelled names.
func cancelledKey(params json.RawMessage) (string, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return "", false
	}
	return keyOf(id)
}

// idKey reports whether raw is an id (not absent, not null) and gives it
// a key in which 2 and 2.0 match and "2" does not (rawID checks ids with it).
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

// sawInput admits the complete lines of a chunk read from the input: it
// answers the lines it refuses and queues the others for the SDK. It
// returns the error of writing an answer.
func (g *gate) sawInput(p []byte) error {
	for _, l := range g.in.feed(p) {
		if err := g.admitLine(l); err != nil {
			return err
		}
	}
	return nil
}

// admitLine admits one input line.
func (g *gate) admitLine(l line) error {
	if l.tooLong {
		return g.answer(refusal{code: codeInvalidRequest,
			message: fmt.Sprintf("invalid request: a line is limited to %d bytes", maxTrackedLine)})
	}
	g.mu.Lock()
	answered := g.version
	g.mu.Unlock()
	if r := g.admit.check(l.b, answered, g.isPending); r != nil {
		return g.answer(*r)
	}
	g.input(l.b)
	g.ready = append(append(g.ready, l.b...), '\n')
	return nil
}

// isPending reports whether the request with key k awaits its answer.
func (g *gate) isPending(k string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pending[k]
}

// answer writes the gate's own answer to a line it refused.
func (g *gate) answer(r refusal) error {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	if _, err := g.w.Write(r.response()); err != nil {
		return fmt.Errorf("answer a refused line: %w", err)
	}
	return nil
}

// input records the client's requests and cancellations in an admitted
// line.
func (g *gate) input(line []byte) {
	for _, msg := range messages(line) {
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			continue // a response to a request of the server
		}
		switch {
		case req.Method == "notifications/cancelled":
			if k, ok := cancelledKey(req.Params); ok {
				g.update(func() { delete(g.pending, k) })
			}
		case req.IsCall():
			if k, ok := keyOf(req.ID); ok {
				g.update(func() {
					g.pending[k] = true
					if req.Method == "initialize" {
						g.initID = k
					}
				})
			}
		}
	}
}

// sawOutput records the responses in a chunk written to the output, and
// the protocol version the server answered initialize with.
func (g *gate) sawOutput(p []byte) {
	for _, l := range g.out.feed(p) {
		if l.tooLong {
			continue
		}
		for _, msg := range messages(l.b) {
			resp, ok := msg.(*jsonrpc.Response)
			if !ok {
				continue // a server-to-client request or notification
			}
			if k, ok := keyOf(resp.ID); ok {
				g.update(func() {
					delete(g.pending, k)
					if k == g.initID {
						g.version = protocolVersion(resp.Result)
					}
				})
			}
		}
	}
}

// protocolVersion reads the protocolVersion of initialize parameters or
// of its result.
func protocolVersion(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.ProtocolVersion
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

// line is one line of a stream, without its newline. A line too long to
// keep has tooLong set and no bytes.
type line struct {
	b       []byte
	tooLong bool
}

// lineSplitter cuts a byte stream into newline-terminated lines.
type lineSplitter struct {
	buf  []byte
	skip bool // the current line is too long to track
}

func (s *lineSplitter) feed(p []byte) []line {
	var lines []line
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			break
		}
		s.add(p[:i])
		lines = append(lines, line{b: s.buf, tooLong: s.skip})
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

// rest returns an unterminated last line, if there is one.
func (s *lineSplitter) rest() (line, bool) {
	l := line{b: s.buf, tooLong: s.skip}
	s.buf, s.skip = nil, false
	return l, len(l.b) > 0 || l.tooLong
}

// gatedReader is the server's input. The SDK reads only what the gate
// admitted, after the gate recorded its requests; EOF is held back until
// the gate is idle.
type gatedReader struct {
	r io.Reader
	g *gate
}

// Read is called by the SDK's one reading goroutine.
func (r gatedReader) Read(p []byte) (int, error) {
	g := r.g
	for len(g.ready) == 0 {
		if g.readErr != nil {
			if g.readErr == io.EOF {
				g.awaitIdle()
			}
			return 0, g.readErr
		}
		if g.scratch == nil {
			g.scratch = make([]byte, readChunk)
		}
		n, err := r.r.Read(g.scratch)
		if werr := g.sawInput(g.scratch[:n]); werr != nil {
			err = werr
		} else if err == io.EOF {
			if last, ok := g.in.rest(); ok {
				if werr := g.admitLine(last); werr != nil {
					err = werr
				}
			}
		}
		g.readErr = err
	}
	n := copy(p, g.ready)
	g.ready = g.ready[n:]
	return n, nil
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

// gatedWriter is the server's output (the gate's writer). It reports
// answers to the gate once written; it never closes the underlying writer
// (os.Stdout is the caller's).
type gatedWriter struct{ g *gate }

func (w gatedWriter) Write(p []byte) (int, error) {
	w.g.wmu.Lock()
	n, err := w.g.w.Write(p)
	w.g.wmu.Unlock()
	w.g.sawOutput(p[:n])
	return n, err
}

func (gatedWriter) Close() error { return nil }
