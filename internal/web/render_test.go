package web

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// domShim is the little of the DOM the rendering modules touch, so their
// output can be checked under Node without a browser.
const domShim = `
class Node {
  constructor() { this.children = []; this.attrs = {}; this.dataset = {}; this.style = {}; this.className = ''; this._text = ''; }
  setAttribute(k, v) { this.attrs[k] = v; }
  getAttribute(k) { return this.attrs[k]; }
  addEventListener() {}
  append(...cs) { for (const c of cs) this.children.push(c); }
  set textContent(v) { this._text = v; this.children = []; }
  get textContent() { return this._text + this.children.map((c) => c.textContent).join(''); }
}
class Element extends Node { constructor(tag) { super(); this.tag = tag; } }
class Text extends Node { constructor(t) { super(); this._text = t; } }
globalThis.Node = Node;
globalThis.document = {createElement: (t) => new Element(t), createTextNode: (t) => new Text(t)};
globalThis.location = {hash: '', pathname: '/', search: ''};
function find(el, pred) {
  if (pred(el)) return el;
  for (const c of el.children || []) { const f = find(c, pred); if (f) return f; }
  return null;
}
const {renderMessage} = await import('./js/transcript.js');
const out = [];
for (const m of JSON.parse(process.argv[2])) {
  const el = renderMessage(m);
  const badge = find(el, (e) => (e.className || '').split(' ').some((c) => c === 'badge' || c === 'msg-role'));
  const source = find(el, (e) => e.className === 'msg-source');
  out.push({class: el.className, badge: badge ? badge.textContent : '', source: source ? source.textContent : ''});
}
console.log(JSON.stringify(out));
`

// rendered is what the shim reports of one rendered message.
type rendered struct {
	Class  string `json:"class"`
	Badge  string `json:"badge"`
	Source string `json:"source"`
}

// renderWithNode renders messages with the UI's transcript.js under Node;
// it skips the test when Node is not installed.
func renderWithNode(t *testing.T, msgs []map[string]any) []rendered {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	static, err := fs.Sub(files, "static")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, static); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.mjs"), []byte(domShim), 0o600); err != nil {
		t.Fatal(err)
	}
	arg, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "run.mjs"), string(arg))
	cmd.Dir = dir
	b, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node: %v\n%s", err, stderr)
	}
	var out []rendered
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("node output %q: %v", b, err)
	}
	return out
}

// An agent-to-agent step prompt is shown as a reply or announce step
// from the other session, never as the user's or the sender's words.
func TestTranscriptRendersA2AStep(t *testing.T) {
	step := func(s string) map[string]any {
		return map[string]any{"role": "user", "content": "Agent-to-agent " + s + " step.", "timestamp": 1,
			"provenance": map[string]any{"kind": "a2a_step", "step": s, "sourceSessionKey": "agent:main:main"}}
	}
	tests := []struct {
		name string
		m    map[string]any
		want rendered
	}{
		{"reply step", step("reply"), rendered{Class: "msg msg-user msg-a2a-step", Badge: "Reply step", Source: "exchange with agent:main:main"}},
		{"announce step", step("announce"), rendered{Class: "msg msg-user msg-a2a-step", Badge: "Announce step", Source: "exchange with agent:main:main"}},
		{"plain user", map[string]any{"role": "user", "content": "hi", "timestamp": 1}, rendered{Class: "msg msg-user", Badge: "User"}},
		{"inter-session", map[string]any{"role": "user", "content": "hi", "timestamp": 1,
			"provenance": map[string]any{"kind": "inter_session", "sourceSessionKey": "agent:main:main", "sourceTool": "sessions_send"}},
			rendered{Class: "msg msg-user msg-inter", Badge: "Inter-session", Source: "from agent:main:main via sessions_send"}},
		{"forked user", map[string]any{"role": "user", "content": "earlier", "timestamp": 1,
			"provenance": map[string]any{"kind": "fork", "sourceSessionKey": "agent:main:main"}},
			rendered{Class: "msg msg-user msg-fork", Badge: "Forked", Source: "copied from agent:main:main"}},
		{"forked assistant", map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "timestamp": 1,
			"provenance": map[string]any{"kind": "fork", "sourceSessionKey": "agent:main:main"}},
			rendered{Class: "msg msg-assistant msg-fork", Badge: "Forked", Source: "copied from agent:main:main"}},
	}
	msgs := make([]map[string]any, len(tests))
	for i, tt := range tests {
		msgs[i] = tt.m
	}
	got := renderWithNode(t, msgs)
	if len(got) != len(tests) {
		t.Fatalf("rendered %d messages, want %d", len(got), len(tests))
	}
	for i, tt := range tests {
		if got[i] != tt.want {
			t.Errorf("%s: rendered %+v, want %+v", tt.name, got[i], tt.want)
		}
	}
}
