package config

// AuditConfig is `audit.*`: the tamper-evident audit log
// (docs/operations.md#audit-log). OpenClaw has no key for it.
type AuditConfig struct {
	// Enabled records the audit log (default true). Off, nothing is
	// recorded; the records already kept stay and still verify.
	Enabled *bool `json:"enabled,omitempty"`
	// RetentionDays prunes records older than this many days (default 0:
	// kept for ever).
	RetentionDays int `json:"retentionDays,omitempty"`
	// MaxRecords prunes the oldest records beyond this many (default 0:
	// no bound).
	MaxRecords int64 `json:"maxRecords,omitempty"`
}

// Limits of audit.* (validated, and named in the errors).
const (
	maxAuditRetentionDays = 36500
	maxAuditRecords       = 1 << 40
)

// On reports whether the audit log records (default true).
func (a AuditConfig) On() bool { return a.Enabled == nil || *a.Enabled }

func (c *Config) checkAudit(v *checker) {
	a := c.Audit
	if a.RetentionDays < 0 || a.RetentionDays > maxAuditRetentionDays {
		v.add("audit.retentionDays", "%d must be between 0 (keep for ever) and %d", a.RetentionDays, maxAuditRetentionDays)
	}
	if a.MaxRecords < 0 || a.MaxRecords > maxAuditRecords {
		v.add("audit.maxRecords", "%d must be between 0 (no bound) and %d", a.MaxRecords, int64(maxAuditRecords))
	}
}
