package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// limitRows: one limits table behind every surface.
func limitRows(_ *world) []row {
	spawnCells := func(secs int, tag string) []cell {
		args := m{"task": "limit " + tag, "runTimeoutSeconds": secs}
		return []cell{
			cliC(sCLI, "spawn", "limit "+tag, "--timeout", fmt.Sprint(secs)),
			cliC(sCLIGW, "spawn", "limit "+tag, "--timeout", fmt.Sprint(secs)),
			httpC(operatorToken, http.MethodPost, "/api/spawn", args),
			httpToolC(operatorToken, "", "sessions_spawn", args),
			wsC(operatorToken, "sessions.spawn", args),
			wsToolC(operatorToken, "", "sessions_spawn", args),
			stdioC("", "sessions_spawn", args),
			mcpHTTPC(operatorToken, "sessions_spawn", args),
		}
	}
	return []row{
		{finding: "4", name: "spawn runTimeoutSeconds 172800 accepted", want: outcome{OK: true, Status: "accepted"}, cells: spawnCells(172800, "two days")},
		{finding: "4", name: "spawn runTimeoutSeconds 604801 refused as invalid", want: outcome{Code: "invalid", Msg: "at most 604800"}, cells: spawnCells(604801, "a week and a second")},
	}
}

// requesterRows: a malformed requester key and an unknown
// agent are the same error everywhere, with and without a gateway.
func requesterRows(_ *world) []row {
	r := func(as, msg string) row {
		return row{finding: "5", name: fmt.Sprintf("requester %q refused", as), want: outcome{Code: "invalid", Msg: msg},
			sameFields: []string{"Msg"},
			cells: []cell{
				cliC(sCLI, "sessions", "list", "--as", as),
				cliC(sCLIGW, "sessions", "list", "--as", as),
			}}
	}
	tools := func(as, msg string) row {
		return row{finding: "5", name: fmt.Sprintf("requester %q refused by every surface", as), want: outcome{Code: "invalid", Msg: msg},
			cells: []cell{
				httpC(operatorToken, http.MethodGet, "/api/sessions?as="+esc(as), nil),
				httpToolC(operatorToken, as, "sessions_list", m{}),
				wsC(operatorToken, "sessions.spawn", m{"task": "as a bad requester", "requesterSessionKey": as}),
				wsToolC(operatorToken, as, "sessions_list", m{}),
				stdioC(as, "sessions_list", m{}),
				na(sMCPHTTP, "MCP over HTTP has no way to name a requester (a bound token's session is the requester)"),
				cliC(sCLI, "sessions", "list", "--as", as),
				cliC(sCLIGW, "sessions", "list", "--as", as),
			}}
	}
	return []row{
		r("bad key", "bad key"), r("agent:ghost:main", "ghost"),
		tools("bad key", "bad key"), tools("agent:ghost:main", "ghost"),
	}
}

// cancelRows: cancelling an ended run answers cancelled:false,
// alreadyEnded:true and the status it ended with.
func cancelRows(_ *world) []row {
	fields := func(p []byte) map[string]string {
		return map[string]string{"cancelled": jsonPath(p, "cancelled"), "alreadyEnded": jsonPath(p, "alreadyEnded")}
	}
	cliCancel := func(s surface) cell {
		return custom(s, "runs cancel", func(t *testing.T, w *world) outcome {
			id := w.chatCLI(t, s, "agent:main:cancel-"+string(s), "finish first")
			return w.cliOutcome(t, s, "runs", "cancel", id)
		})
	}
	ended := func(t *testing.T, w *world, key string) string {
		id := jsonPath(w.chatHTTP(t, key, "finish first"), "run.runId")
		if id == "" {
			t.Fatalf("seed: chat into %s gave no run.runId", key)
		}
		return id
	}
	return []row{{finding: "6", name: "cancel of an ended run answers cancelled false, alreadyEnded true and its status",
		want: outcome{OK: true, Status: "ok", Fields: map[string]string{"cancelled": "false", "alreadyEnded": "true"}}, fields: fields,
		cells: []cell{
			cliCancel(sCLI), cliCancel(sCLIGW),
			custom(sHTTP, "POST /api/runs/{id}/cancel", func(t *testing.T, w *world) outcome {
				return w.httpOutcome(t, operatorToken, http.MethodPost, "/api/runs/"+ended(t, w, "agent:main:cancel-http")+"/cancel", nil)
			}),
			custom(sWS, "runs.cancel", func(t *testing.T, w *world) outcome {
				return w.wsOutcome(t, operatorToken, "runs.cancel", m{"runId": ended(t, w, "agent:main:cancel-ws")})
			}),
			na(sMCPStdio, "no tool cancels a run by id (subagents cancels children)"),
			na(sMCPHTTP, "no tool cancels a run by id (subagents cancels children)"),
		}}}
}

// resolutionRows: an unknown sessionId (or its prefix) is an
// error everywhere; a missing --config file is an error.
func resolutionRows(_ *world) []row {
	const prefix = "d386f8db-6fdf-4c7e"
	args := m{"sessionKey": prefix}
	missing := filepath.Join(os.TempDir(), "conformance-no-such-dir", "missing.json5")
	return []row{
		{finding: "7", name: "history of an unknown sessionId prefix is not found", want: outcome{Code: "not_found", Msg: "not found"},
			cells: []cell{
				cliC(sCLI, "sessions", "history", prefix),
				cliC(sCLIGW, "sessions", "history", prefix),
				httpC(operatorToken, http.MethodGet, "/api/sessions/"+prefix+"/history", nil),
				httpToolC(operatorToken, "", "sessions_history", args),
				wsC(operatorToken, "chat.history", args),
				wsToolC(operatorToken, "", "sessions_history", args),
				stdioC("", "sessions_history", args),
				mcpHTTPC(operatorToken, "sessions_history", args),
			}},
		{finding: "7", name: "a missing --config file is an error", want: outcome{Code: "invalid", Msg: "missing.json5"},
			cells: []cell{
				cliC(sCLI, "--config", missing, "sessions", "list"),
				cliC(sCLIGW, "--config", missing, "sessions", "list"),
				na(sHTTP, "the config is the server's"), na(sWS, "the config is the server's"),
				na(sMCPStdio, "covered by the CLI cells (same flag parsing)"), na(sMCPHTTP, "the config is the server's"),
			}},
	}
}

// readRows: a command that only reads runs no queued work.
func readRows(_ *world) []row {
	return []row{{finding: "8", name: "a read leaves queued work queued",
		want: outcome{OK: true, Status: "queued"},
		cells: []cell{
			custom(sCLI, "chat --detach; sessions list; runs get", func(t *testing.T, w *world) outcome {
				// No other in-process command may come between: one that
				// writes may run queued work on the lanes it touches.
				w.cliMu.Lock()
				defer w.cliMu.Unlock()
				r := w.cliUnlocked(t, w.inproc, "chat", "agent:main:detached", "later", "--wait", "0", "--detach", "--json")
				if !r.ok {
					return fromCLI(r.exit, r.stdout, r.msg)
				}
				id := firstOf([]byte(r.stdout), "runId", "run.runId")
				if id == "" {
					t.Fatalf("chat --detach printed no runId: %s", r.stdout)
				}
				if l := w.cliUnlocked(t, w.inproc, "sessions", "list", "--json"); !l.ok {
					return fromCLI(l.exit, l.stdout, l.msg)
				}
				g := w.cliUnlocked(t, w.inproc, "runs", "get", id, "--json")
				return fromCLI(g.exit, g.stdout, g.msg)
			}),
			na(sCLIGW, "a gateway serves: queued work runs there by design"),
			na(sHTTP, "the gateway serves"), na(sWS, "the gateway serves"),
			na(sMCPStdio, "runs against the gateway, which serves"), na(sMCPHTTP, "the gateway serves"),
		}}}
}

// refusalRows: invalid input is invalid on every surface, and
// a refused call returns no run id.
func refusalRows(_ *world) []row {
	bogus := m{"kinds": []string{"bogus"}}
	forbiddenSend := m{"sessionKey": "agent:main:main", "message": "from the sandbox", "timeoutSeconds": 0}
	return []row{
		{finding: "9", name: "kinds=bogus is invalid", want: outcome{Code: "invalid", Msg: "bogus"}, cells: []cell{
			cliC(sCLI, "sessions", "list", "--kinds", "bogus"),
			cliC(sCLIGW, "sessions", "list", "--kinds", "bogus"),
			httpC(operatorToken, http.MethodGet, "/api/sessions?kinds=bogus", nil),
			httpToolC(operatorToken, "", "sessions_list", bogus),
			wsToolC(operatorToken, "", "sessions_list", bogus),
			na(sWS, "sessions.list has no kinds parameter (unknown params are ignored for OpenClaw clients)"),
			stdioC("", "sessions_list", bogus),
			mcpHTTPC(operatorToken, "sessions_list", bogus),
		}},
		{finding: "9", name: "unknown tool nope is an error", want: outcome{Code: "invalid", Msg: "nope"}, cells: []cell{
			na(sCLI, noCLIToolCall), na(sCLIGW, noCLIToolCall),
			httpToolC(operatorToken, "", "nope", m{}),
			wsToolC(operatorToken, "", "nope", m{}),
			stdioC("", "nope", m{}),
			mcpHTTPC(operatorToken, "nope", m{}),
		}},
		{finding: "9", name: "a forbidden sessions_send returns no runId",
			want:   outcome{Code: "forbidden", Fields: map[string]string{"runId": ""}},
			fields: func(p []byte) map[string]string { return map[string]string{"runId": jsonPath(p, "runId")} },
			cells: []cell{
				cliC(sCLI, "send", "agent:main:main", "from the sandbox", "--as", sandboxKey, "--timeout", "0"),
				cliC(sCLIGW, "send", "agent:main:main", "from the sandbox", "--as", sandboxKey, "--timeout", "0"),
				httpSendC(operatorToken, "agent:main:main", m{"message": "from the sandbox", "timeoutSeconds": 0, "as": sandboxKey}),
				httpToolC(operatorToken, sandboxKey, "sessions_send", forbiddenSend),
				wsToolC(operatorToken, sandboxKey, "sessions_send", forbiddenSend),
				stdioC(sandboxKey, "sessions_send", forbiddenSend),
				na(sMCPHTTP, "MCP over HTTP has no way to name a requester"),
			}},
		{finding: "9", name: "sandboxed requester: history of another session forbidden", want: outcome{Code: "forbidden"}, cells: []cell{
			cliC(sCLI, "sessions", "history", "agent:main:main", "--as", sandboxKey),
			cliC(sCLIGW, "sessions", "history", "agent:main:main", "--as", sandboxKey),
			httpC(operatorToken, http.MethodGet, "/api/sessions/agent:main:main/history?as="+esc(sandboxKey), nil),
			httpToolC(operatorToken, sandboxKey, "sessions_history", m{"sessionKey": "agent:main:main"}),
			wsToolC(operatorToken, sandboxKey, "sessions_history", m{"sessionKey": "agent:main:main"}),
			stdioC(sandboxKey, "sessions_history", m{"sessionKey": "agent:main:main"}),
			na(sMCPHTTP, "MCP over HTTP has no way to name a requester"),
		}},
		{finding: "9", name: "/send maybe is invalid", want: outcome{Code: "invalid"}, cells: []cell{
			cliC(sCLI, "chat", "agent:main:sendmaybe", "/send maybe"),
			cliC(sCLIGW, "chat", "agent:main:sendmaybe", "/send maybe"),
			httpC(operatorToken, http.MethodPost, "/api/sessions/agent:main:sendmaybe/chat", m{"message": "/send maybe"}),
			wsC(operatorToken, "chat.send", m{"sessionKey": "agent:main:sendmaybe", "message": "/send maybe", "idempotencyKey": "sendmaybe"}),
			na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
		}},
		{finding: "9", name: "--state-dir without its value is a usage error",
			want: outcome{Code: "invalid", Fields: map[string]string{"made a directory named --json": "false"}},
			cells: []cell{
				custom(sCLI, "--state-dir --json sessions list", stateDirWithoutValue),
				na(sCLIGW, "no state dir, so no gateway"),
				na(sHTTP, "a CLI flag"), na(sWS, "a CLI flag"), na(sMCPStdio, "covered by the CLI cell"), na(sMCPHTTP, "a CLI flag"),
			}},
	}
}

// stateDirWithoutValue runs `switchboard --state-dir --json sessions list`
// in an empty directory and reports whether it made a directory "--json".
func stateDirWithoutValue(t *testing.T, _ *world) outcome {
	dir := t.TempDir()
	cmd := exec.CommandContext(deadline(t, 60*time.Second), testkit.Binary(t), "--state-dir", "--json", "sessions", "list")
	cmd.Dir = dir
	cmd.Env = append(testkit.CleanEnv(), "HOME="+dir)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	exit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	o := fromCLI(exit, out.String(), errb.String())
	_, statErr := os.Stat(filepath.Join(dir, "--json"))
	o.Fields = map[string]string{"made a directory named --json": fmt.Sprint(statErr == nil)}
	return o
}

// keyRows: tool results show the requester's own main as
// "main"; gateway-native methods and the HTTP API show canonical keys; the
// CLI prints the same with and without a gateway.
func keyRows(_ *world) []row {
	mainKeys := func(p []byte) map[string]string {
		return map[string]string{
			`lists "main"`:            has(p, `"key":"main"`),
			`lists "agent:main:main"`: has(p, `"key":"agent:main:main"`),
		}
	}
	compact := func(f func([]byte) map[string]string) func([]byte) map[string]string {
		return func(p []byte) map[string]string {
			var v any
			if json.Unmarshal(p, &v) == nil {
				p, _ = json.Marshal(v)
			}
			return f(p)
		}
	}
	betaHistory := func(p []byte) map[string]string {
		return map[string]string{"sessionKey": jsonPath(p, "sessionKey"), "has beta's marker": has(p, betaMarker)}
	}
	cliKey := func(p []byte) map[string]string {
		var r struct {
			Sessions []struct {
				Key  string `json:"key"`
				Kind string `json:"kind"`
			} `json:"sessions"`
		}
		_ = json.Unmarshal(p, &r)
		for _, s := range r.Sessions {
			if s.Key == "main" || s.Key == "agent:main:main" {
				return map[string]string{"main's key": s.Key}
			}
		}
		return map[string]string{}
	}
	return []row{
		{finding: "10", name: "tool results show the requester's own main as main",
			want:   outcome{OK: true, Fields: map[string]string{`lists "main"`: "true", `lists "agent:main:main"`: "false"}},
			fields: compact(mainKeys),
			cells: []cell{
				httpToolC(operatorToken, "", "sessions_list", m{}),
				wsToolC(operatorToken, "", "sessions_list", m{}),
				stdioC("", "sessions_list", m{}),
				mcpHTTPC(operatorToken, "sessions_list", m{}),
				na(sCLI, "the CLI prints the HTTP API's shape: see the CLI row"), na(sCLIGW, "see the CLI row"),
			}},
		{finding: "10", name: "native methods and the HTTP API show canonical keys",
			want:   outcome{OK: true, Fields: map[string]string{`lists "main"`: "false", `lists "agent:main:main"`: "true"}},
			fields: compact(mainKeys),
			cells: []cell{
				httpC(operatorToken, http.MethodGet, "/api/sessions", nil),
				wsC(operatorToken, "sessions.list", m{}),
				na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
				na(sCLI, "see the CLI row"), na(sCLIGW, "see the CLI row"),
			}},
		{finding: "10", name: "the CLI prints main's key the same with and without a gateway",
			want: outcome{OK: true, Fields: map[string]string{"main's key": anyValue}}, fields: cliKey, sameFields: []string{"main's key"},
			cells: []cell{
				cliC(sCLI, "sessions", "list"), cliC(sCLIGW, "sessions", "list"),
				na(sHTTP, "see the native row"), na(sWS, "see the native row"), na(sMCPStdio, "see the tools row"), na(sMCPHTTP, "see the tools row"),
			}},
		{finding: "10", name: "as agent:beta:main, main in a tool call is beta's main",
			want:   outcome{OK: true, Fields: map[string]string{"sessionKey": "main", "has beta's marker": "true"}},
			fields: betaHistory,
			cells: []cell{
				httpToolC(operatorToken, betaMain, "sessions_history", m{"sessionKey": "main"}),
				wsToolC(operatorToken, betaMain, "sessions_history", m{"sessionKey": "main"}),
				stdioC(betaMain, "sessions_history", m{"sessionKey": "main"}),
				na(sMCPHTTP, "MCP over HTTP has no way to name a requester"),
				na(sCLI, "see the next row"), na(sCLIGW, "see the next row"),
			}},
		{finding: "10", name: "as agent:beta:main, main in a native call is beta's main, printed canonical",
			want:   outcome{OK: true, Fields: map[string]string{"sessionKey": "agent:beta:main", "has beta's marker": "true"}},
			fields: betaHistory,
			cells: []cell{
				httpC(operatorToken, http.MethodGet, "/api/sessions/main/history?as="+esc(betaMain), nil),
				na(sWS, "chat.history has no requester parameter"),
				na(sMCPStdio, "see the tools row"), na(sMCPHTTP, "see the tools row"),
				na(sCLI, "see the CLI row"), na(sCLIGW, "see the CLI row"),
			}},
		// docs/design.md#principals-scopes-and-the-gate names canonical keys for human CLI output and leaves
		// --json to "the same JSON with and without a gateway": the row asks
		// for beta's session, printed the same way on both.
		{finding: "10", name: "as agent:beta:main, the CLI reads beta's main and prints it the same with and without a gateway",
			want:   outcome{OK: true, Fields: map[string]string{"sessionKey": anyValue, "has beta's marker": "true"}},
			fields: betaHistory, sameFields: []string{"sessionKey"},
			cells: []cell{
				cliC(sCLI, "sessions", "history", "main", "--as", betaMain),
				cliC(sCLIGW, "sessions", "history", "main", "--as", betaMain),
				na(sHTTP, "see the native row"), na(sWS, "see the native row"),
				na(sMCPStdio, "see the tools row"), na(sMCPHTTP, "see the tools row"),
			}},
	}
}
