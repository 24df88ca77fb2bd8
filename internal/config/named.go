package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// CheckNamed checks the config file a user named: a path given by
// --config (flagConfig) or $SWITCHBOARD_CONFIG must exist, while the
// default <state-dir>/switchboard.json5 may be missing (defaults apply).
// path is the resolved path of ResolvePaths.
func CheckNamed(path, flagConfig string, getenv func(string) string) error {
	source := ""
	switch {
	case strings.TrimSpace(flagConfig) != "":
		source = "--config"
	case getenv != nil && strings.TrimSpace(getenv("SWITCHBOARD_CONFIG")) != "":
		source = "$SWITCHBOARD_CONFIG"
	default:
		return nil
	}
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config file %s (named by %s) does not exist", path, source)
	}
	if err != nil {
		return fmt.Errorf("config file %s (named by %s): %w", path, source, err)
	}
	return nil
}
