package a2a

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Limits of a push config's fields.
const (
	maxPushIDChars     = 128
	maxPushURLBytes    = 2048
	maxPushTokenBytes  = 1024
	maxPushSchemeChars = 64
	maxPushCredBytes   = 4096
)

// pushRequest is a push config as a client sends it, in either
// generation.
type pushRequest struct {
	taskID, id, url, token, scheme, credentials string
}

// fromWirePush reads a 1.0 config.
func fromWirePush(c wire.TaskPushNotificationConfig) pushRequest {
	r := pushRequest{taskID: c.TaskID, id: c.ID, url: c.URL, token: c.Token}
	if a := c.Authentication; a != nil {
		r.scheme, r.credentials = a.Scheme, a.Credentials
	}
	return r
}

// fromLegacyPush reads a 0.3 config (the first of its schemes is used).
func fromLegacyPush(taskID string, c a2a.PushConfig) pushRequest {
	r := pushRequest{taskID: taskID, id: c.ID, url: c.URL, token: c.Token}
	if a := c.Auth; a != nil {
		if len(a.Schemes) > 0 {
			r.scheme = a.Schemes[0]
		}
		r.credentials = a.Credentials
	}
	return r
}

// checkPush validates a push config and checks its URL with the guard.
func (s *Server) checkPush(field string, r pushRequest) *rpcError {
	if len(r.id) > maxPushIDChars {
		return invalidParams("%s.id is too long (%d characters; max %d)", field, len(r.id), maxPushIDChars)
	}
	for _, c := range r.id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return invalidParams("%s.id %q may contain only letters, digits and . _ - (max %d characters)", field, clip(r.id), maxPushIDChars)
		}
	}
	switch {
	case strings.TrimSpace(r.url) == "":
		return invalidParams("%s.url is required", field)
	case len(r.url) > maxPushURLBytes:
		return invalidParams("%s.url is too long (%d bytes; max %d)", field, len(r.url), maxPushURLBytes)
	case len(r.token) > maxPushTokenBytes:
		return invalidParams("%s.token is too long (%d bytes; max %d)", field, len(r.token), maxPushTokenBytes)
	case !headerSafe(r.token):
		return invalidParams("%s.token may contain only printable ASCII", field)
	case len(r.scheme) > maxPushSchemeChars || !schemeName(r.scheme):
		return invalidParams("%s.authentication.scheme must be an HTTP authentication scheme name such as Bearer (max %d characters)", field, maxPushSchemeChars)
	case len(r.credentials) > maxPushCredBytes:
		return invalidParams("%s.authentication.credentials are too long (%d bytes; max %d)", field, len(r.credentials), maxPushCredBytes)
	case !headerSafe(r.credentials):
		return invalidParams("%s.authentication.credentials may contain only printable ASCII", field)
	case r.credentials != "" && r.scheme == "":
		return invalidParams("%s.authentication.scheme is required with credentials", field)
	}
	if _, err := s.opts.Push.o.Guard.CheckURL(r.url); err != nil {
		return newError(wire.CodeInvalidParams, domain.CodeForbidden, "%s.url: %v", field, err)
	}
	return nil
}

func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

// schemeName reports whether v is empty or an HTTP token.
func schemeName(v string) bool {
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}

// pushUnsupported answers a push call when push notifications are off.
func pushUnsupported() *rpcError {
	return newError(wire.CodePushNotificationNotSupported, domain.CodeInvalid, "push notifications are not supported")
}

// writerOnly refuses a caller that may not make or delete push configs:
// a config makes the gateway send requests, so it takes the write scope.
func writerOnly(p api.Principal) *rpcError {
	if p.Scopes.Has(api.ScopeWrite) {
		return nil
	}
	e := newError(wire.CodeInvalidRequest, domain.CodeForbidden, "push notification configs need the write scope (this token has %s)", p.Scopes)
	e.status = http.StatusForbidden
	return e
}

// addPush stores the caller's config for the task of run and enqueues
// the task's current state to it.
func (s *Server) addPush(ctx context.Context, c *call, run domain.Run, r pushRequest) (pushConfig, *rpcError) {
	gen := wire.Version
	if c.gen == gen03 {
		gen = wire.LegacyVersion
	}
	if r.id == "" {
		r.id = newID()
	}
	pc := pushConfig{ID: r.id, TaskID: run.ID, URL: strings.TrimSpace(r.url), Token: r.token, Scheme: r.scheme,
		Credentials: r.credentials, Owner: ownerID(c.p.Name, c.p.Requester()), Gen: gen}
	p := s.opts.Push
	saved, err := savePushConfig(ctx, p.o.Store, run, pc, p.o.Now().UnixMilli())
	if err != nil {
		return pushConfig{}, toRPCError(err)
	}
	if err := p.sync(ctx, run); err != nil {
		s.log.Warn("a2a push: enqueue current state", "task", run.ID, "err", err)
	}
	return saved, nil
}

// ownPushConfigs are the caller's configs of a task it may reach.
func (s *Server) ownPushConfigs(ctx context.Context, c *call, taskID string) (domain.Run, []pushConfig, *rpcError) {
	run, e := s.taskRun(ctx, c, taskID)
	if e != nil {
		return run, nil, e
	}
	all, err := pushConfigs(ctx, s.opts.Push.o.Store, run.ID)
	if err != nil {
		return run, nil, toRPCError(err)
	}
	me := ownerID(c.p.Name, c.p.Requester())
	var mine []pushConfig
	for _, pc := range all {
		if pc.Owner == me {
			mine = append(mine, pc)
		}
	}
	return run, mine, nil
}

func pushNotFound(id, taskID string) *rpcError {
	return newError(wire.CodeInvalidParams, domain.CodeNotFound, "push config %q not found on task %s", clip(id), clip(taskID))
}

// wirePush is a stored config in the 1.0 shape.
func wirePush(pc pushConfig) wire.TaskPushNotificationConfig {
	out := wire.TaskPushNotificationConfig{ID: pc.ID, TaskID: pc.TaskID, URL: pc.URL, Token: pc.Token}
	if pc.Scheme != "" {
		out.Authentication = &wire.AuthenticationInfo{Scheme: pc.Scheme, Credentials: pc.Credentials}
	}
	return out
}

// legacyPush is a stored config in the 0.3 shape.
func legacyPush(pc pushConfig) a2a.TaskPushConfig {
	out := a2a.TaskPushConfig{TaskID: a2a.TaskID(pc.TaskID), Config: a2a.PushConfig{ID: pc.ID, URL: pc.URL, Token: pc.Token}}
	if pc.Scheme != "" {
		out.Config.Auth = &a2a.PushAuthInfo{Schemes: []string{pc.Scheme}, Credentials: pc.Credentials}
	}
	return out
}

// pushResult shapes a config for the call's generation.
func pushResult(c *call, pc pushConfig) any {
	if c.gen == gen03 {
		return legacyPush(pc)
	}
	return wirePush(pc)
}

// createPush is CreateTaskPushNotificationConfig and
// tasks/pushNotificationConfig/set.
func (s *Server) createPush(w http.ResponseWriter, r *http.Request, c *call) {
	var req pushRequest
	if c.gen == gen03 {
		var p a2a.TaskPushConfig
		if e := decodeParams(c.params, &p); e != nil {
			writeRPC(w, c.id, nil, e)
			return
		}
		req = fromLegacyPush(string(p.TaskID), p.Config)
	} else {
		var p wire.TaskPushNotificationConfig
		if e := decodeParams(c.params, &p); e != nil {
			writeRPC(w, c.id, nil, e)
			return
		}
		req = fromWirePush(p)
	}
	if e := writerOnly(c.p); e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	if strings.TrimSpace(req.taskID) == "" {
		writeRPC(w, c.id, nil, invalidParams("params.taskId is required"))
		return
	}
	if e := s.checkPush("params", req); e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	ctx := r.Context()
	run, e := s.taskRun(ctx, c, req.taskID)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	pc, e := s.addPush(ctx, c, run, req)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	writeRPC(w, c.id, pushResult(c, pc), nil)
}

// pushRef reads the params naming one config: 1.0 {taskId, id}; 0.3
// {id (the task), pushNotificationConfigId}.
func pushRef(c *call) (taskID, id string, e *rpcError) {
	if c.gen == gen03 {
		var p a2a.GetTaskPushConfigParams
		if e := decodeParams(c.params, &p); e != nil {
			return "", "", e
		}
		return string(p.TaskID), p.ConfigID, nil
	}
	var p wire.PushConfigRequest
	if e := decodeParams(c.params, &p); e != nil {
		return "", "", e
	}
	if strings.TrimSpace(p.ID) == "" {
		return "", "", invalidParams("params.id is required (the push config's id)")
	}
	return p.TaskID, p.ID, nil
}

// getPush is GetTaskPushNotificationConfig and
// tasks/pushNotificationConfig/get (0.3 without a config id: the
// caller's first config of the task).
func (s *Server) getPush(w http.ResponseWriter, r *http.Request, c *call) {
	taskID, id, e := pushRef(c)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	_, mine, e := s.ownPushConfigs(r.Context(), c, taskID)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	for _, pc := range mine {
		if pc.ID == id || id == "" {
			writeRPC(w, c.id, pushResult(c, pc), nil)
			return
		}
	}
	writeRPC(w, c.id, nil, pushNotFound(id, taskID))
}

// listPush is ListTaskPushNotificationConfigs and
// tasks/pushNotificationConfig/list: the caller's configs of the task
// (at most maxPushConfigs, so one page).
func (s *Server) listPush(w http.ResponseWriter, r *http.Request, c *call) {
	var taskID string
	if c.gen == gen03 {
		var p a2a.ListTaskPushConfigParams
		if e := decodeParams(c.params, &p); e != nil {
			writeRPC(w, c.id, nil, e)
			return
		}
		taskID = string(p.TaskID)
	} else {
		var p wire.ListPushConfigsRequest
		if e := decodeParams(c.params, &p); e != nil {
			writeRPC(w, c.id, nil, e)
			return
		}
		if p.PageSize < 0 {
			writeRPC(w, c.id, nil, invalidParams("params.pageSize must be at least 0 (got %d)", p.PageSize))
			return
		}
		if p.PageToken != "" {
			writeRPC(w, c.id, nil, invalidParams("params.pageToken %q is not a token this agent returned (the configs of a task fit one page)", clip(p.PageToken)))
			return
		}
		taskID = p.TaskID
	}
	_, mine, e := s.ownPushConfigs(r.Context(), c, taskID)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	if c.gen == gen03 {
		out := []a2a.TaskPushConfig{}
		for _, pc := range mine {
			out = append(out, legacyPush(pc))
		}
		writeRPC(w, c.id, out, nil)
		return
	}
	out := wire.ListPushConfigsResponse{Configs: []wire.TaskPushNotificationConfig{}}
	for _, pc := range mine {
		out.Configs = append(out.Configs, wirePush(pc))
	}
	writeRPC(w, c.id, out, nil)
}

// deletePush is DeleteTaskPushNotificationConfig and
// tasks/pushNotificationConfig/delete. Updates queued for the config and
// not yet sent are dropped.
func (s *Server) deletePush(w http.ResponseWriter, r *http.Request, c *call) {
	taskID, id, e := pushRef(c)
	if e == nil && id == "" {
		e = invalidParams("params.pushNotificationConfigId is required")
	}
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	if e := writerOnly(c.p); e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	ctx := r.Context()
	run, mine, e := s.ownPushConfigs(ctx, c, taskID)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	for _, pc := range mine {
		if pc.ID != id {
			continue
		}
		if err := deletePushConfig(ctx, s.opts.Push.o.Store, run, pc, s.opts.Push.o.Now().UnixMilli()); err != nil {
			writeRPC(w, c.id, nil, toRPCError(err))
			return
		}
		if c.gen == gen03 {
			writeRPC(w, c.id, nil, nil)
			return
		}
		writeRPC(w, c.id, struct{}{}, nil)
		return
	}
	writeRPC(w, c.id, nil, pushNotFound(id, taskID))
}

// decodeSendPush is the push config a SendMessage carries in its 1.0
// configuration under name (nil: none). Earlier drafts' names for the
// field carry the same object.
func decodeSendPush(name string, raw json.RawMessage) (*pushRequest, *rpcError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var p wire.TaskPushNotificationConfig
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("params.configuration.%s must be a push notification config object: %v", name, err)
	}
	r := fromWirePush(p)
	return &r, nil
}
