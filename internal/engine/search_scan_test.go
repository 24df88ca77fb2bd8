package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/script"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// countingStore counts what the engine's searches make the store read:
// the index matches each SearchMessages examined and the hits it handed
// back.
type countingStore struct {
	*sqlite.Store
	scanned, handed atomic.Int64
}

func (c *countingStore) SearchMessages(ctx context.Context, q domain.MessageSearch) (domain.SearchPage, error) {
	page, err := c.Store.SearchMessages(ctx, q)
	c.scanned.Add(int64(page.Scanned))
	c.handed.Add(int64(len(page.Hits)))
	return page, err
}

// TestSearchHiddenMatchesAreNotRead: with 4,000 matches in a session the
// requester may not read and none it may, a search reads none of them
// where the visible sessions can be named to the index, and a bounded
// number where a pattern allow list leaves a check per session (then the
// page ends with a cursor). Before, the store walked every hidden match
// for an agent scope, and an allow list handed all 4,000 to the engine;
// an agent of more sessions than the index names by key is named by its
// own token.
func TestSearchHiddenMatchesAreNotRead(t *testing.T) {
	const hidden = 4000
	tests := []struct {
		name       string
		mutate     func(*config.Config)
		maxScanned int64
		cursor     bool
		// more is how many sessions beyond its main the requester's agent
		// holds: more than the index names by key.
		more int
	}{
		{"tree", nil, 0, false, 0},
		{"self", func(c *config.Config) { c.Tools.Sessions.Visibility = "self" }, 0, false, 0},
		{"agent", func(c *config.Config) { c.Tools.Sessions.Visibility = "agent" }, 0, false, 0},
		{"agent with a hundred sessions", func(c *config.Config) { c.Tools.Sessions.Visibility = "agent" }, 0, false, 100},
		{"all without agent-to-agent", func(c *config.Config) { c.Tools.Sessions.Visibility = "all" }, 0, false, 0},
		{"all with an allow list of ids", func(c *config.Config) {
			c.Tools.Sessions.Visibility = "all"
			c.Tools.AgentToAgent.Enabled = true
			c.Tools.AgentToAgent.Allow = []string{"main", "dev"}
		}, 0, false, 0},
		{"all with an allow list of patterns", func(c *config.Config) {
			c.Tools.Sessions.Visibility = "all"
			c.Tools.AgentToAgent.Enabled = true
			c.Tools.AgentToAgent.Allow = []string{"main", "d*"}
		}, api.SearchScanMatches.Max, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig()
			cfg.Agents.List = []config.AgentConfig{{ID: "main"}, {ID: "ops"}, {ID: "dev"}}
			if tc.mutate != nil {
				tc.mutate(cfg)
			}
			ctx := context.Background()
			inner, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer inner.Close()
			st := &countingStore{Store: inner}
			m, err := script.New(nil, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(Options{Config: cfg, Store: st, Models: scriptModels{m}, Mirror: transcript.New(dir, time.Now), StateDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer e.Close(ctx)
			if err := st.Update(ctx, func(tx domain.Tx) error {
				for _, s := range []domain.Session{
					{Key: "agent:main:main", AgentID: "main", SessionID: "s-main", Kind: domain.KindMain, UpdatedAt: 1},
					{Key: "agent:ops:main", AgentID: "ops", SessionID: "s-ops", Kind: domain.KindMain, UpdatedAt: 2},
				} {
					if err := tx.PutSession(s); err != nil {
						return err
					}
				}
				for i := range tc.more {
					if err := tx.PutSession(domain.Session{Key: fmt.Sprintf("agent:main:s%d", i), AgentID: "main",
						SessionID: fmt.Sprintf("s-%d", i), Kind: domain.KindOther, UpdatedAt: 3}); err != nil {
						return err
					}
				}
				msgs := make([]domain.Message, hidden)
				for i := range msgs {
					msgs[i] = domain.Message{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("needle %d", i)), Timestamp: int64(i + 1)}
				}
				_, err := tx.AppendMessages("agent:ops:main", "s-ops", msgs)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			res, err := e.Search(ctx, api.Operator().ActingAs("agent:main:main"), api.SearchRequest{Query: "needle", Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			if res.Count != 0 || len(res.Results) != 0 {
				t.Fatalf("found %d hidden matches", res.Count)
			}
			if got := st.scanned.Load(); got > tc.maxScanned {
				t.Errorf("the store examined %d matches; want at most %d", got, tc.maxScanned)
			}
			if got := st.handed.Load(); got > tc.maxScanned {
				t.Errorf("the store handed %d hidden hits to the engine; want at most %d", got, tc.maxScanned)
			}
			if (res.NextCursor != "") != tc.cursor {
				t.Errorf("nextCursor %q; want one: %v", res.NextCursor, tc.cursor)
			}
		})
	}
}
