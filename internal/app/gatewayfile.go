package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// GatewayInfo is `<state-dir>/gateway.json`: how local commands find the
// running gateway of a state dir.
type GatewayInfo struct {
	URL   string `json:"url"`   // http://127.0.0.1:18789
	WSURL string `json:"wsUrl"` // ws://127.0.0.1:18789/
	PID   int    `json:"pid"`
	// TokenRequired says whether the gateway needs a bearer token (the
	// token itself is never written here).
	TokenRequired bool   `json:"tokenRequired"`
	StartedAt     string `json:"startedAt"`
}

// GatewayFile is the path of gateway.json in stateDir.
func GatewayFile(stateDir string) string { return filepath.Join(stateDir, "gateway.json") }

// WriteGatewayInfo writes gateway.json atomically.
func WriteGatewayInfo(stateDir string, info GatewayInfo) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	tmp := GatewayFile(stateDir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, GatewayFile(stateDir))
}

// RemoveGatewayInfo removes gateway.json (on shutdown).
func RemoveGatewayInfo(stateDir string) { _ = os.Remove(GatewayFile(stateDir)) }

// GatewayOwner is the lock owner a gateway writes into the lock file
// (Options.Owner of the gateway's Open).
const GatewayOwner = "gateway"

// ReadGatewayInfo returns the running gateway of stateDir, or ok=false
// when there is none. A gateway runs iff the state-dir lock is held and
// gateway.json names its holder (the lock file's owner is the gateway,
// with the pid gateway.json gives). Liveness is never decided by a pid
// alone: a gateway.json beside a free lock is stale (its gateway died; a
// reused pid or pid 1 in a container does not keep it alive) and is
// ignored; the next process that takes the lock removes it.
func ReadGatewayInfo(stateDir string) (GatewayInfo, bool, error) {
	b, err := os.ReadFile(GatewayFile(stateDir))
	if errors.Is(err, os.ErrNotExist) {
		return GatewayInfo{}, false, nil
	}
	if err != nil {
		return GatewayInfo{}, false, err
	}
	var info GatewayInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return GatewayInfo{}, false, fmt.Errorf("%s: %w", GatewayFile(stateDir), err)
	}
	holder, held, err := LockHeld(stateDir)
	if err != nil {
		return GatewayInfo{}, false, err
	}
	if !held || holder.Owner != GatewayOwner || holder.PID != info.PID {
		return info, false, nil // stale: no gateway holds the state dir
	}
	return info, true, nil
}
