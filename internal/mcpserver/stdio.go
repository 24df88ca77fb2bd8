package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
)

// stdioDrain bounds how long RunStdio waits for cancelled tool calls.
const stdioDrain = 10 * time.Second

// RunStdio serves MCP over newline-delimited JSON-RPC on in and out,
// calling every tool as p (`switchboard mcp --session KEY` is the
// operator acting as KEY, by default "main"). It returns nil when in
// reaches EOF (the client went away) or ctx ends, after the tool calls it
// started have returned. Requests read before EOF are answered first, so
// a script can pipe its requests in and read every answer. A line that is
// not JSON, or a request before initialize, gets a JSON-RPC error and the
// server goes on with the next line (see admission).
//
// When ctx ends, running tool calls are cancelled and in is closed if it
// is an io.Closer; a reader that cannot be unblocked (a terminal's stdin)
// keeps the SDK's read goroutine until the process exits.
func (s *Server) RunStdio(ctx context.Context, p api.Principal, in io.Reader, out io.Writer) error {
	owner := newCalls(ctx)
	srv, w := s.newMCPServer(p, owner, false)
	if s.logs != nil {
		logs := &stdioLogs{tee: s.logs, attached: map[*mcp.ServerSession]func(){}}
		srv.AddReceivingMiddleware(logs.middleware)
		defer logs.close()
	}
	if w != nil {
		pm := startPump(s.events, s.log)
		defer pm.close()
		pm.add(w)
	}
	g := newGate(out)
	err := srv.Run(ctx, &mcp.IOTransport{Reader: gatedReader{in, g}, Writer: gatedWriter{g}})
	drainCtx, cancel := context.WithTimeout(context.Background(), stdioDrain)
	defer cancel()
	if cerr := owner.close(drainCtx); cerr != nil {
		s.log.Warn("mcp stdio: tool calls still running", "err", cerr)
	}
	switch {
	// A notification written after the client closed its end fails with a
	// closed pipe: the client went away, as with EOF.
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrClosedPipe), ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil
	}
	return fmt.Errorf("mcp stdio: %w", err)
}
