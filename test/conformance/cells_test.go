package conformance

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// Cell builders: one per way of calling, so rows read as tables.

func cliC(s surface, args ...string) cell {
	return cell{s: s, via: strings.Join(args, " "), run: func(t *testing.T, w *world) outcome {
		return w.cliOutcome(t, s, args...)
	}}
}

func httpC(token, method, path string, body any, hdr ...string) cell {
	return cell{s: sHTTP, via: method + " " + path, run: func(t *testing.T, w *world) outcome {
		return w.httpOutcome(t, token, method, path, body, hdr...)
	}}
}

// httpSendC calls POST /api/sessions/{key}/send, whose answer is the
// sessions_send tool's result: a 2xx with status forbidden or error is that
// refusal, as on the tool surfaces.
func httpSendC(token, key string, body any) cell {
	path := "/api/sessions/" + esc(key) + "/send"
	return cell{s: sHTTP, via: "POST " + path, run: func(t *testing.T, w *world) outcome {
		st, b := w.httpDo(t, token, "POST", path, body)
		if st >= 200 && st < 300 {
			if s := statusOf(b); s == "forbidden" || s == "error" {
				return fromTool(true, b)
			}
		}
		return fromHTTP(st, b)
	}}
}

func httpToolC(token, as, tool string, args any) cell {
	via := "POST /api/tools/" + tool
	if as != "" {
		via += " as " + as
	}
	return cell{s: sHTTP, via: via, run: func(t *testing.T, w *world) outcome {
		return w.httpTool(t, token, as, tool, args)
	}}
}

func wsC(token, method string, params any) cell {
	return cell{s: sWS, via: method, run: func(t *testing.T, w *world) outcome {
		return w.wsOutcome(t, token, method, params)
	}}
}

func wsToolC(token, sessionKey, tool string, args any) cell {
	via := "tools.invoke " + tool
	if sessionKey != "" {
		via += " as " + sessionKey
	}
	return cell{s: sWS, via: via, run: func(t *testing.T, w *world) outcome {
		return w.wsTool(t, token, sessionKey, tool, args)
	}}
}

func stdioC(session, tool string, args any) cell {
	via := tool
	if session != "" {
		via = fmt.Sprintf("--session %q %s", session, tool)
	}
	return cell{s: sMCPStdio, via: via, run: func(t *testing.T, w *world) outcome {
		return w.mcpStdioOutcome(t, session, tool, args)
	}}
}

func mcpHTTPC(token, tool string, args any) cell {
	return cell{s: sMCPHTTP, via: tool, run: func(t *testing.T, w *world) outcome {
		return w.mcpHTTPOutcome(t, token, tool, args)
	}}
}

// custom is a cell with its own steps.
func custom(s surface, via string, run func(t *testing.T, w *world) outcome) cell {
	return cell{s: s, via: via, run: run}
}

// esc escapes a session key for a URL path.
func esc(key string) string { return url.PathEscape(key) }

// m is shorthand for JSON objects.
type m = map[string]any
