package toolpairs

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func user(s string) domain.Message {
	return domain.Message{Role: domain.RoleUser, Content: domain.TextContent(s)}
}

func assistant(ts int64, ids ...string) domain.Message {
	blocks := []domain.Block{domain.TextBlock("calling")}
	for _, id := range ids {
		blocks = append(blocks, domain.Block{Type: domain.BlockToolCall, ID: id, Name: "tool_" + id})
	}
	return domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(blocks...), Timestamp: ts}
}

func result(id string) domain.Message {
	return domain.Message{Role: domain.RoleToolResult, ToolCallID: id, ToolName: "tool_" + id, Content: domain.BlockContent(domain.TextBlock("ok " + id))}
}

func interrupted(id string, ts int64) domain.Message {
	return domain.Message{Role: domain.RoleToolResult, ToolCallID: id, ToolName: "tool_" + id, IsError: domain.Bool(true),
		Content: domain.BlockContent(domain.TextBlock(Interrupted)), Timestamp: ts}
}

func TestRepair(t *testing.T) {
	tests := []struct {
		name string
		in   []domain.Message
		want []domain.Message
	}{
		{"empty", nil, nil},
		{"well formed",
			[]domain.Message{user("a"), assistant(1, "c1", "c2"), result("c2"), result("c1"), assistant(2)},
			[]domain.Message{user("a"), assistant(1, "c1", "c2"), result("c2"), result("c1"), assistant(2)}},
		{"window starts between a call and its result",
			[]domain.Message{result("c0"), assistant(2), user("b")},
			[]domain.Message{assistant(2), user("b")}},
		{"run aborted before the results",
			[]domain.Message{user("a"), assistant(5, "c1", "c2"), result("c1"), user("again")},
			[]domain.Message{user("a"), assistant(5, "c1", "c2"), result("c1"), interrupted("c2", 5), user("again")}},
		{"unanswered calls at the end",
			[]domain.Message{user("a"), assistant(7, "c1")},
			[]domain.Message{user("a"), assistant(7, "c1"), interrupted("c1", 7)}},
		{"duplicate and foreign results dropped",
			[]domain.Message{assistant(1, "c1"), result("c1"), result("c1"), result("zz"), user("b")},
			[]domain.Message{assistant(1, "c1"), result("c1"), user("b")}},
		{"a result after a user message no longer answers",
			[]domain.Message{assistant(1, "c1"), user("interrupt"), result("c1")},
			[]domain.Message{assistant(1, "c1"), interrupted("c1", 1), user("interrupt")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]domain.Message(nil), tt.in...)
			got := Repair(tt.in)
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(domain.Content{})); d != "" {
				t.Errorf("Repair (-want +got):\n%s", d)
			}
			if d := cmp.Diff(in, tt.in, cmp.AllowUnexported(domain.Content{})); d != "" {
				t.Errorf("input modified:\n%s", d)
			}
		})
	}
}

func TestRepairKeepsWellFormedSlice(t *testing.T) {
	in := []domain.Message{user("a"), assistant(1, "c1"), result("c1")}
	if got := Repair(in); &got[0] != &in[0] {
		t.Error("a well-formed transcript was copied")
	}
}
