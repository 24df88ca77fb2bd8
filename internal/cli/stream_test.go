package cli

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeLog records each Write separately, so a test sees whether the reply
// came in pieces or at once.
type writeLog struct {
	mu     sync.Mutex
	pieces []string
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pieces = append(w.pieces, string(p))
	return len(p), nil
}

func (w *writeLog) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.pieces, "")
}

const streamReply = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"

const streamConfig = `{ models: { providers: { script: { rules: [
  { when: { message: "^stream" }, reply: "` + streamReply + `", chunkChars: 5, chunkMs: 40 },
] } } } }`

// chatStreamed runs chat with stdout recorded write by write.
func chatStreamed(t *testing.T, c *cli, args ...string) (*writeLog, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := &writeLog{}
	var errb bytes.Buffer
	code := Main(ctx, append([]string{"chat", "main"}, args...), func(k string) string { return c.env[k] }, strings.NewReader(""), out, &errb)
	return out, errb.String(), code
}

// TestChatStreams: `chat --stream on` prints the reply piece by piece as
// the model produces it, in-process and through a gateway; the output
// adds up to the reply and a newline, as without streaming.
func TestChatStreams(t *testing.T) {
	for _, remote := range []bool{false, true} {
		name := map[bool]string{false: "in-process", true: "through a gateway"}[remote]
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			c.writeConfig(streamConfig)
			if remote {
				_, stop := startGateway(t, c, "--listen", "127.0.0.1:0")
				defer stop()
			}
			out, stderr, code := chatStreamed(t, c, "stream please", "--stream", "on")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if out.all() != streamReply+"\n" {
				t.Fatalf("stdout %q, want the reply and a newline", out.all())
			}
			// Through a gateway the first pieces may go by before the
			// WebSocket subscribed; later ones still arrive one by one.
			if min := map[bool]int{false: 12, true: 3}[remote]; len(out.pieces) < min {
				t.Errorf("%d writes %q, want the reply in pieces (at least %d)", len(out.pieces), out.pieces, min)
			}
		})
	}
}

// TestChatStreamOff: --json, --stream off and a non-terminal stdout
// (auto) print the reply whole, once.
func TestChatStreamOff(t *testing.T) {
	c := newCLI(t)
	c.writeConfig(streamConfig)
	for _, args := range [][]string{{"--stream", "off"}, {}, {"--json"}} {
		out, stderr, code := chatStreamed(t, c, append([]string{"stream please"}, args...)...)
		if code != 0 || len(out.pieces) != 1 || !strings.Contains(out.all(), streamReply) {
			t.Errorf("chat %v: exit %d, writes %q, stderr %s; want one write with the reply", args, code, out.pieces, stderr)
		}
	}
	// --stream on asks for streamed text, --json for one document: the
	// contradiction is a usage error, as the help says.
	if r := c.run("chat", "main", "x", "--stream", "on", "--json"); r.code != exitUsage || !strings.Contains(r.stderr, "--stream on cannot be combined with --json") {
		t.Errorf("--stream on --json: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
	if r := c.run("chat", "main", "x", "--stream", "maybe"); r.code != exitUsage || !strings.Contains(r.stderr, "want auto, on or off") {
		t.Errorf("--stream maybe: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestReplyPrinter(t *testing.T) {
	tests := []struct {
		name    string
		updates []string
		final   string
		want    string
	}{
		{"grows", []string{"He", "Hello", "Hello!"}, "Hello!", "Hello!\n"},
		{"a new model step starts a line", []string{"Looking", "Looking it up", "Found", "Found it"}, "Found it", "Looking it up\nFound it\n"},
		{"the stored reply differs", []string{"draft"}, "final answer", "draft\nfinal answer\n"},
		{"nothing streamed", nil, "whole", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &replyPrinter{w: &b}
			for _, u := range tt.updates {
				p.text(u)
			}
			if streamed := p.finish(tt.final); streamed != (tt.updates != nil) || b.String() != tt.want {
				t.Errorf("output %q (streamed %v), want %q", b.String(), streamed, tt.want)
			}
		})
	}
}
