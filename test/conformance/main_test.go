package conformance

import (
	"os"
	"testing"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// The gateway and the CLI run with the race detector (testkit.Main), so a
// race in them fails the cell that hit it.
func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
