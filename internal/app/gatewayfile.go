package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
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

// ReadGatewayInfo returns the running gateway of stateDir, or ok=false
// when there is none (no file, or its process is gone).
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
	if info.PID <= 0 || syscall.Kill(info.PID, 0) != nil {
		return info, false, nil // stale: its process is gone
	}
	return info, true, nil
}
