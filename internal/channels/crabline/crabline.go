// Package crabline runs OpenClaw's fake chat-provider servers
// (@openclaw/crabline, installed in test/realclients/node_modules) for
// tests: it starts `crabline --json serve <provider>`, reads its
// manifest, injects user messages through its admin ingress and reads the
// API calls it recorded. It also has the small proxies the tests put in
// front of it to cut connections and answer 429s, which crabline cannot.
package crabline

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

	"github.com/switchboard-go/switchboard/internal/channels/chantest"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// Server is a running crabline server and its manifest.
type Server struct {
	AdminToken string `json:"adminToken"`
	BotToken   string `json:"botToken"`
	BotUserID  string `json:"botUserId"`
	BaseURL    string `json:"baseUrl"`
	Fixture    struct {
		ChannelID string `json:"channelId"`
		GuildID   string `json:"guildId"`
	} `json:"fixture"`
	// Account is the Signal server's account number; AccessToken,
	// PhoneNumberID and GraphVersion are the WhatsApp server's.
	Account       string `json:"account"`
	AccessToken   string `json:"accessToken"`
	PhoneNumberID string `json:"phoneNumberId"`
	GraphVersion  string `json:"graphVersion"`
	Endpoints     struct {
		AdminInboundURL string `json:"adminInboundUrl"`
		APIRoot         string `json:"apiRoot"`
		GatewayURL      string `json:"gatewayUrl"`
		EventsURL       string `json:"eventsUrl"`
		RPCURL          string `json:"rpcUrl"`
		MessagesURL     string `json:"messagesUrl"`
	} `json:"endpoints"`
	// Recorder is the JSONL file of recorded calls.
	Recorder string `json:"-"`
}

// Start runs `crabline serve <provider>` until the test ends, or skips
// the test when real clients are not enabled (CI enables them with
// SWITCHBOARD_REAL_CLIENTS=1).
func Start(t testing.TB, provider string, args ...string) *Server {
	t.Helper()
	testkit.RealClients(t, "crabline tests need SWITCHBOARD_REAL_CLIENTS=1 (and npm ci in test/realclients)")
	dir := t.TempDir()
	ready, rec := filepath.Join(dir, "ready.json"), filepath.Join(dir, "rec.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	argv := append([]string{"--json", "serve", provider, "--ready-file", ready, "--recorder", rec}, args...)
	cmd := exec.CommandContext(ctx, testkit.NPMBin(t, "crabline"), argv...)
	cmd.Env = testkit.NodeEnv(t, dir)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("crabline: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cancel(); <-exited })
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(ready)
		var s Server
		if err == nil && json.Unmarshal(b, &s) == nil && s.BaseURL != "" {
			s.Recorder = rec
			return &s
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

// Inject posts a user message through the admin ingress.
func (s *Server) Inject(t testing.TB, body map[string]any) {
	t.Helper()
	s.InjectResult(t, body)
}

// InjectResult posts a user message through the admin ingress and
// returns crabline's answer (the WhatsApp server's holds the Cloud API
// webhook payload, which the test relays itself).
func (s *Server) InjectResult(t testing.TB, body map[string]any) []byte {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, s.Endpoints.AdminInboundURL, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Crabline-Admin-Token", s.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("inject: %s %s", resp.Status, out)
	}
	return out
}

// Call is one recorded line.
type Call struct {
	Type     string         `json:"type"`
	Method   string         `json:"method"`
	Path     string         `json:"path"`
	Body     map[string]any `json:"body"`
	Accepted bool           `json:"accepted"`
}

// Calls returns the recorded API calls (not admin traffic) keep accepts.
func (s *Server) Calls(t testing.TB, keep func(Call) bool) []Call {
	t.Helper()
	f, err := os.Open(s.Recorder)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var c Call
		if json.Unmarshal(sc.Bytes(), &c) == nil && c.Type == "api" && keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// DiscordPosts returns the messages posted (and accepted) to a Discord
// channel.
func (s *Server) DiscordPosts(t testing.TB, channelID string) []Call {
	return s.Calls(t, func(c Call) bool {
		return c.Method == http.MethodPost && c.Accepted && c.Path == "/api/v10/channels/"+channelID+"/messages"
	})
}

// DiscordPosted reports whether a message with exactly content was posted
// to a channel.
func (s *Server) DiscordPosted(t testing.TB, channelID, content string) bool {
	for _, p := range s.DiscordPosts(t, channelID) {
		if p.Body["content"] == content {
			return true
		}
	}
	return false
}

// WaitFor polls until cond holds, for at most 30 s. crabline's recorder
// is a file it appends to, with no event to wait on.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	chantest.WaitFor(t, what, cond)
}

// Host is the host:port of an http:// or ws:// URL.
func Host(u string) string {
	for _, p := range []string{"http://", "https://", "ws://", "wss://"} {
		u = strings.TrimPrefix(u, p)
	}
	h, _, _ := strings.Cut(u, "/")
	return h
}

// CutProxy is a TCP proxy whose connections a test can cut, as a network
// failure would.
type CutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

// NewCutProxy proxies a new loopback port to target (host:port) until the
// test ends.
func NewCutProxy(t testing.TB, target string) *CutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &CutProxy{ln: ln}
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
	t.Cleanup(func() { ln.Close(); p.Cut(); p.wg.Wait() })
	return p
}

// Cut closes every proxied connection.
func (p *CutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Addr is the proxy's host:port.
func (p *CutProxy) Addr() string { return p.ln.Addr().String() }

// DiscordDirectChannelID is crabline's id of the DM channel between two
// Discord users (sha256 of the sorted ids, folded into a snowflake).
func DiscordDirectChannelID(a, b string) string {
	return discordDirect(a, b)
}
