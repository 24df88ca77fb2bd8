package sqlite

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"

	"github.com/switchboard-go/switchboard/internal/audit/audittest"
)

func TestAuditLog(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audittest.Store { return openTemp(t) },
		func(t *testing.T, s audittest.Store, sql string) {
			t.Helper()
			st := s.(*Store)
			if err := st.Update(t.Context(), func(dtx domain.Tx) error {
				_, err := dtx.(*tx).execDynamic(sql)
				return err
			}); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		})
}
