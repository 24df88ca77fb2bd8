// Package toolpairs keeps tool calls and tool results paired the way model
// APIs require before a transcript is sent: OpenAI and Anthropic both refuse
// a tool result that does not answer a tool call of the assistant turn just
// before it, and an assistant tool call without its result. Transcripts break
// that rule legitimately: a run aborted between a tool call and its result
// (a crash, a cancel), or a history window that starts between the two.
package toolpairs

import (
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Interrupted is the text of the result supplied for a tool call that never
// got one.
const Interrupted = "tool call interrupted: no result was recorded"

// Repair returns msgs with every tool result answering a tool call of the
// closest preceding assistant message, and every such tool call answered:
// stray or duplicate results are dropped, and missing results are supplied
// as error results saying the call was interrupted, placed right after the
// results the turn has. msgs itself is not modified; when nothing needs
// repair it is returned as is.
func Repair(msgs []domain.Message) []domain.Message {
	if !needsRepair(msgs) {
		return msgs
	}
	out := make([]domain.Message, 0, len(msgs))
	var pending []domain.Block // calls of the current assistant turn still unanswered
	var turnTime int64
	flush := func() {
		for _, c := range pending {
			out = append(out, domain.Message{
				Role:       domain.RoleToolResult,
				ToolCallID: c.ID,
				ToolName:   c.Name,
				Content:    domain.BlockContent(domain.TextBlock(Interrupted)),
				IsError:    domain.Bool(true),
				Timestamp:  turnTime,
			})
		}
		pending = nil
	}
	for _, m := range msgs {
		if m.Role == domain.RoleToolResult {
			if i := indexOf(pending, m.ToolCallID); i >= 0 {
				pending = append(pending[:i:i], pending[i+1:]...)
				out = append(out, m)
			}
			continue
		}
		flush()
		out = append(out, m)
		if m.Role == domain.RoleAssistant {
			pending = append([]domain.Block(nil), m.Content.ToolCalls()...)
			turnTime = m.Timestamp
		}
	}
	flush()
	return out
}

// needsRepair is Repair's fast path: most transcripts are well formed.
func needsRepair(msgs []domain.Message) bool {
	var pending []domain.Block
	for _, m := range msgs {
		if m.Role == domain.RoleToolResult {
			i := indexOf(pending, m.ToolCallID)
			if i < 0 {
				return true
			}
			pending = append(pending[:i:i], pending[i+1:]...)
			continue
		}
		if len(pending) > 0 {
			return true
		}
		if m.Role == domain.RoleAssistant {
			pending = m.Content.ToolCalls()
		}
	}
	return len(pending) > 0
}

func indexOf(calls []domain.Block, id string) int {
	for i, c := range calls {
		if c.ID == id {
			return i
		}
	}
	return -1
}
