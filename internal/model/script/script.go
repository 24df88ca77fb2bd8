// Package script is switchboard's built-in offline model (docs/design.md#the-script-model): a
// deterministic provider driven by an ordered list of rules from config, for
// first runs, demos and tests. It speaks through the same domain.Provider
// interface as the real model APIs.
package script

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Name is the provider name of the script model, and API the value of the
// api field of its assistant messages.
const (
	Name = "script"
	API  = "script"
)

// Model is the script provider. It is safe for concurrent use.
type Model struct {
	rules []rule
	now   func() time.Time
}

var _ domain.Provider = (*Model)(nil)

// New compiles rules (config models.providers.script.rules). now stamps the
// answers; nil means time.Now. An invalid rule is an error naming its index
// and field, like `rules[2].when.message: error parsing regexp: …`.
func New(rules []config.ScriptRule, now func() time.Time) (*Model, error) {
	if now == nil {
		now = time.Now
	}
	m := &Model{now: now}
	for i, rc := range rules {
		r, err := compileRule(rc)
		if err != nil {
			return nil, fmt.Errorf("rules[%d]%w", i, err)
		}
		m.rules = append(m.rules, r)
	}
	return m, nil
}

// Name returns "script".
func (m *Model) Name() string { return Name }

// ThinkingLevels returns every level: the script model accepts and ignores them.
func (m *Model) ThinkingLevels(string) []string {
	return []string{"off", "minimal", "low", "medium", "high"}
}

// Complete answers with the first matching rule, else the default echo. A
// rule's error action fails the call with a non-retryable error whose
// message is the configured text.
func (m *Model) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return domain.ModelResponse{}, err
	}
	in := newInput(req)
	var (
		r     *rule
		match []int
	)
	for i := range m.rules {
		if mm, ok := m.rules[i].matches(in); ok {
			r, match = &m.rules[i], mm
			break
		}
	}
	if r != nil && r.delay > 0 {
		if err := wait(ctx, r.delay); err != nil {
			return domain.ModelResponse{}, err
		}
	}

	var block domain.Block
	var outChars int
	stop := domain.StopReasonStop
	switch {
	case r == nil:
		text := defaultReply(in)
		block, outChars = domain.TextBlock(text), runeLen(text)
	case r.err != nil:
		return domain.ModelResponse{}, &domain.Error{Code: domain.CodeInternal, Message: *r.err}
	case r.reply != nil:
		text := r.expand(*r.reply, in, match)
		block, outChars = domain.TextBlock(text), runeLen(text)
	default:
		args, err := json.Marshal(r.expandValue(r.toolArgs, in, match))
		if err != nil {
			return domain.ModelResponse{}, fmt.Errorf("script: tool call arguments: %w", err)
		}
		id, err := newCallID()
		if err != nil {
			return domain.ModelResponse{}, err
		}
		block = domain.Block{Type: domain.BlockToolCall, ID: id, Name: r.toolName, Arguments: args}
		outChars = runeLen(string(args))
		stop = domain.StopReasonToolUse
	}

	// A text answer stops at maxTokens (stop reason "length"), as a real
	// model's does; a tool call is never cut.
	if block.Type == domain.BlockText && req.MaxTokens > 0 && ceilDiv4(outChars) > int64(req.MaxTokens) {
		block.Text = firstRunes(block.Text, 4*req.MaxTokens)
		outChars, stop = runeLen(block.Text), domain.StopReasonLength
	}

	if r != nil && r.chunk > 0 && req.OnDelta != nil {
		if err := r.stream(ctx, block, req.OnDelta); err != nil {
			return domain.ModelResponse{}, err
		}
	}

	input, output := ceilDiv4(promptChars(req)), ceilDiv4(outChars)
	model := req.Model
	if model == "" {
		model = Name
	}
	return domain.ModelResponse{Message: domain.Message{
		Role:       domain.RoleAssistant,
		Content:    domain.BlockContent(block),
		Timestamp:  m.now().UnixMilli(),
		API:        API,
		Provider:   Name,
		Model:      model,
		Usage:      &domain.Usage{Input: input, Output: output, TotalTokens: input + output},
		StopReason: stop,
	}}, nil
}

// wait blocks for d or until ctx is done, whichever comes first.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// defaultReply is the answer when no rule matches (docs/design.md#the-script-model): silence in
// the steps of an agent-to-agent exchange (REPLY_SKIP in a reply-back
// turn, ANNOUNCE_SKIP in an announce step), else a tool result's text
// handed back, else an echo of the message.
func defaultReply(in input) string {
	switch {
	case hasHeader(in.system, domain.A2AHeaderReply):
		return domain.ReplySkip
	case hasHeader(in.system, domain.A2AHeaderAnnounce):
		return domain.AnnounceSkip
	case in.role == domain.RoleToolResult:
		return in.message
	}
	return "echo: " + in.message
}

// hasHeader reports whether the system prompt has a line that starts with
// header: injected contexts begin with their header on a line of its own.
func hasHeader(system, header string) bool {
	for line := range strings.Lines(system) {
		if strings.HasPrefix(line, header) {
			return true
		}
	}
	return false
}

func newCallID() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("script: tool call id: %w", err)
	}
	return "call_" + hex.EncodeToString(b[:]), nil
}

// firstRunes is s cut to at most n runes.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
