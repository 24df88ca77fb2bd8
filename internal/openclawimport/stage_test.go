package openclawimport

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// transcripts returns every session's messages, by key, as brief renders
// them.
func transcripts(t *testing.T, st domain.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]string, len(rows))
	for _, r := range rows {
		msgs, err := st.ReadMessages(ctx, r.Key, domain.MessageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		out[r.Key] = brief(msgs)
	}
	return out
}

type importResult struct {
	sum Summary
	err error
}

// importHeld runs Import with the source's checks held until the test
// calls release; it returns once the last group was staged (its progress
// reported), and the channel that delivers Import's result.
func importHeld(t *testing.T, st domain.Store, dir string) (release func(), res <-chan importResult) {
	t.Helper()
	opts := testOptions()
	opts.holdChecks = make(chan struct{})
	staged := make(chan struct{}, 1)
	opts.Progress = func(done, total int) {
		if done == total {
			staged <- struct{}{}
		}
	}
	out := make(chan importResult, 1)
	go func() {
		sum, err := Import(context.Background(), st, dir, opts)
		out <- importResult{sum, err}
	}()
	select {
	case <-staged:
	case r := <-out:
		t.Fatalf("Import returned before its checks ended: %+v, %v", r.sum, r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("no progress while the checks were held")
	}
	once := false
	return func() {
		if !once {
			once = true
			close(opts.holdChecks)
		}
	}, out
}

func waitImport(t *testing.T, res <-chan importResult) importResult {
	t.Helper()
	select {
	case r := <-res:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("Import did not return after its checks ended")
		return importResult{}
	}
}

// TestImportStagesWhileChecking: sessions planned while the integrity
// checks run are written, uncommitted, and commit once the checks pass:
// nothing is visible before, and the result is an import's without a
// stage.
func TestImportStagesWhileChecking(t *testing.T) {
	dir := copyState(t, realState)
	plain := openStore(t)
	want, err := Import(context.Background(), plain, dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	release, res := importHeld(t, st, dir)
	defer release()
	assertNothingImported(t, st)
	release()
	r := waitImport(t, res)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.sum.Sessions != want.Sessions || r.sum.Messages != want.Messages || r.sum.Messages == 0 {
		t.Errorf("staged import: %d sessions, %d messages; want %d, %d", r.sum.Sessions, r.sum.Messages, want.Sessions, want.Messages)
	}
	if d := cmp.Diff(transcripts(t, plain), transcripts(t, st)); d != "" {
		t.Errorf("staged import differs from a plain one:\n%s", d)
	}
	again, err := Import(context.Background(), st, dir, testOptions())
	if err != nil || again.Sessions != 0 || again.Messages != 0 {
		t.Fatalf("second import: %+v, %v", again, err)
	}
}

// TestImportStagedRolledBackOnCorruptFile: a file whose damage only the
// integrity check sees is planned and staged in full, and the failed
// check rolls all of it back.
func TestImportStagedRolledBackOnCorruptFile(t *testing.T) {
	dir := copyState(t, realState)
	writeDB(t, agentDBFile(dir), "CREATE TABLE padding (x TEXT)", "CREATE INDEX padding_x ON padding(x)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO padding SELECT hex(randomblob(200)) FROM n")
	corruptIndex(t, agentDBFile(dir), "padding_x")
	st := openStore(t)
	release, res := importHeld(t, st, dir)
	defer release()
	assertNothingImported(t, st)
	release()
	r := waitImport(t, res)
	if r.err == nil || !strings.Contains(r.err.Error(), "corrupt") || !strings.Contains(r.err.Error(), agentDBFile(dir)) {
		t.Fatalf("err = %v, want it to name the file and say corrupt", r.err)
	}
	assertNothingImported(t, st)
}

// TestImportStageStopped: an import cancelled while its groups are staged
// commits none of them and returns.
func TestImportStageStopped(t *testing.T) {
	dir := copyState(t, realState)
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	opts := testOptions()
	opts.holdChecks = make(chan struct{})
	defer close(opts.holdChecks)
	opts.Progress = func(done, total int) {
		if done == total {
			cancel()
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := Import(ctx, st, dir, opts)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled import returned no error")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("a cancelled import did not return")
	}
	assertNothingImported(t, st)
}
