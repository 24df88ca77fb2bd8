package gateway

import (
	"fmt"
	"io"
	"net/http"

	"github.com/switchboard-go/switchboard/internal/a2a"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Request body limits of the routes (docs/gateway.md#request-body-limits).
// Each route's limit is written beside it in routes(), near the largest
// body the route accepts; gateway.limits.maxPayload caps them all.
const (
	// noBody: routes that read no body (reads, the WebSocket upgrade,
	// the web UI).
	noBody int64 = 0
	// smallBody: routes whose body holds a few short fields (patch).
	smallBody = api.EnvelopeBytes
	// ignoredBody: routes that read no body but whose clients may send
	// one (`{}` to reset, delete or cancel); see route.unread.
	ignoredBody int64 = 1 << 10
)

// textBody: routes carrying one message without files (sessions send).
var textBody = api.TextBodyBytes(api.MessageChars)

// spawnBody is the limit of routes that may carry a sessions_spawn with
// attachments (spawn, a tool call, /mcp): its task and the attachments
// tools.sessions_spawn.attachments allows.
func (s *Server) spawnBody() int64 {
	lim := attachments.LimitsFromConfig(s.attachmentsConfig())
	return api.SpawnBodyBytes(lim.MaxTotalBytes, lim.MaxFiles)
}

// sendBody is the limit of routes carrying a message with files (POST
// /api/send, the HTTP chat): a message and the files the attachment limits
// allow, counted as SpawnBodyBytes counts them.
func (s *Server) sendBody() int64 {
	lim := attachments.LimitsFromConfig(s.attachmentsConfig())
	return textBody + 2*lim.MaxTotalBytes + int64(lim.MaxFiles)*api.AttachmentFileBytes
}

// attachmentsConfig is tools.sessions_spawn.attachments (the defaults
// without a configuration).
func (s *Server) attachmentsConfig() config.AttachmentsConfig {
	if s.opts.Config == nil {
		return config.AttachmentsConfig{}
	}
	return s.opts.Config.Tools.SessionsSpawn.Attachments
}

// MCPBodyLimit is the request body limit of /mcp under cfg (the MCP
// handler's own limit is set to it too): a sessions_spawn with the
// attachments cfg allows, capped by gateway.limits.maxPayload.
func MCPBodyLimit(cfg *config.Config) int64 {
	lim := attachments.LimitsFromConfig(cfg.Tools.SessionsSpawn.Attachments)
	return min(MaxPayload(cfg.Gateway.Limits), api.SpawnBodyBytes(lim.MaxTotalBytes, lim.MaxFiles))
}

// bodyTooLarge is the message of a 413: it names the limit.
func bodyTooLarge(limit int64) string {
	return fmt.Sprintf("request body too large (max %d bytes)", limit)
}

// route is one HTTP route: its pattern, its body limit and its handler.
type route struct {
	pattern string
	limit   int64
	h       http.Handler
	// jsonrpc: a refusal is written as a JSON-RPC error (A2A).
	jsonrpc bool
	// unread: the handler reads no body, but clients may send one (`{}`);
	// limited reads it, so a body over the limit is refused all the same.
	unread bool
}

// limited bounds rt's request bodies: a body declared larger than the
// limit is refused with 413 before a byte is read, and one that turns out
// larger while it is read is cut off at the limit (the handler's read
// fails with *http.MaxBytesError, answered 413 too). A route that takes
// no body refuses any.
func (s *Server) limited(rt route) http.Handler {
	limit := min(rt.limit, s.opts.MaxPayload)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit || (limit == 0 && r.ContentLength != 0) {
			err := &http.MaxBytesError{Limit: limit}
			if rt.jsonrpc {
				recordCause(w, err)
				a2a.WriteRefusal(w, http.StatusRequestEntityTooLarge, domain.CodeInvalid, bodyTooLarge(limit))
				return
			}
			writeError(w, err)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			if rt.unread {
				if _, err := io.Copy(io.Discard, r.Body); err != nil {
					writeError(w, err)
					return
				}
			}
		}
		rt.h.ServeHTTP(w, r)
	})
}
