package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func execSQL(t *testing.T, url, sql string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup string // run on a store at SchemaVersion, or on an empty database when fresh
		fresh bool
		want  string
	}{
		{"newer schema", `UPDATE schema_version SET version = 99`, false, "store schema version 99 is newer than this switchboard supports (5)"},
		{"foreign tables", `CREATE TABLE accounts (id int)`, true, "holds 1 tables but no switchboard schema"},
		{"foreign schema_version", `CREATE TABLE schema_version (v int)`, true, "not a switchboard store"},
		{"another application", `UPDATE schema_version SET application = 'other'`, false, `database of another application ("other")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := pg.Database(t)
			if !tc.fresh {
				st, err := Open(t.Context(), url, Options{})
				if err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			execSQL(t, url, tc.setup)
			st, err := Open(t.Context(), url, Options{})
			if err == nil {
				st.Close()
				t.Fatalf("Open succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v\nwant it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "@") && strings.Contains(err.Error(), ":pw") {
				t.Errorf("error shows a password: %v", err)
			}
		})
	}
}

// Several processes starting at once on an empty database migrate it once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	url := pg.Database(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			st, err := Open(t.Context(), url, Options{})
			if err == nil {
				st.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
		}
	}
}

func TestReopenKeepsData(t *testing.T) {
	url := pg.Database(t)
	st, err := Open(t.Context(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(t.Context(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: "agent:main:main", AgentID: "main", SessionID: "s1", UpdatedAt: 5}); err != nil {
			return err
		}
		_, err := tx.AppendMessages("agent:main:main", "s1", []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(t.Context(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs, err := st.ReadMessages(t.Context(), "agent:main:main", domain.MessageQuery{})
	if err != nil || len(msgs) != 1 || msgs[0].Content.Text() != "hi" {
		t.Fatalf("after reopen: %+v, %v", msgs, err)
	}
}
