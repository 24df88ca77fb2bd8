package rowcodec

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestSessionRowRoundTrip(t *testing.T) {
	full := domain.Session{
		Key: "agent:main:discord:group:42", AgentID: "main", SessionID: "0b5e5a1e-6c1c", Kind: domain.KindGroup,
		Channel: "discord", ChatType: "group", Label: "Ops ✓", DisplayName: "Ops — Ünïcode\x00\x1f",
		Origin:      &domain.Origin{Provider: "discord", AccountID: "acct-1"},
		Delivery:    &domain.DeliveryContext{Channel: "discord", To: "channel:42", AccountID: "a", ThreadID: "t-7"},
		LastChannel: "discord", LastTo: "channel:42", LastAccount: "acct-1",
		SpawnedBy: "agent:main:main", SpawnDepth: -3, SpawnRunID: "run", Sandboxed: true,
		Model: "openai/gpt-4.1-mini", ModelOverride: "x", ModelProvider: "openai", ThinkingLevel: "high",
		VerboseLevel: "on", SendPolicy: "deny", SystemSent: true, AbortedLastRun: true,
		InputTokens: 1<<53 + 1, OutputTokens: -2, TotalTokens: math.MaxInt64, ContextTokens: math.MinInt64,
		EstimatedCostUSD: 0.1 + 0.2, Status: "running", StartedAt: 1, EndedAt: 2, CreatedAt: 3, UpdatedAt: 4,
		ArchiveAt: 5, ArchivedAt: 6, ForkedFromParent: true,
	}
	tests := []struct {
		name string
		s    domain.Session
	}{
		{"Full", full},
		{"Zero", domain.Session{}},
		{"EmptyOriginAndDelivery", domain.Session{Key: "k", Origin: &domain.Origin{}, Delivery: &domain.DeliveryContext{}}},
		{"NegativeZeroCost", domain.Session{Key: "k", EstimatedCostUSD: math.Copysign(0, -1)}},
		{"LongString", domain.Session{Key: strings.Repeat("k", 70_000)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := appendSessionRow(nil, &tt.s)
			var got domain.Session
			if err := decodeSessionRow(string(row), &got); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tt.s, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			if math.Signbit(got.EstimatedCostUSD) != math.Signbit(tt.s.EstimatedCostUSD) {
				t.Errorf("cost sign lost: %v", got.EstimatedCostUSD)
			}
		})
	}
	// Every truncation of a row is an error or a shorter valid row, never
	// a panic or a read past the end.
	row := string(appendSessionRow(nil, &full))
	for i := range len(row) {
		var s domain.Session
		_ = decodeSessionRow(row[:i], &s)
	}
}

func TestSessionRowRejects(t *testing.T) {
	tests := []struct {
		name, row, want string
	}{
		{"Empty", "", "empty"},
		{"UnknownFormat", "\x09", "unknown format 9"},
		{"UnknownTag", "\x01\xf0", "unknown field tag 240"},
		{"StringPastEnd", "\x01\x01\x05ab", "truncated"},
		{"HugeLength", "\x01\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "truncated"},
		{"CostPastEnd", "\x01" + string([]byte{tagEstimatedCostUSD}) + "\x01\x02", "truncated"},
		{"OriginFieldFirst", "\x01" + string([]byte{tagOriginProvider}) + "\x01x", "without origin"},
		{"DeliveryFieldFirst", "\x01" + string([]byte{tagDeliveryTo}) + "\x01x", "without deliveryContext"},
		{"SpawnDepthOverflow", "\x01" + string([]byte{tagSpawnDepth}) + "\xfe\xff\xff\xff\x3f", "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s domain.Session
			err := decodeSessionRow(tt.row, &s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decode(%q) = %v, want an error containing %q", tt.row, err, tt.want)
			}
		})
	}
}
