package mcpserver

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logQueue bounds the log records waiting for one MCP session; a client
// that does not keep up loses records rather than slowing the server.
const logQueue = 256

// LogTee copies the process's log records to the MCP sessions that asked
// for them with logging/setLevel (over stdio, where a session outlives a
// request). Wrap the process's handler with Handler and pass the tee in
// Options.Logs.
type LogTee struct {
	mu    sync.Mutex
	sinks map[*logSink]bool
	n     atomic.Int32
}

// NewLogTee returns a tee with no sessions.
func NewLogTee() *LogTee { return &LogTee{sinks: map[*logSink]bool{}} }

// Handler wraps next: records go to next as before, and to the sessions.
func (t *LogTee) Handler(next slog.Handler) slog.Handler { return &teeHandler{next: next, tee: t} }

// teeHandler is the wrapped handler; ops replay WithAttrs and WithGroup on
// each session's handler.
type teeHandler struct {
	next slog.Handler
	tee  *LogTee
	ops  []func(slog.Handler) slog.Handler
}

func (h *teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l) || h.tee.n.Load() > 0
}

func (h *teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r)
	}
	if h.tee.n.Load() > 0 {
		h.tee.send(logRecord{r: r.Clone(), ops: h.ops})
	}
	return err
}

func (h *teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &teeHandler{next: h.next.WithAttrs(as), tee: h.tee,
		ops: append(slices.Clip(h.ops), func(x slog.Handler) slog.Handler { return x.WithAttrs(as) })}
}

func (h *teeHandler) WithGroup(name string) slog.Handler {
	return &teeHandler{next: h.next.WithGroup(name), tee: h.tee,
		ops: append(slices.Clip(h.ops), func(x slog.Handler) slog.Handler { return x.WithGroup(name) })}
}

// untee is the handler without the tee: the SDK logs through it, so a log
// notification it sends is not itself sent as one.
func untee(l *slog.Logger) *slog.Logger {
	if h, ok := l.Handler().(*teeHandler); ok {
		return slog.New(h.next)
	}
	return l
}

type logRecord struct {
	r   slog.Record
	ops []func(slog.Handler) slog.Handler
}

func (t *LogTee) send(rec logRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := range t.sinks {
		select {
		case s.ch <- rec:
		default:
		}
	}
}

// logSink is one session's queue and the goroutine that drains it into
// notifications/message.
type logSink struct {
	ch   chan logRecord
	done chan struct{}
}

// attach starts sending records to ss (at the level it set); the returned
// function detaches it and waits for its goroutine.
func (t *LogTee) attach(ss *mcp.ServerSession) func() {
	s := &logSink{ch: make(chan logRecord, logQueue), done: make(chan struct{})}
	lh := mcp.NewLoggingHandler(ss, &mcp.LoggingHandlerOptions{LoggerName: "switchboard"})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(s.done)
		for rec := range s.ch {
			var h slog.Handler = lh
			for _, op := range rec.ops {
				h = op(h)
			}
			if h.Enabled(ctx, rec.r.Level) {
				_ = h.Handle(ctx, rec.r)
			}
		}
	}()
	t.mu.Lock()
	t.sinks[s] = true
	t.n.Add(1)
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(t.sinks, s)
		t.n.Add(-1)
		close(s.ch)
		t.mu.Unlock()
		cancel()
		<-s.done
	}
}

// stdioLogs attaches the sessions of one stdio server that set a log
// level, and detaches them all when the server stops.
type stdioLogs struct {
	tee *LogTee

	mu       sync.Mutex
	attached map[*mcp.ServerSession]func()
}

// middleware attaches a session once its logging/setLevel succeeded.
func (l *stdioLogs) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "logging/setLevel" || err != nil {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, err
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, ok := l.attached[ss]; !ok {
			l.attached[ss] = l.tee.attach(ss)
		}
		return res, err
	}
}

func (l *stdioLogs) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ss, detach := range l.attached {
		detach()
		delete(l.attached, ss)
	}
}
