package cli

import (
	"flag"
	"fmt"
	"runtime/debug"
)

// versionInfo is what `switchboard version` reports.
type versionInfo struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Commit    string `json:"commit,omitempty"`
	CommitAt  string `json:"commitTime,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
}

// buildVersion reads the version from the binary's build information.
func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)", GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = bi.GoVersion
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitAt = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the version, Go version and commit",
		example: []string{"switchboard version", "switchboard version --json"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				v := buildVersion()
				if e.json {
					return printJSON(e.stdout, v)
				}
				commit := v.Commit
				if commit == "" {
					commit = "unknown"
				} else if v.Modified {
					commit += " (modified)"
				}
				_, err := fmt.Fprintf(e.stdout, "switchboard %s\ngo: %s\ncommit: %s\n", v.Version, v.GoVersion, commit)
				return err
			}
		},
	}
}
