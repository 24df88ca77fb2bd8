//go:build !unix

package loadbench

import "time"

// selfCPU is 0 where getrusage is not available: the report then leaves
// the clients' CPU out.
func selfCPU() time.Duration { return 0 }
