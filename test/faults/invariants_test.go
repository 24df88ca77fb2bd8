package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// acked is what the gateway acknowledged to the load: run ids of chats
// and spawns it answered 200 for.
type acked struct {
	chats  []string
	spawns []string
}

// checkInvariants opens the store of a stopped gateway and checks §3's
// promises. It returns the number of runs it looked at.
func checkInvariants(t *testing.T, dir string, ack acked) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// No run is left running (nor queued: the gateway was idle when it stopped).
	runs, err := st.ListRuns(ctx, domain.RunQuery{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]domain.Run{}
	for _, r := range runs {
		byID[r.ID] = r
		if !domain.RunTerminal(r.Status) {
			t.Errorf("run %s (%s on %s, attempt %d) left %s", r.ID, r.Kind, r.SessionKey, r.Attempt, r.Status)
		}
		if r.Attempt > 2 {
			t.Errorf("run %s started %d times; the crash rule re-queues once", r.ID, r.Attempt)
		}
	}

	// Every acknowledged message is stored exactly once.
	users := map[string]int{}
	sessions, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	// Every transcript generation a run wrote to (a reset starts a new one).
	type generation struct{ key, sid string }
	seen := map[generation]bool{}
	for _, r := range runs {
		g := generation{r.SessionKey, r.SessionID}
		if r.SessionID == "" || seen[g] {
			continue
		}
		seen[g] = true
		msgs, err := st.ReadMessages(ctx, g.key, domain.MessageQuery{SessionID: g.sid})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Role == domain.RoleUser && m.RunID != "" {
				users[m.RunID]++
			}
		}
	}
	for _, id := range append(append([]string(nil), ack.chats...), ack.spawns...) {
		r, ok := byID[id]
		if !ok {
			t.Errorf("acknowledged run %s does not exist", id)
			continue
		}
		if r.Status == domain.RunCancelled && users[id] == 0 {
			continue // cancelled before it started: its message never entered a transcript
		}
		if r.Kind == domain.RunKindSubagent && users[id] == 0 {
			continue // its child session was deleted after the announce (cleanup "delete")
		}
		if users[id] != 1 {
			t.Errorf("acknowledged run %s (%s, %s %q, attempt %d, sid %s on %s): its message is stored %d times, want once", id, r.Kind, r.Status, r.Error, r.Attempt, r.SessionID, r.SessionKey, users[id])
		}
	}
	for id, n := range users {
		if n > 1 {
			t.Errorf("run %s: user message stored %d times", id, n)
		}
	}

	// Every announce is delivered exactly once: each ended sub-agent run's
	// announce item is delivered and made one inbound turn; each
	// exchange's announce item too.
	items, err := st.ListOutbox(ctx, domain.OutboxQuery{})
	if err != nil {
		t.Fatal(err)
	}
	announced := map[string]int{}
	for _, it := range items {
		switch it.Kind {
		case domain.OutboxSubagentAnnounce, domain.OutboxAnnounce:
			announced[it.RunID]++
			if it.Status != domain.OutboxDelivered {
				t.Errorf("%s item of run %s is %s (%s)", it.Kind, it.RunID, it.Status, it.LastError)
			}
		}
	}
	inbound := map[string]int{}
	for _, r := range runs {
		if r.Kind == domain.RunKindInbound {
			inbound[strings.TrimPrefix(r.IdempotencyKey, "subagent-announce:")]++
		}
	}
	for _, r := range runs {
		if r.Kind != domain.RunKindSubagent || !domain.RunTerminal(r.Status) {
			continue
		}
		if announced[r.ID] != 1 {
			t.Errorf("sub-agent run %s (%s): %d announce items, want 1", r.ID, r.Status, announced[r.ID])
		}
		if inbound[r.ID] > 1 {
			t.Errorf("sub-agent run %s announced %d times", r.ID, inbound[r.ID])
		}
	}

	// The mirror equals the store, and no file outlives its session.
	current := map[string]bool{}
	for _, s := range sessions {
		current[filepath.Join(dir, "agents", s.AgentID, "sessions", s.SessionID+".jsonl")] = true
		msgs, err := st.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "agents", s.AgentID, "sessions", s.SessionID+".jsonl")
		_, entries, _, err := transcript.ReadFile(path)
		if err != nil {
			if len(msgs) > 0 {
				t.Errorf("session %s: %d messages in the store, mirror: %v", s.Key, len(msgs), err)
			}
			continue
		}
		var ids []string
		for _, e := range entries {
			if e.Type == transcript.TypeMessage {
				ids = append(ids, e.ID)
			}
		}
		same := len(ids) == len(msgs)
		for i := 0; same && i < len(ids); i++ {
			same = ids[i] == msgs[i].ID
		}
		if !same {
			inMirror := map[string]bool{}
			for _, id := range ids {
				inMirror[id] = true
			}
			var missing []string
			for _, m := range msgs {
				if !inMirror[m.ID] {
					r := byID[m.RunID]
					missing = append(missing, fmt.Sprintf("%s (seq %d, %s, run %s %s %s attempt %d %q)", m.ID, m.Seq, m.Role, m.RunID, r.Kind, r.Status, r.Attempt, r.Error))
				}
			}
			t.Errorf("session %s (sessionId %s): mirror has %d messages, store %d; not in the mirror: %v (mirror %v)", s.Key, s.SessionID, len(ids), len(msgs), missing, ids)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "agents", "*", "sessions", "*.jsonl"))
	for _, f := range files {
		if !current[f] {
			sid := strings.TrimSuffix(filepath.Base(f), ".jsonl")
			owner := "no run"
			for _, r := range runs {
				if r.SessionID == sid {
					owner = fmt.Sprintf("runs of %s (%s)", r.SessionKey, r.Kind)
					break
				}
			}
			t.Errorf("mirror file %s belongs to no session (%s)", f, owner)
		}
	}

	// No attachment directory is orphaned: every one left is named by a
	// spawn whose announce (and cleanup) has not happened.
	referenced := map[string]bool{}
	owner := map[string]domain.Run{}
	for _, r := range runs {
		var spec struct {
			Spawn *struct {
				AttachmentsDir string `json:"attachmentsDir"`
			} `json:"spawn"`
		}
		if json.Unmarshal(r.Spec, &spec) == nil && spec.Spawn != nil && spec.Spawn.AttachmentsDir != "" {
			owner[filepath.Clean(spec.Spawn.AttachmentsDir)] = r
			if !domain.RunTerminal(r.Status) {
				referenced[filepath.Clean(spec.Spawn.AttachmentsDir)] = true
			}
		}
	}
	itemsOf := map[string][]string{}
	for _, it := range items {
		itemsOf[it.RunID] = append(itemsOf[it.RunID], fmt.Sprintf("%s/%s(attempts %d: %s)", it.Kind, it.Status, it.Attempts, it.LastError))
	}
	dirs, _ := filepath.Glob(filepath.Join(dir, "agents", "*", "workspace", ".switchboard", "attachments", "*"))
	orphans := 0
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !referenced[filepath.Clean(d)] {
			orphans++
			if orphans <= 5 {
				r, ok := owner[filepath.Clean(d)]
				t.Errorf("attachment directory %s is orphaned (spawn run found: %v, %s %s, outbox: %v)", d, ok, r.ID, r.Status, itemsOf[r.ID])
			}
		}
	}
	if orphans > 5 {
		t.Errorf("%d attachment directories orphaned in all", orphans)
	}
	t.Logf("checked %d runs, %d sessions, %d outbox items, %d acknowledged chats, %d acknowledged spawns",
		len(runs), len(sessions), len(items), len(ack.chats), len(ack.spawns))
}
