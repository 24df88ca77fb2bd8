package domain

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the run state diagram in docs/architecture.md from RunEdges")

// runStateDiagram is RunEdges as a Mermaid state diagram.
func runStateDiagram() string {
	name := func(s RunStatus) string {
		if s == RunNew {
			return "[*]"
		}
		return string(s)
	}
	var b strings.Builder
	b.WriteString("```mermaid\nstateDiagram-v2\n")
	for _, e := range RunEdges {
		b.WriteString("    " + name(e.From) + " --> " + name(e.To) + ": " + e.By + "\n")
	}
	for _, s := range RunStatuses {
		if RunTerminal(s) {
			b.WriteString("    " + string(s) + " --> [*]\n")
		}
	}
	b.WriteString("```\n")
	return b.String()
}

const (
	diagramBegin = "<!-- run-states: generated from domain.RunEdges by `go test ./internal/domain -run TestRunStateDiagram -update` -->\n"
	diagramEnd   = "<!-- /run-states -->"
)

// The state diagram in docs/architecture.md is RunEdges: a change to the
// table that the doc does not follow fails here.
func TestRunStateDiagramInDocs(t *testing.T) {
	const path = "../../docs/architecture.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, diagramBegin)
	j := strings.Index(text, diagramEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no run state diagram between %q and %q", path, diagramBegin, diagramEnd)
	}
	got := text[i+len(diagramBegin) : j]
	want := runStateDiagram()
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(text[:i+len(diagramBegin)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("the run state diagram in %s differs from domain.RunEdges; run `go test ./internal/domain -run TestRunStateDiagram -update`\ngot:\n%s\nwant:\n%s", path, got, want)
}
