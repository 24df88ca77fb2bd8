package reload

import (
	"errors"
	"slices"
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

func TestApply(t *testing.T) {
	base := config.Default()
	refuse := errors.New("no such model")
	for _, tc := range []struct {
		name          string
		change        func(*config.Config)
		resolve       func(string) error
		applied, need []string
		wantErr       bool
	}{
		{name: "a live key is applied", change: func(c *config.Config) { c.Session.Owners = []string{"alice"} },
			applied: []string{"session.owners"}},
		{name: "a restart-only key is reported, not applied", change: func(c *config.Config) { c.Runtime.MaxSteps = base.Runtime.MaxSteps + 1 },
			need: []string{"runtime.maxSteps"}},
		{name: "a model the providers cannot serve refuses the whole reload", change: func(c *config.Config) {
			c.Session.Owners = []string{"bob"}
		}, resolve: func(string) error { return refuse }, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resolve := tc.resolve
			if resolve == nil {
				resolve = func(string) error { return nil }
			}
			live := New(base, resolve)
			next := *base
			tc.change(&next)
			applied, need, err := live.Apply(&next)
			if tc.wantErr {
				if err == nil || live.Config() != base {
					t.Fatalf("Apply = %v, config replaced: %v; want an error and the old config", err, live.Config() != base)
				}
				return
			}
			if err != nil || !slices.Equal(applied, tc.applied) || !slices.Equal(need, tc.need) {
				t.Fatalf("Apply = %v, %v, %v; want %v, %v", applied, need, err, tc.applied, tc.need)
			}
			got := live.Config()
			if !slices.Equal(got.Session.Owners, next.Session.Owners) {
				t.Fatalf("owners in effect = %v after applying %v", got.Session.Owners, applied)
			}
			if got.Runtime.MaxSteps != base.Runtime.MaxSteps {
				t.Fatalf("maxSteps in effect = %d, want the restart-only %d kept", got.Runtime.MaxSteps, base.Runtime.MaxSteps)
			}
		})
	}
}

func TestKeysIsACopy(t *testing.T) {
	k := Keys()
	k[0] = "changed"
	if Keys()[0] == "changed" {
		t.Fatal("Keys returned the package's own slice")
	}
}
