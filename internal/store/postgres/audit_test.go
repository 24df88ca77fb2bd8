package postgres

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/audit/audittest"
)

func TestAuditLog(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audittest.Store { return openFresh(t) },
		func(t *testing.T, s audittest.Store, sql string) {
			t.Helper()
			if _, err := s.(*Store).pool.Exec(t.Context(), sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		})
}
