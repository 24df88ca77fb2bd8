package conformance

import (
	"fmt"
	"net/http"
	"testing"
)

// patchSettingRows: every sessions.patch setting keeps OpenClaw's three
// states, as the label does (patchLabelRows): an absent field leaves the
// setting, null clears it, and "" is a value the field refuses — no
// surface reads "" as "clear" (openclaw-notes §6.3).
func patchSettingRows(_ *world) []row {
	noMCP := []cell{na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative)}
	key := func(s surface, what string) string { return "agent:main:setting-" + what + "-" + string(s) }
	type setting struct {
		field, flag, value string // wire name, CLI flag, a valid value
	}
	// patch sets field to v (nil: null; absent when !given) along with a
	// label change, and answers the setting the session has afterwards.
	patch := func(s surface, st setting) func(t *testing.T, w *world, k string, v any, given bool) (outcome, string) {
		return func(t *testing.T, w *world, k string, v any, given bool) (outcome, string) {
			label := fmt.Sprintf("%s %s %v %v", st.field, s, v, given) // unique per agent
			switch s {
			case sWS, sHTTP:
				body := m{"label": label}
				if given {
					body[st.field] = v
				}
				if s == sWS {
					body["key"] = k
					o := w.wsOutcome(t, operatorToken, "sessions.patch", body)
					return o, jsonPath([]byte(o.Payload), "entry."+st.field)
				}
				o := w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(k)+"/patch", body)
				return o, jsonPath([]byte(o.Payload), st.field)
			}
			args := []string{"sessions", "patch", k, "--label", label}
			switch x := v.(type) {
			case string:
				args = append(args, "--"+st.flag, x)
			case nil:
				if given {
					args = append(args, "--clear-"+st.flag)
				}
			}
			o := w.cliOutcome(t, s, args...)
			return o, jsonPath([]byte(o.Payload), st.field)
		}
	}
	states := func(s surface, st setting) cell {
		via := fmt.Sprintf("sessions.patch {%s: null}", st.field)
		if s == sCLI || s == sCLIGW {
			via = "sessions patch --clear-" + st.flag
		}
		return custom(s, via, func(t *testing.T, w *world) outcome {
			k, p := key(s, st.field), patch(s, st)
			if o, _ := p(t, w, k, st.value, true); !o.OK {
				return o
			}
			o, absent := p(t, w, k, nil, false)
			if !o.OK {
				return o
			}
			o, null := p(t, w, k, nil, true)
			if !o.OK {
				return o
			}
			return outcome{OK: true, Payload: o.Payload, Fields: map[string]string{
				"absent keeps it": fmt.Sprint(absent == st.value), "null clears it": fmt.Sprint(null == "")}}
		})
	}
	kept := outcome{OK: true, Fields: map[string]string{"absent keeps it": "true", "null clears it": "true"}}
	var rows []row
	for _, st := range []setting{{"sendPolicy", "send-policy", "deny"}, {"thinkingLevel", "thinking", "low"}} {
		rows = append(rows, row{finding: "patch", name: "sessions patch: an absent " + st.field + " leaves it, null clears it",
			want:  kept,
			cells: append([]cell{states(sWS, st), states(sHTTP, st), states(sCLI, st), states(sCLIGW, st)}, noMCP...)})
	}
	empty := func(field, flag, msg string) row {
		return row{finding: "patch", name: "sessions patch refuses an empty " + field,
			want: outcome{Code: "invalid", Msg: msg},
			cells: append([]cell{
				wsC(operatorToken, "sessions.patch", m{"key": key(sWS, "empty"), field: ""}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, "empty"))+"/patch", m{field: ""}),
				cliC(sCLI, "sessions", "patch", key(sCLI, "empty"), "--"+flag, ""),
				cliC(sCLIGW, "sessions", "patch", key(sCLIGW, "empty"), "--"+flag, ""),
			}, noMCP...)}
	}
	inheritCLI := "the CLI's --send-policy inherit is its spelling of null: it clears the policy"
	return append(rows,
		empty("sendPolicy", "send-policy", `invalid sendPolicy (use "allow"|"deny")`),
		empty("thinkingLevel", "thinking", "invalid thinkingLevel (use off|minimal|low|medium|high)"),
		empty("model", "model", "invalid model: empty"),
		row{finding: "patch", name: `sessions patch refuses sendPolicy "inherit" on the wire (null clears)`,
			want: outcome{Code: "invalid", Msg: `invalid sendPolicy (use "allow"|"deny")`},
			cells: append([]cell{
				wsC(operatorToken, "sessions.patch", m{"key": key(sWS, "inherit"), "sendPolicy": "inherit"}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, "inherit"))+"/patch", m{"sendPolicy": "inherit"}),
				na(sCLI, inheritCLI), na(sCLIGW, inheritCLI),
			}, noMCP...)},
	)
}
