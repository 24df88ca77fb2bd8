package config

// AuditConfig is `audit.*`: the tamper-evident audit log
// (docs/operations.md#audit).
type AuditConfig struct {
	// Enabled records the audit log (default true).
	Enabled *bool `json:"enabled,omitempty"`
	// RetentionDays drops records older than this many days, keeping
	// the chain verifiable from the oldest kept record (0, the default:
	// keep everything).
	RetentionDays int `json:"retentionDays,omitempty"`
}

// AuditOn reports whether the audit log is recorded.
func (c *Config) AuditOn() bool { return c.Audit.Enabled == nil || *c.Audit.Enabled }

func (c *Config) checkAudit(v *checker) {
	if d := c.Audit.RetentionDays; d < 0 || d > 36500 {
		v.add("audit.retentionDays", "%d must be between 0 and 36500", d)
	}
}
