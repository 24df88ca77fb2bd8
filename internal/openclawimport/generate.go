package openclawimport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// Limits of Generate, so a typo cannot fill the disk.
const (
	maxGenSessions           = 10_000_000
	maxGenMessagesPerSession = 100_000
)

// Generate writes a synthetic OpenClaw state directory under dir with the
// given number of sessions, each with messagesPerSession messages on its
// active branch: agents "main" and "work", their main sessions, direct
// chats, groups, cron sessions and sub-agents (spawnedBy their agent's
// main), transcripts of user, assistant (text, tool calls, usage) and
// toolResult messages, and every 50th transcript with an abandoned branch.
//
// Content depends only on seed; times are relative to now, with about one
// session in twenty updated in the last hour, so "active" queries have
// something to find.
func Generate(dir string, sessions, messagesPerSession int, seed int64) error {
	switch {
	case sessions < 0 || sessions > maxGenSessions:
		return fmt.Errorf("generate: sessions is %d, want 0..%d", sessions, maxGenSessions)
	case messagesPerSession < 0 || messagesPerSession > maxGenMessagesPerSession:
		return fmt.Errorf("generate: messagesPerSession is %d, want 0..%d", messagesPerSession, maxGenMessagesPerSession)
	}
	now := time.Now()
	for _, agent := range []string{genMain, genWork} {
		if err := os.MkdirAll(filepath.Join(dir, "agents", agent, "sessions"), 0o700); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	g := generator{seed: uint64(seed), now: now.UnixMilli(), mps: messagesPerSession}
	gens := make([]genSession, sessions)

	var (
		wg       sync.WaitGroup
		next     atomic.Int64
		firstErr error
		errOnce  sync.Once
		failed   atomic.Bool
	)
	for range min(runtime.GOMAXPROCS(0), max(sessions, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= sessions {
					return
				}
				s, msgs := g.session(i)
				gens[i] = s
				if len(msgs) == 0 {
					continue
				}
				if err := g.writeTranscript(dir, s, msgs); err != nil {
					errOnce.Do(func() { firstErr = err })
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("generate: %w", firstErr)
	}
	for _, agent := range []string{genMain, genWork} {
		if err := writeIndex(filepath.Join(dir, "agents", agent, "sessions"), agent, gens); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	return nil
}

// The agents of a generated state dir; session i belongs to genWork when
// i%4 == 3.
const (
	genMain = "main"
	genWork = "work"
)

// writeTranscript writes s's JSONL file in one go: creating files
// dominates the cost of generating many sessions, so no syscall is spared.
func (g generator) writeTranscript(dir string, s genSession, msgs []domain.Message) error {
	data, err := transcript.Encode(transcript.Header{ID: s.e.SessionID, Timestamp: transcript.FormatTime(time.UnixMilli(msgs[0].Timestamp)), Cwd: dir}, msgs)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "agents", s.agent, "sessions", s.e.SessionID+".jsonl"), data, 0o600)
}

type genSession struct {
	agent string
	key   string
	e     genEntry
}

// genEntry is the sessions.json entry Generate writes, in OpenClaw's shape.
type genEntry struct {
	SessionID       string         `json:"sessionId"`
	UpdatedAt       int64          `json:"updatedAt"`
	ChatType        string         `json:"chatType,omitempty"`
	Channel         string         `json:"channel,omitempty"`
	LastChannel     string         `json:"lastChannel,omitempty"`
	LastTo          string         `json:"lastTo,omitempty"`
	LastAccountID   string         `json:"lastAccountId,omitempty"`
	DeliveryContext *deliveryGen   `json:"deliveryContext,omitempty"`
	Origin          *domain.Origin `json:"origin,omitempty"`
	Model           string         `json:"model"`
	ModelProvider   string         `json:"modelProvider"`
	InputTokens     int64          `json:"inputTokens"`
	OutputTokens    int64          `json:"outputTokens"`
	TotalTokens     int64          `json:"totalTokens"`
	ContextTokens   int64          `json:"contextTokens"`
	SpawnedBy       string         `json:"spawnedBy,omitempty"`
	SpawnDepth      int            `json:"spawnDepth,omitempty"`
	Label           string         `json:"label,omitempty"`
	DisplayName     string         `json:"displayName,omitempty"`
	ThinkingLevel   string         `json:"thinkingLevel,omitempty"`
	SystemSent      bool           `json:"systemSent"`
	AbortedLastRun  bool           `json:"abortedLastRun"`
}

type deliveryGen struct {
	Channel   string `json:"channel"`
	To        string `json:"to"`
	AccountID string `json:"accountId,omitempty"`
}

type generator struct {
	seed uint64
	now  int64
	mps  int
}

// session builds session i and its transcript (in file order).
func (g generator) session(i int) (genSession, []domain.Message) {
	rng := rand.New(rand.NewPCG(g.seed, uint64(i)))
	agent := genMain
	if i%4 == 3 {
		agent = genWork
	}
	s := genSession{agent: agent}
	e := &s.e
	e.SessionID = uuid(rng)
	if rng.IntN(20) == 0 {
		e.UpdatedAt = g.now - rng.Int64N(int64(55*time.Minute/time.Millisecond))
	} else {
		e.UpdatedAt = g.now - rng.Int64N(int64(30*24*time.Hour/time.Millisecond))
	}
	e.Model, e.ModelProvider = "gpt-4.1-mini", "openai"
	if rng.IntN(3) == 0 {
		e.Model, e.ModelProvider = "claude-sonnet-4-5", "anthropic"
	}
	e.SystemSent = true
	prefix := "agent:" + agent + ":"
	// Both agents get every kind: main-agent sessions see every i%10,
	// work-agent ones (i%4 == 3) the odd ones.
	switch r := i % 10; {
	case i == 0 || i == 3:
		s.key = prefix + "main"
		e.LastChannel, e.LastTo = "webchat", "webchat"
	case r == 1:
		ch := [...]string{"discord", "telegram", "slack"}[rng.IntN(3)]
		id := strconv.Itoa(100000 + i)
		s.key = prefix + ch + ":group:" + id
		e.ChatType, e.Channel, e.DisplayName = "group", ch, ch+" group "+id
		e.LastChannel, e.LastTo = ch, "group:"+id
		e.DeliveryContext = &deliveryGen{Channel: ch, To: "group:" + id, AccountID: "default"}
		e.Origin = &domain.Origin{Provider: ch, AccountID: "default"}
	case r == 2 || r == 5:
		s.key = prefix + "subagent:" + uuid(rng)
		e.SpawnedBy, e.SpawnDepth = prefix+"main", 1
		e.Label = "task-" + strconv.Itoa(i)
	case r == 7:
		s.key = prefix + "cron:job-" + strconv.Itoa(i)
	default:
		peer := strconv.Itoa(1_000_000 + i)
		s.key = prefix + "direct:" + peer
		e.ChatType, e.Channel = "direct", "telegram"
		e.LastChannel, e.LastTo, e.LastAccountID = "telegram", peer, "default"
		e.DeliveryContext = &deliveryGen{Channel: "telegram", To: peer, AccountID: "default"}
		e.Origin = &domain.Origin{Provider: "telegram", AccountID: "default"}
	}
	if rng.IntN(4) == 0 {
		e.ThinkingLevel = "low"
	}
	msgs := g.messages(rng, e)
	return s, msgs
}

// messages builds the transcript of a session: turns of user, assistant
// and sometimes a tool call with its result, ending at e.UpdatedAt.
func (g generator) messages(rng *rand.Rand, e *genEntry) []domain.Message {
	n := g.mps
	if n == 0 {
		return nil
	}
	msgs := make([]domain.Message, 0, n+1)
	ts := e.UpdatedAt - int64(n)*15_000
	ids := make(map[string]struct{}, n+1)
	newID := func() string {
		for {
			id := fmt.Sprintf("%08x", rng.Uint32())
			if _, dup := ids[id]; !dup {
				ids[id] = struct{}{}
				return id
			}
		}
	}
	add := func(m domain.Message) {
		ts += 15_000
		m.ID, m.Timestamp = newID(), ts
		if len(msgs) > 0 {
			m.ParentID = msgs[len(msgs)-1].ID
		}
		msgs = append(msgs, m)
	}
	for len(msgs) < n {
		add(domain.Message{Role: domain.RoleUser, Content: domain.TextContent(sentence(rng, 4, 40))})
		if len(msgs) < n && rng.IntN(3) == 0 {
			callID := "call_" + fmt.Sprintf("%08x", rng.Uint32())
			tool := [...]string{"sessions_list", "web_search", "read", "exec"}[rng.IntN(4)]
			args, _ := json.Marshal(map[string]string{"query": sentence(rng, 2, 6)})
			add(g.assistant(rng, domain.StopReasonToolUse, domain.TextBlock(sentence(rng, 3, 12)),
				domain.Block{Type: domain.BlockToolCall, ID: callID, Name: tool, Arguments: args}))
			if len(msgs) < n {
				add(domain.Message{Role: domain.RoleToolResult, ToolCallID: callID, ToolName: tool, IsError: domain.Bool(false),
					Content: domain.BlockContent(domain.TextBlock(sentence(rng, 10, 120)))})
			}
		}
		if len(msgs) < n {
			add(g.assistant(rng, domain.StopReasonStop, domain.TextBlock(sentence(rng, 5, 80))))
		}
	}
	for _, m := range msgs {
		if m.Usage != nil {
			e.InputTokens += m.Usage.Input
			e.OutputTokens += m.Usage.Output
		}
	}
	e.TotalTokens = e.InputTokens + e.OutputTokens
	e.ContextTokens = 128_000
	// Every 50th session has an abandoned reply: a sibling of the second
	// message that the active branch does not include.
	if h := rng.IntN(50); h == 0 && len(msgs) >= 3 {
		alt := g.assistant(rng, domain.StopReasonStop, domain.TextBlock("an earlier answer, regenerated"))
		alt.ID, alt.ParentID, alt.Timestamp = newID(), msgs[0].ID, msgs[1].Timestamp
		msgs = append(msgs[:2], append([]domain.Message{alt}, msgs[2:]...)...)
	}
	return msgs
}

func (g generator) assistant(rng *rand.Rand, stop string, blocks ...domain.Block) domain.Message {
	in, out := 200+rng.Int64N(6000), 10+rng.Int64N(800)
	return domain.Message{
		Role: domain.RoleAssistant, Content: domain.BlockContent(blocks...),
		API: "openai-responses", Provider: "openai", Model: "gpt-4.1-mini", StopReason: stop,
		Usage: &domain.Usage{Input: in, Output: out, TotalTokens: in + out,
			Cost: &domain.Cost{Input: float64(in) * 4e-7, Output: float64(out) * 1.6e-6, Total: float64(in)*4e-7 + float64(out)*1.6e-6}},
	}
}

var genWords = strings.Fields(`the a session agent gateway reply message tool result list send spawn
history channel group token model run queue store transcript branch error retry deploy check report
summary weather build test review merge ticket config schedule status update please thanks ok yes no
why how when where what which file line value debug log trace metric alert user team project`)

func sentence(rng *rand.Rand, minWords, maxWords int) string {
	n := minWords + rng.IntN(maxWords-minWords+1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(genWords[rng.IntN(len(genWords))])
	}
	b.WriteByte('.')
	return b.String()
}

func uuid(rng *rand.Rand) string {
	hi, lo := rng.Uint64(), rng.Uint64()
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

// writeIndex writes agent's sessions.json, one entry per line.
func writeIndex(sessionsDir, agent string, gens []genSession) error {
	f, err := os.OpenFile(filepath.Join(sessionsDir, "sessions.json"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("{")
	first := true
	for i := range gens {
		if gens[i].agent != agent {
			continue
		}
		k, err := json.Marshal(gens[i].key)
		if err != nil {
			f.Close()
			return err
		}
		v, err := json.Marshal(&gens[i].e)
		if err != nil {
			f.Close()
			return err
		}
		if !first {
			w.WriteString(",")
		}
		first = false
		w.WriteString("\n  ")
		w.Write(k)
		w.WriteString(": ")
		w.Write(v)
	}
	w.WriteString("\n}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
