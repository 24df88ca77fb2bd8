package replicas

import (
	"os"
	"testing"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// The gateways run with the race detector, so a race between replicas'
// goroutines fails the test; REPLICAS_NORACE turns it off for benchmarks.
func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, testkit.Options{NoRace: os.Getenv("REPLICAS_NORACE") != ""}))
}
