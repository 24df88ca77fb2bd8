package config

import (
	"path/filepath"
	"strings"
)

// File and directory names under the state directory.
const (
	StateDirName   = ".switchboard"
	ConfigFileName = "switchboard.json5"
)

// ResolvePaths returns the state directory and the config file path:
// --state-dir, else $SWITCHBOARD_STATE_DIR, else <home>/.switchboard; and
// --config, else $SWITCHBOARD_CONFIG, else <state-dir>/switchboard.json5.
// A leading "~/" (which a shell does not expand in --flag=~/x) means home.
func ResolvePaths(flagStateDir, flagConfig string, getenv func(string) string, home string) (stateDir, configPath string) {
	env := func(k string) string {
		if getenv == nil {
			return ""
		}
		return strings.TrimSpace(getenv(k))
	}
	stateDir = firstNonEmpty(flagStateDir, env("SWITCHBOARD_STATE_DIR"))
	if stateDir == "" {
		stateDir = filepath.Join(home, StateDirName)
	}
	stateDir = expandHome(stateDir, home)
	configPath = firstNonEmpty(flagConfig, env("SWITCHBOARD_CONFIG"))
	if configPath == "" {
		return stateDir, filepath.Join(stateDir, ConfigFileName)
	}
	return stateDir, expandHome(configPath, home)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func expandHome(p, home string) string {
	if p == "~" {
		return filepath.Clean(home)
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return filepath.Clean(p)
}
