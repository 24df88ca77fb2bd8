package web_test

import (
	"os"
	"testing"
	"time"
)

// Temporary dev helper (not for commit).
func TestDevHold(t *testing.T) {
	if os.Getenv("SB_DEV_HOLD") == "" {
		t.Skip()
	}
	url := startGateway(t, "devtoken", 10000)
	os.WriteFile("/tmp/h11-dev-url", []byte(url), 0o644)
	deadline := time.Now().Add(20 * time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat("/tmp/h11-dev-stop"); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
