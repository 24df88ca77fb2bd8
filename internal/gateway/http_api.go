package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// Bounds of the HTTP API's query parameters.
const (
	runsListDefault = 50
	runsListMax     = 1000
	maxWait         = time.Hour
)

// readBody reads a JSON request body of at most MaxPayload bytes into dst.
// An empty body decodes as {}. Unknown fields are errors.
func (s *Server) readBody(r *http.Request, dst any) error {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.opts.MaxPayload))
	if err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		b = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return domain.Invalid("invalid request body: %s", describeJSONError(err))
	}
	return nil
}

// queryInt reads an optional integer query parameter of at least min.
func queryInt(r *http.Request, name string, min int64) (*int64, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, domain.Invalid("invalid query parameter %s: want a whole number (got %q)", name, v)
	}
	if n < min {
		return nil, domain.Invalid("invalid query parameter %s: must be at least %d (got %d)", name, min, n)
	}
	return &n, nil
}

// queryBool reads an optional boolean query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, domain.Invalid("invalid query parameter %s: want true or false (got %q)", name, v)
	}
	return b, nil
}

// queryList reads a comma-separated query parameter.
func queryList(r *http.Request, name string) []string {
	var out []string
	for _, v := range r.URL.Query()[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// queryDuration reads a wait duration: Go syntax ("30s", "2m") or seconds.
func queryDuration(r *http.Request, name string) (time.Duration, bool, error) {
	v := strings.TrimSpace(r.URL.Query().Get(name))
	if v == "" {
		return 0, false, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		n, err2 := strconv.ParseFloat(v, 64)
		if err2 != nil {
			return 0, false, domain.Invalid("invalid query parameter %s: want a duration such as 30s (got %q)", name, v)
		}
		d = time.Duration(n * float64(time.Second))
	}
	if d < 0 {
		return 0, false, domain.Invalid("invalid query parameter %s: must not be negative", name)
	}
	return min(d, maxWait), true, nil
}

func (s *Server) apiListSessions(r *http.Request, g grant) (any, error) {
	req, err := s.requester(r.Context(), g, r.URL.Query().Get("as"))
	if err != nil {
		return nil, err
	}
	var p engine.ListParams
	if n, err := queryInt(r, "limit", 1); err != nil {
		return nil, err
	} else if n != nil {
		p.Limit = int(min(*n, sessionsListMax))
	}
	if n, err := queryInt(r, "activeMinutes", 1); err != nil {
		return nil, err
	} else if n != nil {
		p.ActiveMinutes = int(min(*n, 525_600))
	}
	if n, err := queryInt(r, "messages", 0); err != nil {
		return nil, err
	} else if n != nil {
		p.MessageLimit = int(min(*n, 20))
	}
	p.Kinds = queryList(r, "kinds")
	q := r.URL.Query()
	p.AgentID, p.Search, p.Label = q.Get("agent"), q.Get("search"), q.Get("label")
	if sb := q.Get("spawnedBy"); sb != "" {
		key, err := s.eng.CanonicalKey(r.Context(), sb)
		if err != nil {
			return nil, err
		}
		p.SpawnedBy = key
	}
	if p.IncludeArchived, err = queryBool(r, "archived"); err != nil {
		return nil, err
	}
	return s.eng.ListSessionsR(r.Context(), req, p)
}

func (s *Server) apiHistory(r *http.Request, g grant) (any, error) {
	req, err := s.requester(r.Context(), g, r.URL.Query().Get("as"))
	if err != nil {
		return nil, err
	}
	p := engine.HistoryParams{SessionKey: r.PathValue("key")}
	if n, err := queryInt(r, "limit", 1); err != nil {
		return nil, err
	} else if n != nil {
		p.Limit = int(min(*n, 1000))
	}
	if n, err := queryInt(r, "before", 1); err != nil {
		return nil, err
	} else if n != nil {
		p.BeforeSeq = *n
	}
	if p.IncludeTools, err = queryBool(r, "includeTools"); err != nil {
		return nil, err
	}
	if p.Raw, err = queryBool(r, "raw"); err != nil {
		return nil, err
	}
	if p.Raw && !req.Operator {
		return nil, domain.Invalid("raw history is only for operators (drop as= or raw=)")
	}
	return s.eng.HistoryR(r.Context(), req, p)
}

type sendBody struct {
	Message        string `json:"message"`
	TimeoutSeconds *int   `json:"timeoutSeconds"`
	IdempotencyKey string `json:"idempotencyKey"`
	As             string `json:"as"`
}

func (s *Server) apiSend(r *http.Request, g grant) (any, error) {
	var b sendBody
	if err := s.readBody(r, &b); err != nil {
		return nil, err
	}
	if b.TimeoutSeconds != nil && (*b.TimeoutSeconds < 0 || *b.TimeoutSeconds > 3600) {
		return nil, domain.Invalid("invalid request body: timeoutSeconds must be between 0 and 3600 (got %d)", *b.TimeoutSeconds)
	}
	req, err := s.requester(r.Context(), g, b.As)
	if err != nil {
		return nil, err
	}
	return s.eng.SendR(r.Context(), req, engine.SendParams{SessionKey: r.PathValue("key"), Message: b.Message,
		TimeoutSeconds: b.TimeoutSeconds, IdempotencyKey: b.IdempotencyKey})
}

type chatBody struct {
	Message        string `json:"message"`
	IdempotencyKey string `json:"idempotencyKey"`
	Model          string `json:"model"`
	Thinking       string `json:"thinking"`
	TimeoutSeconds int    `json:"timeoutSeconds"`
	Channel        string `json:"channel"`
	SenderID       string `json:"senderId"`
}

// ChatResponse is the result of POST /api/sessions/{key}/chat: the run the
// message started, or the answer of a command (/new, /stop, …).
type ChatResponse struct {
	Run        *domain.Run `json:"run,omitempty"`
	SessionKey string      `json:"sessionKey"`
	Command    string      `json:"command,omitempty"`
	Reply      string      `json:"reply,omitempty"`
	Created    bool        `json:"created"`
}

func (s *Server) apiChat(r *http.Request, g grant) (any, error) {
	var b chatBody
	if err := s.readBody(r, &b); err != nil {
		return nil, err
	}
	if b.TimeoutSeconds < 0 {
		return nil, domain.Invalid("invalid request body: timeoutSeconds must be at least 0")
	}
	if err := commandScope(g.scopes, b.Message); err != nil {
		return nil, err
	}
	wait, waiting, err := queryDuration(r, "wait")
	if err != nil {
		return nil, err
	}
	res, err := s.eng.ChatR(r.Context(), engine.ChatRequest{SessionKey: r.PathValue("key"), Message: b.Message,
		Channel: b.Channel, SenderID: b.SenderID, IdempotencyKey: b.IdempotencyKey, Model: b.Model,
		Thinking: b.Thinking, TimeoutSeconds: b.TimeoutSeconds})
	if err != nil {
		return nil, err
	}
	out := ChatResponse{SessionKey: res.SessionKey, Command: res.Command, Reply: res.Reply, Created: res.Created}
	if res.Command == "" {
		run := res.Run
		if waiting {
			if run, err = s.eng.WaitR(r.Context(), run.ID, wait); err != nil {
				return nil, err
			}
		}
		out.Run = &run
	}
	return out, nil
}

func (s *Server) apiPatch(r *http.Request, g grant) (any, error) {
	var raw map[string]json.RawMessage
	if err := s.readBody(r, &raw); err != nil {
		return nil, err
	}
	if _, ok := raw["key"]; ok {
		return nil, domain.Invalid("invalid patch params: the key is in the URL, not the body")
	}
	p, err := parsePatch("patch", raw)
	if err != nil {
		return nil, err
	}
	return s.eng.PatchR(r.Context(), r.PathValue("key"), p)
}

func (s *Server) apiReset(r *http.Request, g grant) (any, error) {
	return s.eng.ResetR(r.Context(), r.PathValue("key"))
}

func (s *Server) apiDelete(r *http.Request, g grant) (any, error) {
	key, err := s.eng.CanonicalKey(r.Context(), r.PathValue("key"))
	if err != nil {
		return nil, err
	}
	if err := s.eng.DeleteR(r.Context(), key); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "key": key, "deleted": true}, nil
}

// apiSpawn is sessions_spawn over HTTP: the body holds the tool's
// parameters plus `as` (the requester session; none = operator acting as
// the default agent's main session).
func (s *Server) apiSpawn(r *http.Request, g grant) (any, error) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.opts.MaxPayload))
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, domain.Invalid("invalid request body: want a JSON object of sessions_spawn parameters: %s", describeJSONError(err))
	}
	var as string
	if v, ok := raw["as"]; ok {
		if err := json.Unmarshal(v, &as); err != nil {
			return nil, domain.Invalid("invalid request body: as must be a string")
		}
		delete(raw, "as")
	}
	args, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	out := s.eng.CallTool(r.Context(), g.principal(as), engine.ToolSessionsSpawn, args)
	if out.IsError {
		return nil, toolError(out)
	}
	return out.Payload, nil
}

func (s *Server) apiListRuns(r *http.Request, g grant) (any, error) {
	q := domain.RunQuery{Limit: runsListDefault, Statuses: queryList(r, "status"), Kinds: queryList(r, "kind"),
		ParentRunID: r.URL.Query().Get("parent"), SessionKey: r.URL.Query().Get("session")}
	if n, err := queryInt(r, "limit", 1); err != nil {
		return nil, err
	} else if n != nil {
		q.Limit = int(min(*n, runsListMax))
	}
	for _, st := range q.Statuses {
		switch st {
		case domain.RunQueued, domain.RunRunning, domain.RunOK, domain.RunError, domain.RunTimeout, domain.RunCancelled:
		default:
			return nil, domain.Invalid("invalid query parameter status: %q is not a run status (queued|running|ok|error|timeout|cancelled)", st)
		}
	}
	runs, err := s.eng.ListRunsR(r.Context(), q)
	if err != nil {
		return nil, err
	}
	if runs == nil {
		runs = []domain.Run{}
	}
	return map[string]any{"runs": runs}, nil
}

func (s *Server) apiRun(r *http.Request, g grant) (any, error) {
	wait, waiting, err := queryDuration(r, "wait")
	if err != nil {
		return nil, err
	}
	if waiting {
		return s.eng.WaitR(r.Context(), r.PathValue("id"), wait)
	}
	return s.eng.GetRunR(r.Context(), r.PathValue("id"))
}

func (s *Server) apiCancelRun(r *http.Request, g grant) (any, error) {
	return s.eng.CancelRunR(r.Context(), r.PathValue("id"))
}

func (s *Server) apiAgents(r *http.Request, g grant) (any, error) {
	req, err := s.requester(r.Context(), g, r.URL.Query().Get("as"))
	if err != nil {
		return nil, err
	}
	return s.eng.AgentsListR(req), nil
}

// ToolResponse is the result of POST /api/tools/{name}.
type ToolResponse struct {
	IsError bool `json:"isError"`
	Result  any  `json:"result"`
}

// apiTool calls a session tool; the body is the tool's arguments and the
// requester comes from the X-Switchboard-As header or the `as` query.
func (s *Server) apiTool(r *http.Request, g grant) (any, error) {
	args, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.opts.MaxPayload))
	if err != nil {
		return nil, err
	}
	as := r.Header.Get(HeaderAs)
	if as == "" {
		as = r.URL.Query().Get("as")
	}
	out := s.eng.CallTool(r.Context(), g.principal(orDefault(as, "main")), r.PathValue("name"), args)
	return ToolResponse{IsError: out.IsError, Result: out.Payload}, nil
}
