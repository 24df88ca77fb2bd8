package a2a

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// ListTasks pages: pageSize defaults to listTasksDefault and may be at
// most listTasksMax (A2A's bounds); the tasks are the newest
// api.RunsListLimit.Max runs that match, newest first.
const (
	listTasksDefault = 50
	listTasksMax     = 100
)

// listTasksRequest is the params of ListTasks.
type listTasksRequest struct {
	Tenant           string         `json:"tenant,omitempty"`
	ContextID        string         `json:"contextId,omitempty"`
	Status           wire.TaskState `json:"status,omitempty"`
	PageSize         *int32         `json:"pageSize,omitempty"`
	PageToken        string         `json:"pageToken,omitempty"`
	HistoryLength    *int32         `json:"historyLength,omitempty"`
	IncludeArtifacts bool           `json:"includeArtifacts,omitempty"`
}

// listTasksResponse is the result of ListTasks.
type listTasksResponse struct {
	Tasks         []wire.Task `json:"tasks"`
	NextPageToken string      `json:"nextPageToken"`
	PageSize      int32       `json:"pageSize"`
	TotalSize     int32       `json:"totalSize"`
}

// runStatuses are the run statuses of a task state filter (ok false: a
// state this server never produces, which matches nothing).
func runStatuses(s wire.TaskState) ([]domain.RunStatus, bool) {
	switch s {
	case "", wire.TaskStateUnspecified:
		return nil, true
	case wire.TaskStateSubmitted:
		return []domain.RunStatus{domain.RunQueued}, true
	case wire.TaskStateWorking:
		return []domain.RunStatus{domain.RunRunning}, true
	case wire.TaskStateCompleted:
		return []domain.RunStatus{domain.RunOK}, true
	case wire.TaskStateFailed:
		return []domain.RunStatus{domain.RunError, domain.RunTimeout}, true
	case wire.TaskStateCanceled:
		return []domain.RunStatus{domain.RunCancelled}, true
	}
	return nil, false
}

// listTasks is ListTasks: the tasks of this agent the caller may see
// (runs.list through the gate), filtered by contextId and status, paged
// with an opaque token.
func (s *Server) listTasks(w http.ResponseWriter, r *http.Request, c *call) {
	var q listTasksRequest
	if e := decodeParams(orEmpty(c.params), &q); e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	size := int32(listTasksDefault)
	if q.PageSize != nil {
		if *q.PageSize < 1 || *q.PageSize > listTasksMax {
			writeRPC(w, c.id, nil, invalidParams("params.pageSize must be 1 to %d (got %d)", listTasksMax, *q.PageSize))
			return
		}
		size = *q.PageSize
	}
	if q.HistoryLength != nil && *q.HistoryLength < 0 {
		writeRPC(w, c.id, nil, invalidParams("params.historyLength must be at least 0 (got %d)", *q.HistoryLength))
		return
	}
	offset := 0
	if q.PageToken != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(q.PageToken, "o"))
		if !strings.HasPrefix(q.PageToken, "o") || err != nil || n < 0 {
			writeRPC(w, c.id, nil, invalidParams("params.pageToken %q is not a token this agent returned", clip(q.PageToken)))
			return
		}
		offset = n
	}
	statuses, known := runStatuses(q.Status)
	switch {
	case q.Status != "" && !known && !validState(q.Status):
		writeRPC(w, c.id, nil, invalidParams("params.status %q is not a task state", clip(string(q.Status))))
		return
	case !known:
		writeRPC(w, c.id, listTasksResponse{Tasks: []wire.Task{}, PageSize: size}, nil)
		return
	}
	query := api.RunsRequest{Statuses: statuses, Limit: int(api.RunsListLimit.Max)}
	if q.ContextID != "" {
		if err := checkContextID("params.contextId", q.ContextID); err != nil {
			writeRPC(w, c.id, nil, toRPCError(err))
			return
		}
		query.SessionKey = SessionKey(c.agent.ID, q.ContextID)
	}
	runs, err := s.opts.Service.ListRuns(r.Context(), c.p, query)
	if err != nil {
		if q.ContextID != "" && domain.ErrorCode(err) == domain.CodeNotFound {
			runs = nil // a context with no session yet has no tasks
		} else {
			writeRPC(w, c.id, nil, toRPCError(err))
			return
		}
	}
	var mine []domain.Run
	for _, run := range runs {
		if strings.EqualFold(run.AgentID, c.agent.ID) {
			mine = append(mine, run)
		}
	}
	out := listTasksResponse{Tasks: []wire.Task{}, PageSize: size, TotalSize: int32(len(mine))}
	for i := offset; i < len(mine) && i < offset+int(size); i++ {
		t := TaskOf(mine[i], q.HistoryLength)
		if !q.IncludeArtifacts {
			t.Artifacts = nil
		}
		out.Tasks = append(out.Tasks, t)
	}
	if next := offset + int(size); next < len(mine) {
		out.NextPageToken = "o" + strconv.Itoa(next)
	}
	writeRPC(w, c.id, out, nil)
}

// validState reports whether s is one of A2A's task states.
func validState(s wire.TaskState) bool {
	switch s {
	case wire.TaskStateInputRequired, wire.TaskStateRejected, wire.TaskStateAuthRequired:
		return true
	}
	return false
}

// orEmpty is params, or an empty object when none were sent: every
// ListTasks parameter is optional.
func orEmpty(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}
