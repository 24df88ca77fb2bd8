//go:build !unix

package gateway

// fdLimit is unknown on this platform.
func fdLimit() (uint64, bool) { return 0, false }
