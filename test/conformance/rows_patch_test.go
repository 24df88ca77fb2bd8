package conformance

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// patchSettingRows: every sessions.patch setting keeps OpenClaw's three
// states, as the label does (patchLabelRows): an absent field leaves the
// setting, null clears it, a valid value sets it, and "" or blanks are a
// value the field refuses — no surface reads "" as "clear"
// (OpenClaw's gateway methods). The CLI refuses an empty flag value itself, as a
// usage error naming the flag (patchEmptyFlagRows).
func patchSettingRows(_ *world) []row {
	noMCP := []cell{na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative)}
	key := func(s surface, what string) string { return "agent:main:setting-" + what + "-" + string(s) }
	type setting struct {
		field, flag, value string // wire name, CLI flag ("": none), a valid value
		// row and stored are where the setting shows: in WS's entry row
		// (which shows the model in effect), and in the session HTTP and
		// the CLI answer with.
		row, stored string
	}
	// patch sets field to v (nil: null; absent when !given) along with a
	// label change, and answers the setting the session shows afterwards.
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
					return o, jsonPath([]byte(o.Payload), "entry."+st.row)
				}
				o := w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+esc(k)+"/patch", body)
				return o, jsonPath([]byte(o.Payload), st.stored)
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
			return o, jsonPath([]byte(o.Payload), st.stored)
		}
	}
	// states: before (the setting unset), valid value, absent, null: the
	// value is set, absent keeps it, and null brings back what was shown
	// before it was set (the model in effect, on WS; else nothing).
	states := func(s surface, st setting) cell {
		via := fmt.Sprintf("sessions.patch {%s: null}", st.field)
		switch s {
		case sHTTP:
			via = fmt.Sprintf("POST /api/sessions/{key}/patch {%s: null}", st.field)
		case sCLI, sCLIGW:
			via = "sessions patch --clear-" + st.flag
		}
		return custom(s, via, func(t *testing.T, w *world) outcome {
			k, p := key(s, st.field), patch(s, st)
			o, before := p(t, w, k, nil, false)
			if !o.OK {
				return o
			}
			o, set := p(t, w, k, st.value, true)
			if !o.OK {
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
				"a value sets it": fmt.Sprint(set == st.value && set != before),
				"absent keeps it": fmt.Sprint(absent == st.value), "null clears it": fmt.Sprint(null == before)}}
		})
	}
	kept := outcome{OK: true, Fields: map[string]string{"a value sets it": "true", "absent keeps it": "true", "null clears it": "true"}}
	settings := []setting{
		{"sendPolicy", "send-policy", "deny", "sendPolicy", "sendPolicy"},
		{"thinkingLevel", "thinking", "low", "thinkingLevel", "thinkingLevel"},
		{"model", "model", "script/conformance-patch", "model", "modelOverride"},
		{"verboseLevel", "verbose-level", "full", "verboseLevel", "verboseLevel"},
	}
	var rows []row
	for _, st := range settings {
		cells := []cell{states(sWS, st), states(sHTTP, st), states(sCLI, st), states(sCLIGW, st)}
		rows = append(rows, row{finding: "patch", name: "sessions patch: a " + st.field + " value sets it, absent leaves it, null clears it",
			want: kept, cells: append(cells, noMCP...)})
	}
	refusals := map[string]string{
		"sendPolicy":    `invalid sendPolicy (use "allow"|"deny")`,
		"thinkingLevel": "invalid thinkingLevel (use off|minimal|low|medium|high)",
		"model":         "invalid model: empty",
		"verboseLevel":  "invalid verboseLevel (use off|on|full)",
	}
	cliFlagRow := "the CLI refuses an empty flag value itself, naming the flag (exit 2): the rows of patchEmptyFlagRows"
	for _, st := range settings {
		for _, v := range []string{"", " \t "} {
			what, article := "empty", "an "
			if v != "" {
				what, article = "blank", "a "
			}
			rows = append(rows, row{finding: "patch", name: "sessions patch refuses " + article + what + " " + st.field + " on the wire",
				want: outcome{Code: "invalid", Msg: refusals[st.field]},
				cells: append([]cell{
					openclawWords(wsC(operatorToken, "sessions.patch", m{"key": key(sWS, what), st.field: v}), patchWireWords(st.field, v)),
					httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, what))+"/patch", m{st.field: v}),
					na(sCLI, cliFlagRow), na(sCLIGW, cliFlagRow),
				}, noMCP...)})
		}
	}
	inheritCLI := "the CLI's --send-policy inherit is its spelling of null: it clears the policy"
	return append(rows,
		row{finding: "patch", name: `sessions patch refuses sendPolicy "inherit" on the wire (null clears)`,
			want: outcome{Code: "invalid", Msg: `invalid sendPolicy (use "allow"|"deny")`},
			cells: append([]cell{
				openclawWords(wsC(operatorToken, "sessions.patch", m{"key": key(sWS, "inherit"), "sendPolicy": "inherit"}), anyOfRefusal("sendPolicy", "must be equal to constant")),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, "inherit"))+"/patch", m{"sendPolicy": "inherit"}),
				na(sCLI, inheritCLI), na(sCLIGW, inheritCLI),
			}, noMCP...)},
		row{finding: "patch", name: "sessions patch refuses a thinkingLevel it does not know",
			want: outcome{Code: "invalid", Msg: refusals["thinkingLevel"]},
			cells: append([]cell{
				wsC(operatorToken, "sessions.patch", m{"key": key(sWS, "huge"), "thinkingLevel": "huge"}),
				httpC(operatorToken, http.MethodPost, "/api/sessions/"+esc(key(sHTTP, "huge"))+"/patch", m{"thinkingLevel": "huge"}),
				cliC(sCLI, "sessions", "patch", key(sCLI, "huge"), "--thinking", "huge"),
				cliC(sCLIGW, "sessions", "patch", key(sCLIGW, "huge"), "--thinking", "huge"),
			}, noMCP...)},
	)
}

// patchEmptyFlagRows: an explicitly empty or blank value of a sessions
// patch flag is a usage error (exit 2) naming the flag and its --clear-…
// twin, in-process and through a gateway alike; the wire surfaces refuse
// "" with the field's own message (patchSettingRows, patchLabelRows).
func patchEmptyFlagRows(_ *world) []row {
	wireRows := "the wire has no flags: \"\" is refused there with the field's message (the rows above)"
	var rows []row
	for _, flag := range []string{"label", "send-policy", "model", "thinking", "verbose-level"} {
		for _, v := range []string{"", "  "} {
			what := "empty"
			if v != "" {
				what = "blank"
			}
			k := "agent:main:flag-" + what + "-" + strings.ReplaceAll(flag, "-", "")
			rows = append(rows, row{finding: "patch", name: "sessions patch --" + flag + " " + what + " is a usage error naming the flag",
				want: outcome{Code: codeUsage, Msg: "--" + flag + ": empty value"},
				cells: []cell{
					cliC(sCLI, "sessions", "patch", k, "--"+flag, v),
					cliC(sCLIGW, "sessions", "patch", k, "--"+flag, v),
					na(sWS, wireRows), na(sHTTP, wireRows),
					na(sMCPStdio, noMCPNative), na(sMCPHTTP, noMCPNative),
				}})
		}
	}
	return rows
}

// anyOfRefusal is OpenClaw's words for a sessions.patch field of
// anyOf(<a string rule>, null) whose string rule fails with first.
func anyOfRefusal(field, first string) string {
	return fmt.Sprintf("invalid sessions.patch params: at /%s: %s; at /%s: must be null; at /%s: must match a schema in anyOf", field, first, field, field)
}

// patchWireWords is the WS refusal of an empty or blank patch value:
// OpenClaw's schema refuses "" for every field (minLength 1) and any
// string but allow/deny for sendPolicy; a blank string of a level or the
// model passes it and meets switchboard's own check ("" = the row's
// message).
func patchWireWords(field, v string) string {
	switch {
	case field == "sendPolicy":
		return anyOfRefusal(field, "must be equal to constant")
	case v == "":
		return anyOfRefusal(field, "must not have fewer than 1 characters")
	}
	return ""
}
