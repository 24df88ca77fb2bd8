package cli

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/switchboard-go/switchboard/internal/mcpserver"
)

// logFormat is --log-format: text (default) or json.
type logFormat struct{ v string }

func (f *logFormat) String() string { return f.v }

func (f *logFormat) Set(s string) error {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "text", "json":
		f.v = s
		return nil
	}
	return fmt.Errorf("must be text or json (got %q)", s)
}

// logLevel is --log-level: debug, info, warn or error; set says it was
// given (it then wins over --verbose and the command's default).
type logLevel struct {
	v   slog.Level
	set bool
}

func (l *logLevel) String() string {
	if !l.set {
		return ""
	}
	return strings.ToLower(l.v.String())
}

func (l *logLevel) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		l.v = slog.LevelDebug
	case "info":
		l.v = slog.LevelInfo
	case "warn", "warning":
		l.v = slog.LevelWarn
	case "error":
		l.v = slog.LevelError
	default:
		return fmt.Errorf("must be debug, info, warn or error (got %q)", s)
	}
	l.set = true
	return nil
}

// level is the effective log level: --log-level, else debug with
// --verbose, else info for a process that serves (the gateway: its start,
// stop and recovery are worth a line) and warn for commands, whose stdout
// is their output and whose stderr stays quiet unless something is wrong.
func (e *env) level() slog.Level {
	switch {
	case e.logLevel.set:
		return e.logLevel.v
	case e.verbose:
		return slog.LevelDebug
	case e.serving:
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// logger is the command's logger: log/slog on stderr, text or JSON
// (--log-format), at level(). It is built once per command, after the
// command knows whether it serves.
func (e *env) logger() *slog.Logger {
	if e.log != nil {
		return e.log
	}
	opts := &slog.HandlerOptions{Level: e.level()}
	var h slog.Handler
	if e.logFormat.v == "json" {
		h = slog.NewJSONHandler(e.stderr, opts)
	} else {
		h = slog.NewTextHandler(e.stderr, opts)
	}
	e.logs = mcpserver.NewLogTee()
	e.log = slog.New(e.logs.Handler(h))
	return e.log
}

// lockedWriter serializes writes to a stream shared by the logger's
// goroutines and the command's own messages.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
