package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// MaxRequestBytes bounds one JSON-RPC request: the largest message
// (api.MessageChars) in JSON with room for the envelope. The gateway
// mounts the endpoint with this limit (capped by its payload limit).
var MaxRequestBytes = api.TextBodyBytes(api.MessageChars)

// generation is the protocol generation of a call, decided by its method
// name.
type generation int

const (
	gen10 generation = iota
	gen03
)

// call is one decoded JSON-RPC request and who makes it.
type call struct {
	id     json.RawMessage
	method string
	params json.RawMessage
	p      api.Principal
	agent  Agent
	gen    generation
}

// requestedVersion applies the A2A-Version negotiation: the header (or
// the query parameter of the same name) names the version the client
// speaks. It returns gen10 or gen03 for an explicit 1.x or 0.3.x, ok false
// with no header, and VersionNotSupportedError for any other version.
func requestedVersion(r *http.Request) (gen generation, explicit bool, e *rpcError) {
	v := strings.TrimSpace(r.Header.Get(wire.VersionHeader))
	if v == "" {
		v = strings.TrimSpace(r.URL.Query().Get(wire.VersionHeader))
	}
	switch {
	case v == "":
		return gen10, false, nil
	case v == "1" || v == "1.0" || strings.HasPrefix(v, "1.0."):
		return gen10, true, nil
	case v == "0.3" || strings.HasPrefix(v, "0.3."):
		return gen03, true, nil
	}
	e = newError(wire.CodeVersionNotSupported, domain.CodeInvalid,
		"A2A-Version %q is not supported (this agent speaks %s and %s)", clip(v), wire.Version, wire.LegacyVersion)
	e.obj.Data = map[string]any{"code": domain.CodeInvalid, "supportedVersions": []string{wire.Version, wire.LegacyVersion}}
	return 0, false, e
}

// methodGen is the generation a method name belongs to (ok false: not an
// A2A method switchboard knows).
func methodGen(method string) (generation, bool) {
	switch method {
	case wire.MethodSendMessage, wire.MethodSendStreamingMessage, wire.MethodGetTask, wire.MethodCancelTask,
		wire.MethodSubscribeToTask, wire.MethodListTasks, wire.MethodGetExtendedAgentCard,
		wire.MethodCreatePushConfig, wire.MethodGetPushConfig, wire.MethodListPushConfigs, wire.MethodListPushConfig, wire.MethodDeletePushConfig:
		return gen10, true
	case wire.LegacyMethodSendMessage, wire.LegacyMethodStreamMessage, wire.LegacyMethodGetTask,
		wire.LegacyMethodCancelTask, wire.LegacyMethodResubscribe, wire.LegacyMethodExtendedCard,
		wire.LegacyMethodSetPushConfig, wire.LegacyMethodGetPushConfig, wire.LegacyMethodListPushConfig, wire.LegacyMethodDeletePushConfig:
		return gen03, true
	}
	return gen10, false
}

// serveRPC answers one JSON-RPC call on agent a's endpoint.
func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request, a Agent) {
	// The answer says the version it is in: 1.0, or 0.3 for a 0.3 method.
	w.Header().Set(wire.VersionHeader, wire.Version)
	p, ok := s.principal(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		msg := "unauthorized: send Authorization: Bearer <gateway token>"
		if r.Header.Get("Authorization") != "" {
			msg = "unauthorized: gateway token mismatch"
		}
		e := newError(wire.CodeInvalidRequest, "unauthorized", "%s", msg)
		e.status = http.StatusUnauthorized
		writeRPC(w, nil, nil, e)
		return
	}
	if r.ContentLength > MaxRequestBytes {
		// Refused before a byte of it is read.
		e := newError(wire.CodeInvalidRequest, domain.CodeInvalid, "request body too large (max %d bytes)", MaxRequestBytes)
		e.status = http.StatusRequestEntityTooLarge
		writeRPC(w, nil, nil, e)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			e := newError(wire.CodeInvalidRequest, domain.CodeInvalid, "request body too large (max %d bytes)", mbe.Limit)
			e.status = http.StatusRequestEntityTooLarge
			writeRPC(w, nil, nil, e)
			return
		}
		writeRPC(w, nil, nil, newError(wire.CodeParseError, domain.CodeInvalid, "reading the request: %v", err))
		return
	}
	var req wire.Request
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		writeRPC(w, nil, nil, envelopeError(body, err))
		return
	}
	if req.JSONRPC != wire.JSONRPCVersion {
		writeRPC(w, req.ID, nil, newError(wire.CodeInvalidRequest, domain.CodeInvalid, `jsonrpc must be "2.0"`))
		return
	}
	if !validID(req.ID) {
		writeRPC(w, nil, nil, newError(wire.CodeInvalidRequest, domain.CodeInvalid, "id must be a string, a number or null"))
		return
	}
	asked, explicit, e := requestedVersion(r)
	if e != nil {
		writeRPC(w, req.ID, nil, e)
		return
	}
	// A request that names its version is served with that version's
	// semantics: the other generation's method names do not exist in it.
	// Without the header (0.3 by the specification) both are accepted: a
	// 1.0 method name cannot be mistaken.
	g, known := methodGen(req.Method)
	if known && g == gen03 {
		w.Header().Set(wire.VersionHeader, wire.LegacyVersion)
	}
	if known && explicit && g != asked {
		use := map[generation]string{gen10: "1.0", gen03: "0.3"}
		writeRPC(w, req.ID, nil, newError(wire.CodeMethodNotFound, domain.CodeNotFound,
			"method %q belongs to A2A %s but this request says A2A-Version %s: send A2A-Version: %s, or use the %s method",
			req.Method, use[g], use[asked], use[g], use[asked]))
		return
	}
	c := &call{id: req.ID, method: req.Method, params: req.Params, p: p, agent: a}
	switch req.Method {
	case wire.MethodSendMessage:
		s.sendMessage(w, r, c)
	case wire.MethodSendStreamingMessage:
		s.sendStreaming(w, r, c)
	case wire.MethodGetTask:
		s.getTask(w, r, c)
	case wire.MethodCancelTask:
		s.cancelTask(w, r, c)
	case wire.MethodSubscribeToTask:
		s.subscribe(w, r, c)
	case wire.LegacyMethodSendMessage:
		c.gen = gen03
		s.sendMessage(w, r, c)
	case wire.LegacyMethodStreamMessage:
		c.gen = gen03
		s.sendStreaming(w, r, c)
	case wire.LegacyMethodGetTask:
		c.gen = gen03
		s.getTask(w, r, c)
	case wire.LegacyMethodCancelTask:
		c.gen = gen03
		s.cancelTask(w, r, c)
	case wire.LegacyMethodResubscribe:
		c.gen = gen03
		s.subscribe(w, r, c)
	case wire.MethodListTasks:
		s.listTasks(w, r, c)
	case wire.MethodGetExtendedAgentCard, wire.LegacyMethodExtendedCard:
		// Reached only with a principal (401 above): switchboard reserves
		// no skills for authenticated callers, so the extended card is the
		// agent's card, answered to the clients that ask for it.
		writeRPC(w, req.ID, s.Card(s.baseURL(r), a), nil)
	default:
		if strings.Contains(strings.ToLower(req.Method), "pushnotification") {
			s.servePush(w, r, c)
			return
		}
		writeRPC(w, req.ID, nil, newError(wire.CodeMethodNotFound, domain.CodeNotFound,
			"method %q not found (1.0: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask, GetExtendedAgentCard, CreateTaskPushNotificationConfig, GetTaskPushNotificationConfig, ListTaskPushNotificationConfigs, DeleteTaskPushNotificationConfig; 0.3: message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe, agent/getAuthenticatedExtendedCard, tasks/pushNotificationConfig/set|get|list|delete)", clip(req.Method)))
	}
}

// servePush answers the push notification config methods.
func (s *Server) servePush(w http.ResponseWriter, r *http.Request, c *call) {
	if s.opts.Push == nil {
		writeRPC(w, c.id, nil, pushUnsupported())
		return
	}
	switch c.method {
	case wire.MethodCreatePushConfig, wire.LegacyMethodSetPushConfig:
		c.gen = genOf(c.method)
		s.createPush(w, r, c)
	case wire.MethodGetPushConfig, wire.LegacyMethodGetPushConfig:
		c.gen = genOf(c.method)
		s.getPush(w, r, c)
	case wire.MethodListPushConfigs, wire.MethodListPushConfig, wire.LegacyMethodListPushConfig:
		c.gen = genOf(c.method)
		s.listPush(w, r, c)
	case wire.MethodDeletePushConfig, wire.LegacyMethodDeletePushConfig:
		c.gen = genOf(c.method)
		s.deletePush(w, r, c)
	default:
		writeRPC(w, c.id, nil, newError(wire.CodeMethodNotFound, domain.CodeNotFound,
			"method %q not found (push configs: CreateTaskPushNotificationConfig, GetTaskPushNotificationConfig, ListTaskPushNotificationConfigs, DeleteTaskPushNotificationConfig; 0.3: tasks/pushNotificationConfig/set|get|list|delete)", clip(c.method)))
	}
}

// genOf is the generation of a known method.
func genOf(method string) generation {
	g, _ := methodGen(method)
	return g
}

// validID reports whether a JSON-RPC id is a string, a number or null.
func validID(id json.RawMessage) bool {
	t := bytes.TrimSpace(id)
	if len(t) == 0 || string(t) == "null" {
		return true
	}
	switch t[0] {
	case '"':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// decodeParams decodes params. Unknown fields are ignored, as ProtoJSON
// readers of a2a.proto do, so newer clients' optional fields pass; a field
// of the wrong type is an error naming it.
func decodeParams(raw json.RawMessage, v any) *rpcError {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return invalidParams("params are required")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalidParams("params.%s must be %s (got %s)", te.Field, jsonKind(te.Type), withArticle(te.Value))
		}
		return invalidParams("params: %v", err)
	}
	return nil
}

// writeRPC writes a JSON-RPC response: result, or the error e.
func writeRPC(w http.ResponseWriter, id json.RawMessage, result any, e *rpcError) {
	resp := wire.Response{JSONRPC: wire.JSONRPCVersion, ID: idOrNull(id)}
	status := http.StatusOK
	if e != nil {
		resp.Error = e.wireError()
		if e.status != 0 {
			status = e.status
		}
	} else {
		b, err := json.Marshal(result)
		if err != nil {
			resp.Error = &wire.Error{Code: wire.CodeInternalError, Message: "encoding the result: " + err.Error()}
		} else {
			resp.Result = b
		}
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(id)) == 0 {
		return json.RawMessage("null")
	}
	return id
}

// envelopeError is the error for a body that does not decode as a request:
// a parse error when it is not JSON at all, else (a batch, a string, a
// field of the wrong type) an invalid request, as JSON-RPC 2.0 says. The
// message speaks of JSON types, not of this package's Go types.
func envelopeError(body []byte, err error) *rpcError {
	if !json.Valid(body) {
		return newError(wire.CodeParseError, domain.CodeInvalid, "the body is not JSON: %v", err)
	}
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return newError(wire.CodeInvalidRequest, domain.CodeInvalid, "batch requests are not supported: send one JSON-RPC request object per POST")
	case len(trimmed) > 0 && trimmed[0] != '{':
		return newError(wire.CodeInvalidRequest, domain.CodeInvalid, "the body must be a JSON-RPC request object")
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return newError(wire.CodeInvalidRequest, domain.CodeInvalid, "%s must be %s (got %s)", te.Field, jsonKind(te.Type), withArticle(te.Value))
	}
	return newError(wire.CodeInvalidRequest, domain.CodeInvalid, "the body is not a JSON-RPC request object")
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another type"
}

// withArticle turns encoding/json's value kind ("string", "array",
// "number 1.5") into "a string", "an array", "a number".
func withArticle(v string) string {
	v, _, _ = strings.Cut(v, " ")
	switch v {
	case "":
		return "another type"
	case "array", "object":
		return "an " + v
	}
	return "a " + v
}
