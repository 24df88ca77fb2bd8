package script

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// messagePlaceholder is replaced by the last message's text in replies and
// tool call arguments.
const messagePlaceholder = "{{message}}"

// rule is a compiled config.ScriptRule.
type rule struct {
	agent, session, role, message, system *regexp.Regexp
	// noMessage matches the empty string; it stands in for a missing
	// message regexp so $1… expand to nothing.
	noMessage *regexp.Regexp

	reply    *string
	err      *string
	toolName string
	toolArgs map[string]any
	delay    time.Duration
	// chunk and chunkGap stream the answer (stream.go); chunk 0 does not.
	chunk    int
	chunkGap time.Duration
}

// compileRule checks and compiles one rule. Errors start with the field path
// inside the rule (".when.message: …") so New can prefix the index.
func compileRule(rc config.ScriptRule) (rule, error) {
	r := rule{
		reply:     rc.Reply,
		err:       rc.Error,
		delay:     time.Duration(rc.DelayMs) * time.Millisecond,
		noMessage: regexp.MustCompile(``),
	}
	conds := []struct {
		name string
		expr string
		dst  **regexp.Regexp
	}{
		{"agent", rc.When.Agent, &r.agent},
		{"session", rc.When.Session, &r.session},
		{"role", rc.When.Role, &r.role},
		{"message", rc.When.Message, &r.message},
		{"system", rc.When.System, &r.system},
	}
	for _, c := range conds {
		if c.expr == "" {
			continue
		}
		re, err := regexp.Compile(c.expr)
		if err != nil {
			return rule{}, fmt.Errorf(".when.%s: %w", c.name, err)
		}
		*c.dst = re
	}

	actions := 0
	if rc.Reply != nil {
		actions++
	}
	if rc.Error != nil {
		actions++
	}
	if rc.ToolCall != nil {
		actions++
		if strings.TrimSpace(rc.ToolCall.Name) == "" {
			return rule{}, errors.New(".toolCall.name: must not be empty")
		}
		r.toolName, r.toolArgs = rc.ToolCall.Name, rc.ToolCall.Arguments
	}
	if actions != 1 {
		return rule{}, fmt.Errorf(": needs exactly one of reply, toolCall, error (has %d)", actions)
	}
	if rc.DelayMs < 0 {
		return rule{}, fmt.Errorf(".delayMs: %d is negative", rc.DelayMs)
	}
	if rc.ChunkChars < 0 {
		return rule{}, fmt.Errorf(".chunkChars: %d is negative", rc.ChunkChars)
	}
	if rc.ChunkMs < 0 {
		return rule{}, fmt.Errorf(".chunkMs: %d is negative", rc.ChunkMs)
	}
	r.chunk, r.chunkGap = rc.ChunkChars, time.Duration(rc.ChunkMs)*time.Millisecond
	if r.chunk == 0 && r.chunkGap > 0 {
		r.chunk = DefaultChunkChars
	}
	return r, nil
}

// matches reports whether every condition of r holds for in. It also
// returns the submatch indexes of the message condition for expansion.
func (r *rule) matches(in input) ([]int, bool) {
	for _, c := range []struct {
		re *regexp.Regexp
		s  string
	}{
		{r.agent, in.agent}, {r.session, in.session}, {r.role, in.role}, {r.system, in.system},
	} {
		if c.re != nil && !c.re.MatchString(c.s) {
			return nil, false
		}
	}
	if r.message == nil {
		return nil, true
	}
	m := r.message.FindStringSubmatchIndex(in.message)
	return m, m != nil
}

// expand applies the substitutions to one template: $1… (and ${name}) from
// the message match with regexp.Expand semantics, and {{message}} verbatim.
// The template is split on the placeholder first so that the message text
// itself is never subject to $-expansion.
func (r *rule) expand(tmpl string, in input, match []int) string {
	re, src := r.message, in.message
	if re == nil {
		re, src, match = r.noMessage, "", []int{0, 0}
	}
	parts := strings.Split(tmpl, messagePlaceholder)
	for i, p := range parts {
		parts[i] = string(re.ExpandString(nil, p, src, match))
	}
	return strings.Join(parts, in.message)
}

// expandValue applies expand to every string inside v, recursively through
// objects and arrays; other values are kept. It returns a copy, never
// touching the rule's own arguments.
func (r *rule) expandValue(v any, in input, match []int) any {
	switch v := v.(type) {
	case string:
		return r.expand(v, in, match)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = r.expandValue(e, in, match)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = r.expandValue(e, in, match)
		}
		return out
	case nil:
		return nil
	default:
		return v
	}
}

// input is what rules look at.
type input struct {
	agent, session, role, message, system string
}

func newInput(req domain.ModelRequest) input {
	in := input{agent: req.AgentID, session: req.SessionKey, system: req.System}
	if n := len(req.Messages); n > 0 {
		last := req.Messages[n-1]
		in.role, in.message = last.Role, last.Content.Text()
	}
	return in
}
