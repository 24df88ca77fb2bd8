package sqlite

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/store/storetest"
)

// TestNUL: text holding U+0000 (a model reply, a tool result) is stored
// and read back with the exact bytes; only PostgreSQL replaces it.
func TestNUL(t *testing.T) {
	storetest.NUL(t, openTemp(t), func(s string) string { return s })
}
