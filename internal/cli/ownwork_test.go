package cli

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestWriteRunsOnlyItsLanes: an in-process command that writes runs its own
// run and what is queued ahead of it on its session, in order, and leaves
// runs queued on other sessions for the gateway (or for the command that
// writes to their session next).
func TestWriteRunsOnlyItsLanes(t *testing.T) {
	c := newCLI(t)
	a1 := strings.TrimSpace(c.ok("chat", "alpha", "x", "--detach").stdout)
	b1 := strings.TrimSpace(c.ok("chat", "beta", "y", "--detach").stdout)
	if a1 == "" || b1 == "" {
		t.Fatalf("chat --detach printed no runId: %q %q", a1, b1)
	}
	if r := c.ok("chat", "alpha", "z"); r.stdout != "echo: z\n" {
		t.Fatalf("chat alpha z = %q", r.stdout)
	}
	runs := map[string]domain.Run{}
	for _, r := range jsonOf[struct {
		Runs []domain.Run `json:"runs"`
	}](c, "runs", "list", "--json").Runs {
		runs[r.Message] = r
	}
	x, z, y := runs["x"], runs["z"], runs["y"]
	if x.ID != a1 || x.Status != domain.RunOK || x.Reply != "echo: x" {
		t.Fatalf("alpha's detached run = %s %s %q, want %s ok", x.ID, x.Status, x.Reply, a1)
	}
	if z.Status != domain.RunOK || x.EndedAt > z.StartedAt {
		t.Fatalf("alpha's runs: x ended %d (%s), z started %d (%s); want x first, both ok", x.EndedAt, x.Status, z.StartedAt, z.Status)
	}
	if y.ID != b1 || y.Status != domain.RunQueued {
		t.Fatalf("beta's detached run = %s %s, want %s still queued", y.ID, y.Status, b1)
	}
	if r := c.ok("chat", "beta", "w"); r.stdout != "echo: w\n" {
		t.Fatalf("chat beta w = %q", r.stdout)
	}
	if r := jsonOf[domain.Run](c, "runs", "get", b1, "--json"); r.Status != domain.RunOK || r.Reply != "echo: y" {
		t.Fatalf("beta's detached run after chat beta w = %s %q", r.Status, r.Reply)
	}
}
