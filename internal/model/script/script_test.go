package script

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

var fixedNow = time.UnixMilli(1_700_000_000_000)

func str(s string) *string { return &s }

func user(text string) domain.Message {
	return domain.Message{Role: domain.RoleUser, Content: domain.TextContent(text)}
}

func toolResult(text string) domain.Message {
	return domain.Message{Role: domain.RoleToolResult, ToolCallID: "call_1", ToolName: "sessions_list",
		Content: domain.BlockContent(domain.TextBlock(text))}
}

func newModel(t *testing.T, rules ...config.ScriptRule) *Model {
	t.Helper()
	m, err := New(rules, func() time.Time { return fixedNow })
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

// replyText returns the text of a one-text-block answer.
func replyText(t *testing.T, resp domain.ModelResponse) string {
	t.Helper()
	blocks := resp.Message.Content.Blocks()
	if len(blocks) != 1 || blocks[0].Type != domain.BlockText {
		t.Fatalf("want one text block, got %+v", blocks)
	}
	return blocks[0].Text
}

func TestConditions(t *testing.T) {
	base := domain.ModelRequest{
		AgentID:    "research",
		SessionKey: "agent:research:main",
		System:     "You are research.\nAgent-to-agent reply step:\nTurn 1 of 5",
		Messages:   []domain.Message{user("first"), user("ping 42")},
	}
	// base is a reply-back turn: with no matching rule, the default is
	// REPLY_SKIP (docs/design.md#the-script-model).
	const miss = domain.ReplySkip
	tests := []struct {
		name string
		when config.ScriptWhen
		req  func(domain.ModelRequest) domain.ModelRequest
		want string
	}{
		{"agent matches", config.ScriptWhen{Agent: "^research$"}, nil, "hit"},
		{"agent differs", config.ScriptWhen{Agent: "^main$"}, nil, miss},
		{"agent unanchored", config.ScriptWhen{Agent: "sear"}, nil, "hit"},
		{"session matches", config.ScriptWhen{Session: `^agent:research:`}, nil, "hit"},
		{"session differs", config.ScriptWhen{Session: `:subagent:`}, nil, miss},
		{"role user", config.ScriptWhen{Role: "^user$"}, nil, "hit"},
		{"role toolResult wanted, user given", config.ScriptWhen{Role: "^toolResult$"}, nil, miss},
		{"role toolResult", config.ScriptWhen{Role: "^toolResult$"}, func(r domain.ModelRequest) domain.ModelRequest {
			r.Messages = append(r.Messages, toolResult(`{"count":0}`))
			return r
		}, "hit"},
		{"message matches last message only", config.ScriptWhen{Message: `ping \d+`}, nil, "hit"},
		{"message of an earlier message does not count", config.ScriptWhen{Message: `^first$`}, nil, miss},
		{"message of a tool result is its text", config.ScriptWhen{Message: `"count":0`}, func(r domain.ModelRequest) domain.ModelRequest {
			r.Messages = append(r.Messages, toolResult(`{"count":0}`))
			return r
		}, "hit"},
		{"system matches injected header", config.ScriptWhen{System: `(?m)^Agent-to-agent reply step:$`}, nil, "hit"},
		{"system differs", config.ScriptWhen{System: `announce step`}, nil, miss},
		{"all conditions hold", config.ScriptWhen{Agent: "research", Session: "main", Role: "user", Message: "ping", System: "reply step"}, nil, "hit"},
		{"one condition fails", config.ScriptWhen{Agent: "research", Session: "main", Role: "user", Message: "pong", System: "reply step"}, nil, miss},
		{"no conditions match everything", config.ScriptWhen{}, nil, "hit"},
		{"no messages: message condition sees empty text", config.ScriptWhen{Message: `^$`}, func(r domain.ModelRequest) domain.ModelRequest {
			r.Messages = nil
			return r
		}, "hit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, config.ScriptRule{When: tt.when, Reply: str("hit")})
			req := base
			if tt.req != nil {
				req = tt.req(base)
			}
			resp, err := m.Complete(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := replyText(t, resp); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	tests := []struct {
		name   string
		system string
		msgs   []domain.Message
		want   string
	}{
		{"user message echoes", "", []domain.Message{user("hello there")}, "echo: hello there"},
		{"tool result is handed back", "", []domain.Message{user("list"), toolResult(`{"sessions":[]}`)}, `{"sessions":[]}`},
		{"no messages", "", nil, "echo: "},
		{"block content user message", "", []domain.Message{{Role: domain.RoleUser, Content: domain.BlockContent(domain.TextBlock("a"), domain.TextBlock("b"))}}, "echo: a\nb"},
		{"reply-back turn is skipped", "You are main.\n\nAgent-to-agent reply step:\nTurn 1 of 5.", []domain.Message{user("the other side's reply")}, domain.ReplySkip},
		{"announce step is skipped", "You are research.\n\nAgent-to-agent announce step:\nOriginal request: x", []domain.Message{user(domain.A2AAnnounceText)}, domain.AnnounceSkip},
		{"primary run of a send echoes", "Agent-to-agent message context:\nRequester session: agent:main:main.", []domain.Message{user("hi")}, "echo: hi"},
		{"sub-agent announce to its requester is no a2a step", "Sub-agent announce:\nThe child finished.", []domain.Message{user("result")}, "echo: result"},
		{"header inside a line is not a step", "Say \"Agent-to-agent announce step:\" to nobody.", []domain.Message{user("hi")}, "echo: hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, config.ScriptRule{When: config.ScriptWhen{Agent: "nobody"}, Reply: str("never")})
			resp, err := m.Complete(t.Context(), domain.ModelRequest{System: tt.system, Messages: tt.msgs})
			if err != nil {
				t.Fatal(err)
			}
			if got := replyText(t, resp); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
			if resp.Message.StopReason != domain.StopReasonStop {
				t.Errorf("stopReason = %q, want stop", resp.Message.StopReason)
			}
		})
	}
}

func TestReplySubstitutions(t *testing.T) {
	tests := []struct {
		name    string
		when    config.ScriptWhen
		reply   string
		message string
		want    string
	}{
		{"numbered groups", config.ScriptWhen{Message: `^ask (\w+) about (.+)$`}, "asking $1: $2", "ask research about tides", "asking research: tides"},
		{"named group", config.ScriptWhen{Message: `to=(?P<to>\S+)`}, "to ${to}!", "send to=agent:x:main now", "to agent:x:main!"},
		{"message placeholder", config.ScriptWhen{}, "you said <{{message}}>", "hi", "you said <hi>"},
		{"placeholder twice", config.ScriptWhen{}, "{{message}}/{{message}}", "x", "x/x"},
		{"message text is not expanded", config.ScriptWhen{Message: `(cost)`}, "{{message}} $1", "cost is $1 ${x}", "cost is $1 ${x} cost"},
		{"no message condition: $1 is empty", config.ScriptWhen{Agent: "."}, "[$1]", "anything", "[]"},
		{"missing group is empty", config.ScriptWhen{Message: `(a)`}, "[$1][$2]", "a", "[a][]"},
		{"dollar escape", config.ScriptWhen{Message: `(\d+)`}, "$$$1", "7", "$7"},
		{"unanchored match uses first match", config.ScriptWhen{Message: `n(\d)`}, "$1", "n1 n2", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, config.ScriptRule{When: tt.when, Reply: str(tt.reply)})
			resp, err := m.Complete(t.Context(), domain.ModelRequest{AgentID: "main", Messages: []domain.Message{user(tt.message)}})
			if err != nil {
				t.Fatal(err)
			}
			if got := replyText(t, resp); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToolCall(t *testing.T) {
	rule := config.ScriptRule{
		When: config.ScriptWhen{Role: "user", Message: `^send (\S+) (.*)$`},
		ToolCall: &config.ScriptToolCall{Name: "sessions_send", Arguments: map[string]any{
			"sessionKey":     "$1",
			"message":        "$2",
			"timeoutSeconds": float64(0),
			"nested": map[string]any{
				"list":  []any{"$1", "{{message}}", true, nil, map[string]any{"deep": "<$2>"}},
				"plain": "no subst",
			},
		}},
	}
	m := newModel(t, rule)
	req := domain.ModelRequest{Model: "demo", Messages: []domain.Message{user("send agent:b:main hello b")}}
	resp, err := m.Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.Content.ToolCalls()
	if len(calls) != 1 || len(resp.Message.Content.Blocks()) != 1 {
		t.Fatalf("want exactly one toolCall block, got %+v", resp.Message.Content.Blocks())
	}
	c := calls[0]
	if c.Name != "sessions_send" || !strings.HasPrefix(c.ID, "call_") || len(c.ID) != len("call_")+24 {
		t.Errorf("bad call block: %+v", c)
	}
	var got map[string]any
	if err := json.Unmarshal(c.Arguments, &got); err != nil {
		t.Fatalf("arguments are not a JSON object: %s", c.Arguments)
	}
	want := map[string]any{
		"sessionKey":     "agent:b:main",
		"message":        "hello b",
		"timeoutSeconds": float64(0),
		"nested": map[string]any{
			"list":  []any{"agent:b:main", "send agent:b:main hello b", true, nil, map[string]any{"deep": "<hello b>"}},
			"plain": "no subst",
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("arguments (-want +got):\n%s", d)
	}
	if resp.Message.StopReason != domain.StopReasonToolUse {
		t.Errorf("stopReason = %q, want toolUse", resp.Message.StopReason)
	}
	// The rule's own arguments are a template and must survive the call.
	if rule.ToolCall.Arguments["sessionKey"] != "$1" {
		t.Errorf("rule arguments were modified: %v", rule.ToolCall.Arguments)
	}

	// Every call gets a fresh id.
	resp2, err := m.Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if id2 := resp2.Message.Content.ToolCalls()[0].ID; id2 == c.ID {
		t.Errorf("tool call ids repeat: %s", id2)
	}
}

func TestToolCallWithoutArguments(t *testing.T) {
	m := newModel(t, config.ScriptRule{ToolCall: &config.ScriptToolCall{Name: "agents_list"}})
	resp, err := m.Complete(t.Context(), domain.ModelRequest{Messages: []domain.Message{user("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.Message.Content.ToolCalls()[0].Arguments); got != "{}" {
		t.Errorf("arguments = %s, want {}", got)
	}
	if u := resp.Message.Usage; u.Output != 1 {
		t.Errorf("output tokens = %d, want ceil(2/4) = 1", u.Output)
	}
}

func TestErrorAction(t *testing.T) {
	m := newModel(t,
		config.ScriptRule{When: config.ScriptWhen{Message: "fail"}, Error: str("model exploded: quota")},
		config.ScriptRule{Reply: str("fine")},
	)
	_, err := m.Complete(t.Context(), domain.ModelRequest{Messages: []domain.Message{user("please fail")}})
	if err == nil || err.Error() != "model exploded: quota" {
		t.Fatalf("err = %v, want the configured text", err)
	}
	var de *domain.Error
	if !errors.As(err, &de) || de.Code == domain.CodeUnavailable {
		t.Errorf("err must be a non-retryable coded error, got %#v", err)
	}
	if domain.ErrorMessage(err) != "model exploded: quota" {
		t.Errorf("client message = %q", domain.ErrorMessage(err))
	}
}

func TestFirstMatchWins(t *testing.T) {
	m := newModel(t,
		config.ScriptRule{When: config.ScriptWhen{Message: "^x$"}, Reply: str("exact")},
		config.ScriptRule{When: config.ScriptWhen{Message: "x"}, Reply: str("contains")},
		config.ScriptRule{Reply: str("catch-all")},
	)
	for msg, want := range map[string]string{"x": "exact", "xx": "contains", "y": "catch-all"} {
		resp, err := m.Complete(t.Context(), domain.ModelRequest{Messages: []domain.Message{user(msg)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := replyText(t, resp); got != want {
			t.Errorf("message %q: reply = %q, want %q", msg, got, want)
		}
	}
}

func TestMessageShape(t *testing.T) {
	m := newModel(t)
	tests := []struct {
		model, want string
	}{{"", "script"}, {"fast", "fast"}}
	for _, tt := range tests {
		resp, err := m.Complete(t.Context(), domain.ModelRequest{Model: tt.model, Messages: []domain.Message{user("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		got := resp.Message
		got.Content = domain.Content{}
		want := domain.Message{
			Role: domain.RoleAssistant, Timestamp: fixedNow.UnixMilli(), API: "script", Provider: "script", Model: tt.want,
			Usage: &domain.Usage{Input: 1, Output: 2, TotalTokens: 3}, StopReason: domain.StopReasonStop,
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(domain.Content{})); d != "" {
			t.Errorf("message (-want +got):\n%s", d)
		}
	}
	if m.Name() != "script" {
		t.Errorf("Name = %q", m.Name())
	}
	if d := cmp.Diff([]string{"off", "minimal", "low", "medium", "high"}, m.ThinkingLevels("any")); d != "" {
		t.Errorf("levels: %s", d)
	}
}

func TestUsage(t *testing.T) {
	args := json.RawMessage(`{"a":"é"}`) // 9 runes, 10 bytes
	tests := []struct {
		name    string
		rules   []config.ScriptRule
		req     domain.ModelRequest
		wantIn  int64
		wantOut int64
	}{
		{
			name:    "empty prompt, default echo",
			req:     domain.ModelRequest{},
			wantIn:  0,
			wantOut: 2, // "echo: " = 6 runes
		},
		{
			name: "system and messages counted in runes",
			req: domain.ModelRequest{
				System: "héllo", // 5 runes
				Messages: []domain.Message{
					user("abc"), // 3
					{Role: domain.RoleAssistant, Content: domain.BlockContent(
						domain.Block{Type: domain.BlockThinking, Thinking: "not counted"},
						domain.TextBlock("ok"), // 2
						domain.Block{Type: domain.BlockToolCall, ID: "c1", Name: "t", Arguments: args}, // 9
					)},
					toolResult("résumé"), // 6
				},
			},
			wantIn:  7, // ceil(25/4)
			wantOut: 2, // "résumé" = 6 runes
		},
		{
			name:   "exact multiple of four",
			rules:  []config.ScriptRule{{Reply: str("12345678")}},
			req:    domain.ModelRequest{System: "1234", Messages: []domain.Message{user("1234")}},
			wantIn: 2, wantOut: 2,
		},
		{
			name:   "tool call output counts the arguments JSON",
			rules:  []config.ScriptRule{{ToolCall: &config.ScriptToolCall{Name: "t", Arguments: map[string]any{"k": "$1"}}}},
			req:    domain.ModelRequest{Messages: []domain.Message{user("x")}},
			wantIn: 1, wantOut: 2, // {"k":""} = 8 runes
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, tt.rules...)
			resp, err := m.Complete(t.Context(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want := domain.Usage{Input: tt.wantIn, Output: tt.wantOut, TotalTokens: tt.wantIn + tt.wantOut}
			if d := cmp.Diff(want, *resp.Message.Usage); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
		})
	}
}

func TestDelay(t *testing.T) {
	rules := []config.ScriptRule{{When: config.ScriptWhen{Message: "slow"}, Reply: str("done"), DelayMs: 1500}}
	req := domain.ModelRequest{Messages: []domain.Message{user("slow please")}}

	t.Run("answers after the delay", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m, err := New(rules, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			resp, err := m.Complete(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if waited := time.Since(start); waited != 1500*time.Millisecond {
				t.Errorf("waited %v, want 1.5s", waited)
			}
			if replyText(t, resp) != "done" || resp.Message.Timestamp != start.Add(1500*time.Millisecond).UnixMilli() {
				t.Errorf("unexpected answer %+v", resp.Message)
			}
		})
	})

	t.Run("cancel during the delay returns at once without an answer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m, err := New(rules, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			type result struct {
				resp domain.ModelResponse
				err  error
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				resp, err := m.Complete(ctx, req)
				done <- result{resp, err}
			}()
			synctest.Wait() // Complete is now blocked in its delay
			select {
			case r := <-done:
				t.Fatalf("answered before the delay: %+v", r)
			default:
			}
			cancel()
			r := <-done
			if !errors.Is(r.err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", r.err)
			}
			if r.resp.Message.Role != "" {
				t.Errorf("got an answer after cancel: %+v", r.resp.Message)
			}
			if el := time.Since(start); el != 0 {
				t.Errorf("returned %v after the cancel, want at once", el)
			}
		})
	})

	t.Run("deadline shorter than the delay", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m, err := New(rules, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			_, err = m.Complete(ctx, req)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want deadline exceeded", err)
			}
		})
	})

	t.Run("already cancelled", func(t *testing.T) {
		m := newModel(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := m.Complete(ctx, req); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestConcurrentUse(t *testing.T) {
	m := newModel(t,
		config.ScriptRule{When: config.ScriptWhen{Message: `^call (\w+)$`}, ToolCall: &config.ScriptToolCall{Name: "t", Arguments: map[string]any{"x": "$1"}}},
		config.ScriptRule{When: config.ScriptWhen{Message: `^(\w+)$`}, Reply: str("got $1")},
	)
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			word := strings.Repeat("w", i+1)
			msg := word
			if i%2 == 0 {
				msg = "call " + word
			}
			resp, err := m.Complete(context.Background(), domain.ModelRequest{Messages: []domain.Message{user(msg)}})
			switch {
			case err != nil:
				errs <- err
			case i%2 == 0 && string(resp.Message.Content.ToolCalls()[0].Arguments) != `{"x":"`+word+`"}`:
				errs <- errors.New("wrong arguments: " + string(resp.Message.Content.ToolCalls()[0].Arguments))
			case i%2 == 1 && resp.Message.Content.Text() != "got "+word:
				errs <- errors.New("wrong reply: " + resp.Message.Content.Text())
			default:
				errs <- nil
			}
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name  string
		rules []config.ScriptRule
		want  string
	}{
		{"bad message regexp names index and field", []config.ScriptRule{{Reply: str("a")}, {When: config.ScriptWhen{Message: "("}, Reply: str("b")}}, "rules[1].when.message: error parsing regexp"},
		{"bad agent regexp", []config.ScriptRule{{When: config.ScriptWhen{Agent: "[z-a]"}, Reply: str("b")}}, "rules[0].when.agent: "},
		{"bad session regexp", []config.ScriptRule{{When: config.ScriptWhen{Session: "*"}, Reply: str("b")}}, "rules[0].when.session: "},
		{"bad role regexp", []config.ScriptRule{{When: config.ScriptWhen{Role: "(?P<"}, Reply: str("b")}}, "rules[0].when.role: "},
		{"bad system regexp", []config.ScriptRule{{When: config.ScriptWhen{System: `\`}, Reply: str("b")}}, "rules[0].when.system: "},
		{"no action", []config.ScriptRule{{}}, "rules[0]: needs exactly one of reply, toolCall, error (has 0)"},
		{"two actions", []config.ScriptRule{{Reply: str("a"), Error: str("b")}}, "rules[0]: needs exactly one of reply, toolCall, error (has 2)"},
		{"tool without name", []config.ScriptRule{{ToolCall: &config.ScriptToolCall{}}}, "rules[0].toolCall.name: must not be empty"},
		{"negative delay", []config.ScriptRule{{Reply: str("a"), DelayMs: -5}}, "rules[0].delayMs: -5 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.rules, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
