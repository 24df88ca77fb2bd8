package engine

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
)

// The audit log's cost: BenchmarkChatTurn and BenchmarkSpawnReturn run
// with it on (the default); these are the same with it off
// (docs/benchmarks.md).

func auditOff(c *config.Config) {
	off := false
	c.Audit.Enabled = &off
}

func BenchmarkChatTurnAuditOff(b *testing.B) { benchChatTurnConfig(b, 1000, auditOff) }

func BenchmarkSpawnReturnAuditOff(b *testing.B) { benchSpawnReturn(b, auditOff) }
