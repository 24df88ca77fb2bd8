package web

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the browser test's gateway and engine stop every
// goroutine they start.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
