package wireschema

import "testing"

// TestCheckMatchesOpenClaw checks requests whose answers were taken from
// OpenClaw's own validators (formatValidationErrors over the protocol
// module's validate…Params of the version embedded): the same params give
// the same words. The conformance test checks every request it makes the
// same way against the live package.
func TestCheckMatchesOpenClaw(t *testing.T) {
	for _, tc := range []struct{ method, params, want string }{
		{"chat.history", `{"sessionKey":"main","limit":5000}`, "at /limit: must be <= 1000"},
		{"chat.history", `{"sessionKey":"main","limit":"x","foo":1}`, "at root: unexpected property 'foo'; at /limit: must be integer"},
		{"chat.history", `{"limit":0}`, "must have required property 'sessionKey'; at /limit: must be >= 1"},
		{"chat.history", `{"sessionKey":"","limit":1.5}`, "at /sessionKey: must not have fewer than 1 characters; at /limit: must be integer"},
		{"chat.history", `{"sessionKey":"main","limit":1000,"maxChars":1}`, ""},
		{"chat.history", `{"sessionKey":"main","limit":10}`, ""},
		{"chat.history", `{"sessionKey":"main","inputRunIds":["a","a"]}`, "at /inputRunIds: must not have duplicate items"},
		{"chat.history", `{"sessionKey":"main","inputRunIds":[]}`, "at /inputRunIds: must not have fewer than 1 items"},
		{"agent", `{"message":"hi"}`, "must have required property 'idempotencyKey'"},
		{"agent", `{"message":"","idempotencyKey":"k","timeout":-1,"threadId":5}`, "at /message: must not have fewer than 1 characters; at /threadId: must be string; at /timeout: must be >= 0"},
		{"agent", `{"message":"hi","idempotencyKey":"k","promptMode":"bogus"}`, "at /promptMode: must be equal to constant; at /promptMode: must match a schema in anyOf"},
		{"sessions.patch", `{"key":"k","label":""}`, "at /label: must not have fewer than 1 characters; at /label: must be null; at /label: must match a schema in anyOf"},
		{"sessions.patch", `{"key":"k","label":null,"sendPolicy":"inherit"}`, "at /sendPolicy: must be equal to constant; at /sendPolicy: must be null; at /sendPolicy: must match a schema in anyOf"},
		{"sessions.patch", `{"key":"k","verboseLevel":"  ","bogus":1,"other":2}`, "at root: unexpected property 'bogus'"},
		{"sessions.reset", `{"key":"k","reason":"x"}`, "at /reason: must be equal to constant; at /reason: must match a schema in anyOf"},
		{"agent.wait", `{"runId":"x","timeoutMs":-1}`, "at /timeoutMs: must be >= 0"},
		{"agent.wait", `{}`, "must have required property 'runId'"},
		{"agents.list", `{"x":1}`, "at root: unexpected property 'x'"},
		{"sessions.list", `{"limit":0,"search":5,"archived":"some"}`, "at /limit: must be >= 1; at /search: must be string; at /archived: must be boolean; at /archived: must be equal to constant; at /archived: must match a schema in anyOf"},
		{"sessions.search", `{"query":"x","limit":50}`, "at /limit: must be <= 25"},
		{"sessions.search", `{"query":"x","scope":{},"agentId":"a"}`, "must not be valid"},
		{"sessions.search", `{"query":"","scope":{"label":""}}`, "at /scope/label: must not have fewer than 1 characters; at /query: must not have fewer than 1 characters"},
		{"tools.invoke", `{"tool":"x","args":{}}`, "must have required property 'name'; at root: unexpected property 'tool'"},
		{"tools.invoke", `{"name":"x","args":[]}`, "at /args: must be object"},
		{"chat.send", `{"sessionKey":"main","message":"hi"}`, "must have required property 'idempotencyKey'"},
		{"chat.send", `{"sessionKey":"main","message":"hi","idempotencyKey":"k","mentions":[{"profileId":"p","start":0,"end":0}]}`, "at /mentions/0/end: must be >= 1"},
		{"send", `{"to":"x","idempotencyKey":"k","message":"m","parseMode":"md"}`, "at /parseMode: must be equal to constant"},
		{"sessions.resolve", `{"key":"main","label":"x"}`, ""},
		{"sessions.resolve", `{"label":"ab́cd"}`, ""},
		{"sessions.messages.subscribe", `{"sessionKey":"main"}`, "must have required property 'key'; at root: unexpected property 'sessionKey'"},
		{"chat.abort", `{"sessionKey":"main","runId":""}`, "at /runId: must not have fewer than 1 characters"},
		{"sessions.delete", `[]`, "must be object"},
		{"sessions.list", `null`, ""},
	} {
		if got := Check(tc.method, []byte(tc.params)); got != tc.want {
			t.Errorf("Check(%s, %s)\n got %q\nwant %q", tc.method, tc.params, got, tc.want)
		}
	}
}

// TestExtensions checks that switchboard's own fields pass, with their
// types, and that a method without a schema is not checked.
func TestExtensions(t *testing.T) {
	for _, tc := range []struct{ method, params, want string }{
		{"sessions.search", `{"query":"x","kinds":["main"],"sinceMinutes":5,"cursor":"c"}`, ""},
		{"sessions.search", `{"query":"x","kinds":"main"}`, "at /kinds: must be array"},
		{"runs.get", `{"anything":1}`, ""},
	} {
		if got := Check(tc.method, []byte(tc.params)); got != tc.want {
			t.Errorf("Check(%s, %s) = %q, want %q", tc.method, tc.params, got, tc.want)
		}
	}
	if Version() == "" || !Has("chat.history") || Has("runs.get") {
		t.Fatalf("Version %q, Has(chat.history) %v, Has(runs.get) %v", Version(), Has("chat.history"), Has("runs.get"))
	}
}

// TestCompileRefusesUnknownKeywords keeps the checker honest: a schema
// using a keyword it does not implement is an error, not a pass.
func TestCompileRefusesUnknownKeywords(t *testing.T) {
	_, _, err := compileAll([]byte(`{"version":"x","params":{"m":{"type":"object","if":{}}}}`), nil)
	if err == nil {
		t.Fatal("a schema with `if` compiled")
	}
	_, _, err = compileAll([]byte(`{"version":"x","params":{"m":{"type":"object","properties":{"a":{}}}}}`), map[string]map[string]string{"m": {"a": `{}`}})
	if err == nil {
		t.Fatal("an extension redeclaring an OpenClaw field compiled")
	}
}

// FuzzCheck: no params, however malformed, make Check panic.
func FuzzCheck(f *testing.F) {
	f.Add("chat.history", `{"sessionKey":"main","limit":5000}`)
	f.Add("sessions.patch", `{"key":"k","label":null,"x":[1,{"y":"z"}]}`)
	f.Add("agent", `{"message":"\u0301\u200d","idempotencyKey":"k","timeout":1e400}`)
	f.Fuzz(func(t *testing.T, method, params string) {
		_ = Check(method, []byte(params))
	})
}

// BenchmarkCheckAgent is the check every `agent` request pays.
func BenchmarkCheckAgent(b *testing.B) {
	params := []byte(`{"message":"bench","idempotencyKey":"b123","sessionKey":"agent:main:main","deliver":false}`)
	b.ReportAllocs()
	for b.Loop() {
		if msg := Check("agent", params); msg != "" {
			b.Fatal(msg)
		}
	}
}
