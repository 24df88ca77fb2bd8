package cli

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
)

func TestSessionsSearchAndPaging(t *testing.T) {
	c := newCLI(t)
	c.ok("chat", "main", "find the needle here")
	c.ok("chat", "agent:main:notes", "another needle there")
	c.ok("chat", "main", "nothing to see")

	res := jsonOf[api.SearchResult](c, "sessions", "search", "needle", "--json")
	if res.Count != 4 || res.Results[0].SessionKey != "agent:main:notes" || res.Results[3].SessionKey != "agent:main:main" {
		t.Fatalf("search needle = %+v, want 4 hits, notes first, canonical keys", res)
	}
	page := jsonOf[api.SearchResult](c, "sessions", "search", "needle", "--limit", "3", "--json")
	if page.Count != 3 || page.NextCursor == "" {
		t.Fatalf("--limit 3 = %+v, want 3 hits and a cursor", page)
	}
	rest := jsonOf[api.SearchResult](c, "sessions", "search", "needle", "--limit", "3", "--cursor", page.NextCursor, "--json")
	if rest.Count != 1 || rest.NextCursor != "" || rest.Results[0].MessageID != res.Results[3].MessageID {
		t.Fatalf("second page = %+v, want the last hit", rest)
	}
	human := c.ok("sessions", "search", "needle here")
	mustContain(t, "human search", human.stdout, "SESSION", "agent:main:main", "find the needle here", "2 matches")
	// As notes (tree visibility): main's messages never appear.
	as := jsonOf[api.SearchResult](c, "sessions", "search", "needle", "--as", "agent:main:notes", "--json")
	if as.Count != 2 || as.Results[0].SessionKey != "agent:main:notes" || as.Results[1].SessionKey != "agent:main:notes" {
		t.Fatalf("--as notes = %+v, want only its own hits", as)
	}
	if r := c.run("sessions", "search", "!!!"); r.code != exitError || !strings.Contains(r.stderr, "query has no words") {
		t.Errorf("no words: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := c.run("sessions", "search", "x", "--cursor", "bogus"); r.code != exitError || !strings.Contains(r.stderr, "cursor is not valid") {
		t.Errorf("bad cursor: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := c.run("sessions", "search"); r.code != exitUsage || !strings.Contains(r.stderr, "missing QUERY") {
		t.Errorf("no query: exit %d, stderr %q", r.code, r.stderr)
	}
	clamped := c.ok("sessions", "search", "needle", "--limit", "500")
	mustContain(t, "clamped search", clamped.stderr, "--limit 500 is out of range", "using 100")

	// History pages backwards by message id; list by offset.
	h := jsonOf[api.HistoryResult](c, "sessions", "history", "main", "--limit", "2", "--json")
	if len(h.Messages) != 2 || !h.HasMore || h.NextBeforeMessageID != h.Messages[0].ID || h.Messages[0].ID == "" {
		t.Fatalf("history --limit 2 = %+v, want hasMore and the oldest id", h)
	}
	older := jsonOf[api.HistoryResult](c, "sessions", "history", "main", "--limit", "2", "--before", h.NextBeforeMessageID, "--json")
	if len(older.Messages) != 2 || older.HasMore || older.Messages[0].Content.Text() != "find the needle here" {
		t.Fatalf("older page = %+v", older)
	}
	mustContain(t, "human history", c.ok("sessions", "history", "main", "--limit", "1").stdout, "(older messages: --before ")
	if r := c.run("sessions", "history", "main", "--before", "ffffffff"); r.code != exitError || !strings.Contains(r.stderr, "beforeMessageId") {
		t.Errorf("unknown --before: exit %d, stderr %q", r.code, r.stderr)
	}
	list := jsonOf[api.ListResult](c, "sessions", "list", "--limit", "1", "--json")
	if !list.HasMore || list.NextOffset == nil || *list.NextOffset != 1 {
		t.Fatalf("list --limit 1 = %+v, want hasMore and nextOffset 1", list)
	}
	next := jsonOf[api.ListResult](c, "sessions", "list", "--limit", "1", "--offset", "1", "--json")
	if next.Count != 1 || next.HasMore || next.Sessions[0].Key == list.Sessions[0].Key {
		t.Fatalf("list --offset 1 = %+v", next)
	}
	if r := c.run("sessions", "list", "--offset", "-1"); r.code != exitUsage || !strings.Contains(r.stderr, "--offset must be at least 0") {
		t.Errorf("--offset -1: exit %d, stderr %q", r.code, r.stderr)
	}
}
