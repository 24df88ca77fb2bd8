package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Sessions is what resources, prompts and completions read: the gate's
// own methods (api.Service), so a resource shows exactly what
// sessions_list and sessions_history would show the same principal.
type Sessions interface {
	ListSessions(ctx context.Context, p api.Principal, req api.ListRequest) (api.ListResult, error)
	History(ctx context.Context, p api.Principal, req api.HistoryRequest) (api.HistoryResult, error)
	GetSession(ctx context.Context, p api.Principal, ref string) (api.SessionRow, error)
	AgentsList(ctx context.Context, p api.Principal) (api.AgentsListResult, error)
}

// Events are the engine's live events (engine.Engine.Subscribe): a
// channel and the function that ends the subscription; and the canonical
// key the events of a session carry, resolved and checked for p as
// sessions.messages.subscribe does (engine.Engine.SubscribeKey).
type Events interface {
	Subscribe(buffer int) (<-chan domain.Event, func())
	SubscribeKey(ctx context.Context, p api.Principal, ref string) (string, error)
}

var (
	_ Sessions = api.Service(nil)
	_ Sessions = RemoteCaller{}
)

// The session resource URI scheme: switchboard://session/<key>, the key
// path-escaped, is a session's transcript as Markdown;
// ?format=json is the same transcript as sessions_history's JSON payload.
// ?limit=N asks for the newest N messages (sessions_history's limit).
const (
	uriScheme       = "switchboard"
	uriHost         = "session"
	uriPrefix       = uriScheme + "://" + uriHost + "/"
	sessionTemplate = uriPrefix + "{sessionKey}{?format,limit}"

	mimeMarkdown = "text/markdown"
	mimeJSON     = "application/json"
)

// sessionURI is the Markdown resource URI of a session key.
func sessionURI(key string) string { return uriPrefix + url.PathEscape(key) }

// resourceRef is a parsed session resource URI.
type resourceRef struct {
	Key   string
	JSON  bool
	Limit int
}

// parseSessionURI reads a session resource URI. The error names what is
// wrong with it.
func parseSessionURI(raw string) (resourceRef, error) {
	if !strings.HasPrefix(raw, uriPrefix) {
		return resourceRef{}, domain.Invalid("uri: want %s<sessionKey>, got %q", uriPrefix, raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return resourceRef{}, domain.Invalid("uri: %v", err)
	}
	key, err := url.PathUnescape(strings.TrimPrefix(u.EscapedPath(), "/"))
	if err != nil {
		return resourceRef{}, domain.Invalid("uri: session key: %v", err)
	}
	if key == "" {
		return resourceRef{}, domain.Invalid("uri: no session key after %s", uriPrefix)
	}
	if n := int64(len(key)); n > api.KeyChars.Max {
		return resourceRef{}, domain.Invalid("uri: session key is %d characters, at most %d", n, api.KeyChars.Max)
	}
	ref := resourceRef{Key: key}
	q := u.Query()
	switch f := q.Get("format"); f {
	case "", "markdown":
	case "json":
		ref.JSON = true
	default:
		return resourceRef{}, domain.Invalid("uri: format %q: use markdown or json", f)
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil || n < api.HistoryLimit.Min || n > api.HistoryLimit.Max {
			return resourceRef{}, domain.Invalid("uri: limit %q: want %d to %d", l, api.HistoryLimit.Min, api.HistoryLimit.Max)
		}
		ref.Limit = int(n)
	}
	return ref, nil
}

// listCursor is the opaque cursor of resources/list: the offset of the
// next page in the principal's session list.
func listCursor(offset int) string { return "o" + strconv.Itoa(offset) }

func parseListCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(c, "o"))
	if !strings.HasPrefix(c, "o") || err != nil || n < 0 {
		return 0, domain.Invalid("cursor: %q is not a cursor this server returned", c)
	}
	return n, nil
}

// describe is a one-line description of a session row.
func describe(r api.SessionRow) string {
	parts := []string{r.Kind}
	if r.AgentID != "" {
		parts = append(parts, "agent "+r.AgentID)
	}
	if r.Label != "" {
		parts = append(parts, fmt.Sprintf("label %q", r.Label))
	}
	if r.SpawnedBy != "" {
		parts = append(parts, "spawned by "+r.SpawnedBy)
	}
	return "switchboard session (" + strings.Join(parts, ", ") + ")"
}
