package conformance

import (
	"encoding/json"
	"net/http"
	"testing"
)

// a2aOutcome calls an A2A 1.0 JSON-RPC method on agent's endpoint and
// normalises the answer: a result is OK, with a payload {runId, status,
// result} (the task id is the run id, metadata.runStatus its status); an
// error's code is its data.code (the switchboard code the server puts
// there), else the HTTP status's.
func (w *world) a2aOutcome(t *testing.T, token, agent, method string, params any) outcome {
	t.Helper()
	st, b := w.httpDo(t, token, http.MethodPost, "/a2a/agents/"+agent,
		m{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, "A2A-Version", "1.0")
	return fromA2A(st, b)
}

// fromA2A normalises a JSON-RPC answer of the A2A endpoint.
func fromA2A(status int, body []byte) outcome {
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return fromHTTP(status, body)
	}
	if r.Error != nil {
		o := outcome{Code: r.Error.Data.Code, Msg: r.Error.Message, Payload: string(body)}
		if o.Code == "" {
			o.Code = httpCode(status)
		}
		return o
	}
	if status != http.StatusOK {
		return fromHTTP(status, body)
	}
	var task struct {
		ID       string `json:"id"`
		Metadata struct {
			RunStatus string `json:"runStatus"`
		} `json:"metadata"`
	}
	var wrapped struct {
		Task *json.RawMessage `json:"task"`
	}
	raw := r.Result
	if json.Unmarshal(raw, &wrapped) == nil && wrapped.Task != nil {
		raw = *wrapped.Task
	}
	_ = json.Unmarshal(raw, &task)
	payload, _ := json.Marshal(m{"runId": task.ID, "status": task.Metadata.RunStatus, "result": r.Result})
	return outcome{OK: true, Status: task.Metadata.RunStatus, Payload: string(payload)}
}

// a2aMsg is an A2A SendMessage params object.
func a2aMsg(messageID, contextID, text string) m {
	msg := m{"messageId": messageID, "role": "ROLE_USER", "parts": []any{m{"text": text}}}
	if contextID != "" {
		msg["contextId"] = contextID
	}
	return m{"message": msg, "configuration": m{"returnImmediately": true}}
}

// a2aC is a cell calling an A2A method as token on agent main.
func a2aC(token, method string, params any) cell {
	return custom(sA2A, method, func(t *testing.T, w *world) outcome {
		return w.a2aOutcome(t, token, "main", method, params)
	})
}
