package pgtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// Shared is the one cluster of a test binary. Declare it as a variable of
// the test package, run the tests through Main in TestMain, and get a
// fresh database per test from Database. The cluster starts on the first
// Database call, so a binary whose selected tests need none starts none.
type Shared struct {
	// Options are the cluster's (set before the first use).
	Options Options

	once    sync.Once
	cluster *Cluster
	err     error
}

// Main runs the tests and stops the cluster if one was started. It
// returns m.Run's exit code (or 1 when stopping the cluster failed). When
// benchmarks run (-test.bench), the cluster is durable (Options.Durable),
// so their numbers include the fsync of every commit.
func (s *Shared) Main(m *testing.M) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		s.Options.Durable = true
	}
	code := m.Run()
	if s.cluster != nil {
		if err := s.cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Cluster returns the shared cluster, starting it on first use. Without
// the PostgreSQL binaries the test is skipped with the reason, unless the
// CI environment variable is set: there the test fails, so a CI machine
// that lost its PostgreSQL cannot pass by skipping.
func (s *Shared) Cluster(t testing.TB) *Cluster {
	t.Helper()
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s.cluster, s.err = Start(ctx, s.Options)
	})
	if s.err != nil {
		if errors.Is(s.err, ErrNoBinaries) && os.Getenv("CI") == "" {
			t.Skipf("needs a PostgreSQL server: %v", s.err)
		}
		t.Fatalf("start PostgreSQL: %v", s.err)
	}
	return s.cluster
}

// Database creates a fresh, empty database on the shared cluster and
// returns its connection URL.
func (s *Shared) Database(t testing.TB) string {
	t.Helper()
	c := s.Cluster(t)
	url, err := c.CreateDatabase(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
