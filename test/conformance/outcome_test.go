package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// outcome is one cell's answer, normalised so that cells of different
// surfaces compare with cmp.Diff.
type outcome struct {
	// OK is false for every refusal: an HTTP error status, a WS error
	// response, an MCP isError result or JSON-RPC error, a CLI exit status
	// other than 0.
	OK bool
	// Code is the error code: invalid, forbidden, not_found, conflict,
	// unavailable, timeout, … (internal/domain's codes). Surfaces that say
	// less map onto the coarse codes below.
	Code string
	// Status is the payload's status (a tool payload's status, a run's
	// status); compared only when the row names one.
	Status string
	// Msg is the message of a refusal. A row that names one checks that
	// the surface's message contains it (case-insensitively).
	Msg string
	// Fields are a row's fields of interest, extracted from the payload.
	Fields map[string]string
	// Payload is the answer as the surface gave it, for the failure
	// message; never compared.
	Payload string
}

// Coarse codes: what a surface says when it cannot say which refusal it
// was.
const (
	// codeRefused is the WS INVALID_REQUEST: bad input, not found,
	// forbidden and conflict alike.
	codeRefused = "refused"
	// codeToolError is a tool payload with status "error": any refusal but
	// a forbidden one (which has its own status).
	codeToolError = "tool_error"
	// codeFailed is a CLI exit status 1, or an MCP stdio server that would
	// not start: any refusal.
	codeFailed = "failed"
	// codeUsage is a CLI exit status 2: input refused before anything ran.
	codeUsage = "usage"
)

// covers reports whether a coarse code reported by a surface is consistent
// with the fine code a row expects.
func covers(got, want string) bool {
	switch got {
	case want:
		return true
	case codeRefused:
		return want == "invalid" || want == "forbidden" || want == "not_found" || want == "conflict"
	case codeToolError:
		return want != "forbidden" && want != ""
	case codeFailed:
		return want != ""
	case codeUsage:
		return want == "invalid"
	}
	return false
}

// diff compares a cell's outcome with the row's expectation. A coarse code
// that covers the expected one counts as equal; Status and Msg are compared
// only when the row names them; a field expected as anyValue must be
// present. It returns "" when they agree.
func diff(want, got outcome) string {
	if covers(got.Code, want.Code) {
		got.Code = want.Code
	}
	if want.Status == "" {
		got.Status = ""
	}
	if want.Msg != "" && strings.Contains(strings.ToLower(got.Msg), strings.ToLower(want.Msg)) {
		got.Msg = want.Msg
	} else if want.Msg == "" {
		got.Msg = ""
	}
	for k, v := range want.Fields {
		if v == anyValue {
			if _, ok := got.Fields[k]; ok {
				got.Fields[k] = anyValue
			}
		}
	}
	if len(want.Fields) == 0 {
		got.Fields = nil
	}
	d := cmp.Diff(want, got, cmpopts.IgnoreFields(outcome{}, "Payload"), cmpopts.EquateEmpty())
	if d == "" {
		return ""
	}
	return fmt.Sprintf("(-want +got):\n%s\npayload: %s", d, clipText(got.Payload, 1500))
}

// anyValue in a row's expected Fields asks only that the field exists; the
// row's sameFields rule may still ask that it is equal across cells.
const anyValue = "<any>"

// fromHTTP normalises an HTTP API answer: 2xx is OK; otherwise the code is
// the error body's code, else the status's (400/403/404/409/…).
func fromHTTP(status int, body []byte) outcome {
	o := outcome{OK: status >= 200 && status < 300, Payload: string(body)}
	if o.OK {
		o.Status = statusOf(body)
		return o
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	o.Code, o.Msg = e.Error.Code, e.Error.Message
	if o.Code == "" {
		o.Code = httpCode(status)
	}
	if o.Msg == "" {
		o.Msg = strings.TrimSpace(string(body))
	}
	return o
}

// httpCode maps an HTTP status onto an error code.
func httpCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid"
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusConflict:
		return "conflict"
	case http.StatusServiceUnavailable:
		return "unavailable"
	case http.StatusGatewayTimeout:
		return "timeout"
	}
	return fmt.Sprintf("http_%d", status)
}

// fromWS normalises a WS response: ok, or the protocol's error code
// (INVALID_REQUEST covers every refusal but a missing scope, which is
// FORBIDDEN as in OpenClaw; a details.code, when the gateway gives one,
// says which).
func fromWS(f wsFrame) outcome {
	o := outcome{OK: f.OK, Payload: string(f.Payload)}
	if f.OK {
		o.Status = statusOf(f.Payload)
		return o
	}
	if f.Error == nil {
		o.Code, o.Msg = codeRefused, "error response without an error object"
		return o
	}
	o.Msg = f.Error.Message
	o.Payload = fmt.Sprintf(`{"code":%q,"message":%q,"details":%s}`, f.Error.Code, f.Error.Message, orNull(f.Error.Details))
	var details struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(f.Error.Details, &details)
	switch {
	case f.Error.Code == "FORBIDDEN":
		// OpenClaw's missing-scope refusal (details.code MISSING_SCOPE).
		o.Code = "forbidden"
	case details.Code != "":
		o.Code = details.Code
	case f.Error.Code == "INVALID_REQUEST":
		o.Code = codeRefused
	case f.Error.Code == "UNAVAILABLE":
		o.Code = "unavailable"
	case f.Error.Code == "AGENT_TIMEOUT":
		o.Code = "timeout"
	default:
		o.Code = strings.ToLower(f.Error.Code)
	}
	return o
}

// fromTool normalises a tool result (HTTP /api/tools, WS tools.invoke,
// MCP): isError, and the payload's status, error and code (an error
// payload without a code is the coarse tool_error).
func fromTool(isError bool, payload []byte) outcome {
	o := outcome{OK: !isError, Status: statusOf(payload), Payload: string(payload)}
	if o.OK {
		return o
	}
	var p struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Code   string `json:"code"`
	}
	_ = json.Unmarshal(payload, &p)
	o.Msg = p.Error
	switch {
	case p.Status == "forbidden":
		o.Code = "forbidden"
	case p.Code != "":
		// An error payload that names its code says which refusal it was.
		o.Code = p.Code
	default:
		o.Code = codeToolError
	}
	if o.Msg == "" {
		o.Msg = string(payload)
	}
	return o
}

// fromMCPError normalises a JSON-RPC error of an MCP call (the SDK's
// -32602 for an unknown tool or invalid params, …).
func fromMCPError(err error) outcome {
	msg := err.Error()
	o := outcome{Code: codeFailed, Msg: msg, Payload: msg}
	for _, c := range []string{"-32602", "-32600", "-32601", "-32700"} {
		if strings.Contains(msg, c) {
			o.Code = "invalid"
		}
	}
	return o
}

// fromCLI normalises a CLI command: exit 0 is OK; exit 2 is a usage error;
// exit 1 with a tool-shaped JSON payload on stdout (send's forbidden or
// error result) is that payload's refusal, else any refusal.
func fromCLI(exit int, stdout, stderr string) outcome {
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "switchboard: "))
	if exit == 0 {
		return outcome{OK: true, Status: statusOf([]byte(stdout)), Payload: stdout}
	}
	if exit == 2 {
		return outcome{Code: codeUsage, Msg: msg, Payload: stdout + stderr}
	}
	// Under --json a failed command prints {ok:false, error:{code,
	// message}} on stdout, the HTTP API's shape. "internal" is what an
	// error the command did not classify says: any refusal.
	var e struct {
		OK    *bool `json:"ok"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(stdout), &e) == nil && e.OK != nil && !*e.OK && e.Error.Code != "" && e.Error.Code != "internal" {
		return outcome{Code: e.Error.Code, Msg: msg, Payload: stdout + stderr}
	}
	if st := statusOf([]byte(stdout)); st == "forbidden" || st == "error" || st == "timeout" {
		o := fromTool(true, []byte(stdout))
		if st == "timeout" {
			o.Code = "timeout"
		}
		if msg != "" {
			o.Msg += " | " + msg
		}
		return o
	}
	return outcome{Code: codeFailed, Msg: msg, Payload: stdout + stderr}
}

// statusOf returns the "status" string of a JSON object, or "".
func statusOf(b []byte) string {
	var p struct {
		Status any `json:"status"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	s, _ := p.Status.(string)
	return s
}

func orNull(b json.RawMessage) string {
	if len(b) == 0 {
		return "null"
	}
	return string(b)
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
