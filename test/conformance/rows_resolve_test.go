package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Rows for Resolve and GetSession: a session the principal may not see
// answers exactly like an unknown one, and keys come back canonical.

// Reasons and references the rows of this file share.
const (
	noCLIResolve = "no CLI command resolves a session reference"
	noCLIRow     = "no CLI command shows one session row"
	noWSRow      = "no WS method answers one session row (sessions.resolve answers the key only)"
	unknownKey   = "agent:main:no-such-session"
	unknownSID   = "00000000-0000-4000-8000-000000000000"
	unknownLabel = "no-such-label"
)

// ref is a session reference a cell computes when it runs (seeded ids
// exist only then).
type ref func(w *world) string

func lit(s string) ref { return func(*world) string { return s } }

// likeUnknown is a cell that makes call for a hidden session's reference
// and again for an unknown one, and answers the first outcome with a
// field saying whether both answers are the same once each names its own
// reference.
func likeUnknown(s surface, via string, hidden, unknown ref, call func(t *testing.T, w *world, ref string) outcome) cell {
	return custom(s, via, func(t *testing.T, w *world) outcome {
		h, u := hidden(w), unknown(w)
		a, b := call(t, w, h), call(t, w, u)
		same := a.OK == b.OK && a.Code == b.Code &&
			strings.ReplaceAll(a.Msg, h, "REF") == strings.ReplaceAll(b.Msg, u, "REF")
		a.Fields = map[string]string{"answers like an unknown one": fmt.Sprint(same)}
		a.Payload = "hidden: " + a.Payload + "\nunknown: " + b.Payload
		return a
	})
}

// resolveHTTP is GET /api/sessions/resolve?by=ref as token (as: requester).
func resolveHTTP(token, as, by string) func(t *testing.T, w *world, ref string) outcome {
	return func(t *testing.T, w *world, ref string) outcome {
		q := url.Values{by: {ref}}
		if as != "" {
			q.Set("as", as)
		}
		return w.httpOutcome(t, token, http.MethodGet, "/api/sessions/resolve?"+q.Encode(), nil)
	}
}

// resolveWS is sessions.resolve {by: ref} as token.
func resolveWS(token, by string) func(t *testing.T, w *world, ref string) outcome {
	return func(t *testing.T, w *world, ref string) outcome {
		return w.wsOutcome(t, token, "sessions.resolve", m{by: ref})
	}
}

// getSessionHTTP is GET /api/sessions/{ref} as token (as: requester).
func getSessionHTTP(token, as string) func(t *testing.T, w *world, ref string) outcome {
	return func(t *testing.T, w *world, ref string) outcome {
		path := "/api/sessions/" + esc(ref)
		if as != "" {
			path += "?as=" + url.QueryEscape(as)
		}
		return w.httpOutcome(t, token, http.MethodGet, path, nil)
	}
}

// refCell is a cell that calls with a reference computed when it runs.
func refCell(s surface, via string, r ref, call func(t *testing.T, w *world, ref string) outcome) cell {
	return custom(s, via, func(t *testing.T, w *world) outcome { return call(t, w, r(w)) })
}

func keyField(p []byte) map[string]string { return map[string]string{"key": jsonPath(p, "key")} }

func foreignSID(w *world) string { return w.ids.foreignSID }
func mainSID(w *world) string    { return w.ids.mainSID }

// resolveRows: Resolve (WS sessions.resolve, GET /api/sessions/resolve). A
// session the principal may not see answers exactly like an unknown one,
// and a label is ambiguous only among the sessions it may see.
func resolveRows(_ *world) []row {
	noCLI := []cell{na(sCLI, noCLIResolve), na(sCLIGW, noCLIResolve), na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative)}
	hidden := func(by string, h, u ref, msg string) row {
		return row{finding: "2", name: "resolve by " + by + " of a session the principal may not see answers like an unknown one",
			want: outcome{Code: "not_found", Msg: msg, Fields: map[string]string{"answers like an unknown one": "true"}},
			cells: append([]cell{
				likeUnknown(sHTTP, "GET /api/sessions/resolve bound", h, u, resolveHTTP(boundToken, "", by)),
				likeUnknown(sHTTP, "GET /api/sessions/resolve as sandbox", h, u, resolveHTTP(operatorToken, sandboxKey, by)),
				likeUnknown(sWS, "sessions.resolve bound", h, u, resolveWS(boundToken, by)),
			}, noCLI...)}
	}
	return []row{
		hidden("key", lit(foreignKey), lit(unknownKey), "No session found"),
		hidden("sessionId", foreignSID, lit(unknownSID), "No session found"),
		hidden("label", lit(secretLabel), lit(unknownLabel), "No session found with label"),
		{finding: "2", name: "resolve of a label two visible sessions carry is ambiguous",
			want: outcome{Code: "invalid", Msg: "Multiple sessions found with label"},
			cells: append([]cell{
				refCell(sHTTP, "GET /api/sessions/resolve operator", lit(twinLabel), resolveHTTP(operatorToken, "", "label")),
				refCell(sHTTP, "GET /api/sessions/resolve read token", lit(twinLabel), resolveHTTP(readToken, "", "label")),
				refCell(sWS, "sessions.resolve operator", lit(twinLabel), resolveWS(operatorToken, "label")),
				refCell(sWS, "sessions.resolve read token", lit(twinLabel), resolveWS(readToken, "label")),
			}, noCLI...)},
		{finding: "2", name: "bound token: resolve of that label finds the one session it may see",
			want: outcome{OK: true, Fields: map[string]string{"key": twinGuest}}, fields: keyField,
			cells: append([]cell{
				refCell(sHTTP, "GET /api/sessions/resolve bound", lit(twinLabel), resolveHTTP(boundToken, "", "label")),
				refCell(sHTTP, "GET /api/sessions/resolve bound admin", lit(twinLabel), resolveHTTP(boundAdminToken, "", "label")),
				refCell(sWS, "sessions.resolve bound", lit(twinLabel), resolveWS(boundToken, "label")),
			}, noCLI...)},
		{finding: "2", name: "sandboxed requester: resolve of that label finds none",
			want: outcome{Code: "not_found", Msg: "No session found with label"},
			cells: append([]cell{
				refCell(sHTTP, "GET /api/sessions/resolve as sandbox", lit(twinLabel), resolveHTTP(operatorToken, sandboxKey, "label")),
				na(sWS, "sessions.resolve has no requester parameter"),
			}, noCLI...)},
		{finding: "10", name: "resolve answers the canonical key",
			want: outcome{OK: true, Fields: map[string]string{"key": "agent:main:main"}}, fields: keyField,
			cells: append([]cell{
				refCell(sHTTP, "GET /api/sessions/resolve?key=main operator", lit("main"), resolveHTTP(operatorToken, "", "key")),
				refCell(sHTTP, "GET /api/sessions/resolve?key=main read token", lit("main"), resolveHTTP(readToken, "", "key")),
				refCell(sHTTP, "GET /api/sessions/resolve?sessionId= operator", mainSID, resolveHTTP(operatorToken, "", "sessionId")),
				refCell(sWS, "sessions.resolve key main operator", lit("main"), resolveWS(operatorToken, "key")),
				refCell(sWS, "sessions.resolve sessionId read token", mainSID, resolveWS(readToken, "sessionId")),
			}, noCLI...)},
	}
}

// getSessionRows: GetSession (GET /api/sessions/{key}).
func getSessionRows(_ *world) []row {
	others := []cell{na(sCLI, noCLIRow), na(sCLIGW, noCLIRow), na(sWS, noWSRow), na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative)}
	return []row{
		{finding: "2", name: "bound token: GET /api/sessions/{key} of another session answers like an unknown one",
			want: outcome{Code: "not_found", Msg: "No session found", Fields: map[string]string{"answers like an unknown one": "true"}},
			cells: append([]cell{
				likeUnknown(sHTTP, "GET /api/sessions/{key} bound", lit(foreignKey), lit(unknownKey), getSessionHTTP(boundToken, "")),
				likeUnknown(sHTTP, "GET /api/sessions/{sessionId} bound", foreignSID, lit(unknownSID), getSessionHTTP(boundToken, "")),
				likeUnknown(sHTTP, "GET /api/sessions/{key} as sandbox", lit(foreignKey), lit(unknownKey), getSessionHTTP(operatorToken, sandboxKey)),
			}, others...)},
		{finding: "10", name: "bound token: its own session's row carries the canonical key",
			want: outcome{OK: true, Fields: map[string]string{"key": boundKey}}, fields: keyField,
			cells: append([]cell{
				refCell(sHTTP, "GET /api/sessions/bound bound", lit("bound"), getSessionHTTP(boundToken, "")),
				refCell(sHTTP, "GET /api/sessions/{key} bound", lit(boundKey), getSessionHTTP(boundToken, "")),
				refCell(sHTTP, "GET /api/sessions/{key} bound admin", lit(boundKey), getSessionHTTP(boundAdminToken, "")),
			}, others...)},
		{finding: "10", name: "operator and read token: main's row carries the canonical key",
			want: outcome{OK: true, Fields: map[string]string{"key": "agent:main:main"}}, fields: keyField,
			cells: append([]cell{
				refCell(sHTTP, "GET /api/sessions/main operator", lit("main"), getSessionHTTP(operatorToken, "")),
				refCell(sHTTP, "GET /api/sessions/{sessionId} operator", mainSID, getSessionHTTP(operatorToken, "")),
				refCell(sHTTP, "GET /api/sessions/main read token", lit("main"), getSessionHTTP(readToken, "")),
			}, others...)},
	}
}
