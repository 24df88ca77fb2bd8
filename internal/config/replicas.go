package config

import "time"

// ReplicasConfig is `replicas.*`: how gateways sharing a PostgreSQL store
// coordinate (docs/deployment.md, "Several replicas" and "Failover").
// SQLite has one process and ignores it.
type ReplicasConfig struct {
	// LeaseSeconds is how long a replica's claims on runs outlive its last
	// renewal (default 15; renewed every third of it). When a replica
	// dies, another takes its runs over after at most this long.
	LeaseSeconds int `json:"leaseSeconds,omitempty"`
}

// Limits of replicas.leaseSeconds.
const (
	MinLeaseSeconds = 1
	MaxLeaseSeconds = 3600
	// DefaultLeaseSeconds is replicas.leaseSeconds when unset.
	DefaultLeaseSeconds = 15
)

// Lease is replicas.leaseSeconds as a duration (the default when unset).
func (r ReplicasConfig) Lease() time.Duration {
	if r.LeaseSeconds <= 0 {
		return DefaultLeaseSeconds * time.Second
	}
	return time.Duration(r.LeaseSeconds) * time.Second
}

// checkReplicas validates `replicas`.
func (c *Config) checkReplicas(v *checker) {
	if c.Replicas.LeaseSeconds != 0 {
		v.between("replicas.leaseSeconds", int64(c.Replicas.LeaseSeconds), MinLeaseSeconds, MaxLeaseSeconds)
	}
}
