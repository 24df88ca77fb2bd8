package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Rows for Patch, Reset and Delete, and for labels with control
// characters.

// badLabel is a label with a control character (BEL).
const badLabel = "bad\u0007label"

// patchResetRows: Patch and Reset (CLI sessions patch/reset, POST
// /api/sessions/{key}/patch|reset, WS sessions.patch/reset) need admin
// scope; a bound admin token changes only its own session.
func patchResetRows(_ *world) []row {
	patch := func(token, key string) []cell {
		return []cell{
			httpC(token, http.MethodPost, "/api/sessions/"+esc(key)+"/patch", m{"sendPolicy": "allow"}),
			wsC(token, "sessions.patch", m{"key": key, "sendPolicy": "allow"}),
		}
	}
	reset := func(token, key string) []cell {
		return []cell{
			httpC(token, http.MethodPost, "/api/sessions/"+esc(key)+"/reset", nil),
			wsC(token, "sessions.reset", m{"key": key}),
		}
	}
	// locked keeps a reset of the bound session from coming between
	// another row's chat into it and the event that row waits for.
	locked := func(c cell) cell {
		run := c.run
		c.run = func(t *testing.T, w *world) outcome {
			w.boundMu.Lock()
			defer w.boundMu.Unlock()
			return run(t, w)
		}
		return c
	}
	noCLI := []cell{na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator)}
	noMCP := []cell{na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative)}
	var boundOwn []cell
	for _, c := range append(patch(boundAdminToken, boundKey), reset(boundAdminToken, boundKey)...) {
		boundOwn = append(boundOwn, locked(c))
	}
	return []row{
		{finding: "10", name: "operator: sessions patch answers the canonical key",
			want: outcome{OK: true, Fields: map[string]string{"key": "agent:main:patched"}}, fields: keyField,
			cells: append(append([]cell{
				cliC(sCLI, "sessions", "patch", "patched", "--send-policy", "allow"),
				cliC(sCLIGW, "sessions", "patch", "patched", "--send-policy", "allow"),
			}, patch(operatorToken, "patched")...), noMCP...)},
		{finding: "10", name: "operator: sessions reset answers the canonical key",
			want: outcome{OK: true, Fields: map[string]string{"key": "agent:main:reset-me"}}, fields: keyField,
			cells: append(append([]cell{
				cliC(sCLI, "sessions", "reset", "reset-me"),
				cliC(sCLIGW, "sessions", "reset", "reset-me"),
			}, reset(operatorToken, "reset-me")...), noMCP...)},
		{finding: "1", name: "write token and bound token: patch and reset refused for missing scope admin",
			want: outcome{Code: "forbidden", Msg: "missing scope: operator.admin"},
			cells: append(append(append(append(append(patch(writeToken, "agent:main:patched"), reset(writeToken, "agent:main:reset-me")...),
				patch(boundToken, boundKey)...), reset(boundToken, boundKey)...), noCLI...), noMCP...)},
		{finding: "2", name: "bound admin token: patch and reset of its own session allowed",
			want: outcome{OK: true, Fields: map[string]string{"key": boundKey}}, fields: keyField,
			cells: append(append(boundOwn, noCLI...), noMCP...)},
		{finding: "2", name: "bound admin token and sandboxed requester: reset of another session refused",
			want: outcome{Code: "forbidden"},
			cells: append(append(append(reset(boundAdminToken, foreignKey),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(foreignKey)+"/reset?as="+esc(sandboxKey), nil),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(foreignKey)+"/patch?as="+esc(sandboxKey), m{"sendPolicy": "allow"})),
				noCLI...), noMCP...)},
	}
}

// labelRows: a label with a control character is refused on every
// surface that takes one (spawn, patch, resolve).
func labelRows(_ *world) []row {
	refused := outcome{Code: "invalid", Msg: "label"}
	spawn := m{"task": "badly labelled", "label": badLabel}
	const key = "agent:main:bad-label"
	return []row{
		{finding: "4", name: "spawn label with a control character refused", want: refused, cells: []cell{
			cliC(sCLI, "spawn", "badly labelled", "--label", badLabel),
			cliC(sCLIGW, "spawn", "badly labelled", "--label", badLabel),
			httpC(operatorToken, http.MethodPost, "/api/spawn", spawn),
			httpToolC(operatorToken, "", "sessions_spawn", spawn),
			wsC(operatorToken, "sessions.spawn", spawn),
			wsToolC(operatorToken, "", "sessions_spawn", spawn),
			stdioC("", "sessions_spawn", spawn),
			mcpHTTPC(operatorToken, "sessions_spawn", spawn),
		}},
		{finding: "4", name: "patch label with a control character refused", want: refused, cells: []cell{
			cliC(sCLI, "sessions", "patch", key, "--label", badLabel),
			cliC(sCLIGW, "sessions", "patch", key, "--label", badLabel),
			httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key)+"/patch", m{"label": badLabel}),
			wsC(operatorToken, "sessions.patch", m{"key": key, "label": badLabel}),
			na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
		}},
		{finding: "4", name: "resolve label with a control character refused", want: refused, cells: []cell{
			httpC(operatorToken, http.MethodGet, "/api/sessions/resolve?label="+url.QueryEscape(badLabel), nil),
			wsC(operatorToken, "sessions.resolve", m{"label": badLabel}),
			na(sCLI, noCLIResolve), na(sCLIGW, noCLIResolve), na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
		}},
	}
}

// deleteRows: Delete (CLI sessions delete, DELETE /api/sessions/{key}, WS
// sessions.delete) needs admin scope; the operator deletes a session it
// has just made.
func deleteRows(_ *world) []row {
	made := func(s surface, via string, del func(t *testing.T, w *world, key string) outcome) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			key := "agent:main:delete-" + string(s)
			if s == sCLI || s == sCLIGW {
				if r := w.cli(t, w.dirOf(s), "sessions", "patch", key, "--send-policy", "allow", "--json"); !r.ok {
					t.Fatalf("make %s: exit %d: %s", key, r.exit, r.msg)
				}
			} else if st, b := w.httpDo(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(key)+"/patch", m{"sendPolicy": "allow"}); st != http.StatusOK {
				t.Fatalf("make %s: %d %s", key, st, b)
			}
			return del(t, w, key)
		})
	}
	noMCP := []cell{na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative)}
	return []row{
		{finding: "10", name: "operator: sessions delete answers the canonical key, deleted",
			want: outcome{OK: true, Fields: map[string]string{"deleted": "true", "key is canonical": "true"}},
			fields: func(p []byte) map[string]string {
				return map[string]string{"deleted": jsonPath(p, "deleted"), "key is canonical": fmt.Sprint(strings.HasPrefix(jsonPath(p, "key"), "agent:main:delete-"))}
			},
			cells: append([]cell{
				made(sCLI, "sessions delete", func(t *testing.T, w *world, key string) outcome {
					return w.cliOutcome(t, sCLI, "sessions", "delete", key)
				}),
				made(sCLIGW, "sessions delete", func(t *testing.T, w *world, key string) outcome {
					return w.cliOutcome(t, sCLIGW, "sessions", "delete", key)
				}),
				made(sHTTP, "DELETE /api/sessions/{key}", func(t *testing.T, w *world, key string) outcome {
					return w.httpOutcome(t, operatorToken, http.MethodDelete, "/api/sessions/"+esc(key), nil)
				}),
				made(sWS, "sessions.delete", func(t *testing.T, w *world, key string) outcome {
					return w.wsOutcome(t, operatorToken, "sessions.delete", m{"key": key})
				}),
			}, noMCP...)},
		{finding: "1", name: "write token: sessions delete refused for missing scope admin",
			want: outcome{Code: "forbidden", Msg: "missing scope: operator.admin"},
			cells: append([]cell{
				httpC(writeToken, http.MethodDelete, "/api/sessions/"+esc(foreignKey), nil),
				wsC(writeToken, "sessions.delete", m{"key": foreignKey}),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator),
			}, noMCP...)},
	}
}
