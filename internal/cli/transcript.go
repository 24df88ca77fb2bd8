package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// msgStyle says how much of a message to print.
type msgStyle struct {
	// maxLines cuts each text after this many lines (0 = all).
	maxLines int
	// display shows a session key as the reader knows it.
	display func(string) string
}

// badge describes where a message came from: its provenance and kind.
func badge(m domain.Message, display func(string) string) string {
	var parts []string
	if p := m.Provenance; p != nil {
		switch p.Kind {
		case domain.ProvenanceExternalUser:
			s := "external user"
			if p.SourceChannel != "" {
				s += " · " + p.SourceChannel
			}
			parts = append(parts, s)
		case domain.ProvenanceInterSession:
			s := "inter-session"
			if p.SourceSessionKey != "" {
				s += " ← " + display(p.SourceSessionKey)
			}
			if p.SourceTool != "" {
				s += " · " + p.SourceTool
			}
			parts = append(parts, s)
		case domain.ProvenanceInternalSystem:
			parts = append(parts, "system")
		case domain.ProvenanceA2AStep:
			// A step prompt switchboard wrote, never the other side's text.
			s := "a2a step"
			if p.Step != "" {
				s = "a2a " + p.Step + " step"
			}
			if p.SourceSessionKey != "" {
				s += " from " + display(p.SourceSessionKey)
			}
			parts = append(parts, s)
		default:
			parts = append(parts, p.Kind)
		}
	}
	if m.Kind != "" {
		parts = append(parts, m.Kind)
	}
	if m.Role == domain.RoleToolResult && m.IsError != nil && *m.IsError {
		parts = append(parts, "error")
	}
	if m.Role == domain.RoleAssistant && m.StopReason == domain.StopReasonError {
		parts = append(parts, "error")
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, " · ") + "]"
}

// writeMessage prints one transcript message: a header line with time,
// role and badge, then its text and tool calls, indented.
func writeMessage(w io.Writer, m domain.Message, st msgStyle) {
	if st.display == nil {
		st.display = func(k string) string { return k }
	}
	head := fmt.Sprintf("%s  %s", clock(m.Timestamp), m.Role)
	if m.Role == domain.RoleToolResult && m.ToolName != "" {
		head += " ← " + m.ToolName
	}
	if b := badge(m, st.display); b != "" {
		head += "  " + b
	}
	fmt.Fprintln(w, head)
	var body []string
	for _, b := range m.Content.Blocks() {
		switch b.Type {
		case domain.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				body = append(body, b.Text)
			}
		case domain.BlockToolCall:
			body = append(body, fmt.Sprintf("→ %s %s", b.Name, clip(string(b.Arguments), 200)))
		case domain.BlockThinking:
			body = append(body, "(thinking) "+clip(b.Thinking, 120))
		case domain.BlockImage:
			body = append(body, fmt.Sprintf("(image %s)", b.MimeType))
		}
	}
	if m.ErrorMessage != "" {
		body = append(body, "error: "+m.ErrorMessage)
	}
	text := strings.Join(body, "\n")
	if st.maxLines > 0 {
		lines := strings.Split(text, "\n")
		if len(lines) > st.maxLines {
			text = strings.Join(lines[:st.maxLines], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-st.maxLines)
		}
	}
	if text != "" {
		fmt.Fprintln(w, indent(text, "          "))
	}
}
