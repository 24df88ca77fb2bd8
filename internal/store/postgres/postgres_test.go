package postgres

import (
	"os"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/pgtest"
	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

var pg pgtest.Shared

func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }

// openFresh opens a store on a new, empty database.
func openFresh(t *testing.T) *Store {
	t.Helper()
	st, err := Open(t.Context(), pg.Database(t), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return st
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) domain.Store { return openFresh(t) })
}
