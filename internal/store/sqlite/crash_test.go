package sqlite

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// crashChildEnv, when set to a database path, turns the test binary into
// the crash test's child process (see TestMain).
const crashChildEnv = "SWITCHBOARD_SQLITE_CRASH_CHILD"

const crashWriters = 4

// crashChild appends to the store at path from several goroutines until it
// is killed, printing "key seq" for every acknowledged (returned) Update.
func crashChild(path string) int {
	ctx := context.Background()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for w := range crashWriters {
		wg.Go(func() {
			key := fmt.Sprintf("agent:main:w%d", w)
			for i := 0; ; i++ {
				var seq int64
				err := st.Update(ctx, func(tx domain.Tx) error {
					msgs, err := tx.AppendMessages(key, "s1", []domain.Message{
						{Role: domain.RoleUser, Content: domain.TextContent(fmt.Sprintf("%s-%d", key, i)), Timestamp: int64(i)},
					})
					if err != nil {
						return err
					}
					seq = msgs[0].Seq
					return tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: "s1", UpdatedAt: seq})
				})
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
				// Print only after Update returned: the line is the ack.
				mu.Lock()
				fmt.Fprintf(out, "%s %d\n", key, seq)
				err = out.Flush()
				mu.Unlock()
				if err != nil {
					os.Exit(4)
				}
			}
		})
	}
	wg.Wait()
	return 0
}

// TestCrashKeepsAcknowledged kills a writing child process with SIGKILL
// and checks that every Update it acknowledged survived.
func TestCrashKeepsAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	const killAfter = 400
	acked := map[string][]int64{}
	n := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var key string
		var seq int64
		if _, err := fmt.Sscanf(sc.Text(), "%s %d", &key, &seq); err != nil {
			t.Fatalf("child printed %q: %v", sc.Text(), err)
		}
		acked[key] = append(acked[key], seq)
		n++
		if n == killAfter {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatalf("kill: %v", err)
			}
		}
		// Keep reading: lines already in the pipe were acknowledged too.
	}
	waitErr := cmd.Wait()
	if n < killAfter {
		t.Fatalf("child acknowledged only %d updates before exiting (%v); stderr:\n%s", n, waitErr, stderr.String())
	}
	t.Logf("child acknowledged %d updates before SIGKILL", n)

	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("reopen after crash: %v", err)
	}
	defer st.Close()
	for key, seqs := range acked {
		msgs, err := st.ReadMessages(ctx, key, domain.MessageQuery{})
		if err != nil {
			t.Fatalf("ReadMessages(%s): %v", key, err)
		}
		have := map[int64]string{}
		for _, m := range msgs {
			have[m.Seq] = m.Content.Text()
		}
		for i, seq := range seqs {
			if want := fmt.Sprintf("%s-%d", key, i); have[seq] != want {
				t.Errorf("%s: acknowledged seq %d holds %q, want %q", key, seq, have[seq], want)
			}
		}
		sess, err := st.GetSession(ctx, key)
		if err != nil || sess.UpdatedAt < seqs[len(seqs)-1] {
			t.Errorf("%s: session row %+v, %v; want updatedAt >= last acknowledged seq %d", key, sess, err, seqs[len(seqs)-1])
		}
	}
}
