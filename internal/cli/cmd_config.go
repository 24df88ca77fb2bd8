package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/switchboard-go/switchboard/internal/app"
	"github.com/switchboard-go/switchboard/internal/config"
)

func configCommand() *command {
	return &command{
		name:    "config",
		summary: "show and validate the configuration",
		help:    "The config file is JSON5: --config FILE, else $SWITCHBOARD_CONFIG, else <state-dir>/switchboard.json5.\nA missing file means defaults: one agent `main` on the offline `script` model.",
		subs:    []*command{configShowCommand(), configValidateCommand()},
	}
}

func configShowCommand() *command {
	return &command{
		name:    "show",
		summary: "print the effective configuration, secrets masked",
		help:    "Prints the configuration after defaults and ${ENV} substitution, as JSON (valid JSON5), with API\nkeys and tokens masked.",
		example: []string{"switchboard config show", "switchboard config show --config ./switchboard.json5"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 0); err != nil {
					return err
				}
				_, path, err := e.paths()
				if err != nil {
					return err
				}
				cfg, err := app.LoadConfig(path, e.getenv)
				if err != nil {
					return err
				}
				if !e.json {
					source := path
					if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
						source += " (missing: defaults)"
					}
					fmt.Fprintf(e.stdout, "// config: %s\n", source)
				}
				return printJSON(e.stdout, cfg.Redacted())
			}
		},
	}
}

// validateOutput is `config validate --json`.
type validateOutput struct {
	File     string    `json:"file"`
	Valid    bool      `json:"valid"`
	Problems []problem `json:"problems"`
}

// problem is one config problem: its key path and what is wrong.
type problem struct {
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func (p problem) String() string { return config.Problem{Path: p.Path, Message: p.Message}.String() }

func configValidateCommand() *command {
	return &command{
		name:    "validate",
		args:    "[FILE]",
		summary: "check a config file and list every problem",
		help:    "Exit status 0 when the file is valid; 1 with every problem listed, one per line, each with its\nkey path. Without FILE it checks the config the other commands would load.",
		example: []string{"switchboard config validate ./switchboard.json5", "switchboard config validate --json"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			return func(pos []string) error {
				if err := e.wantArgs(pos, 0, 1); err != nil {
					return err
				}
				var path string
				if len(pos) == 1 {
					path = pos[0]
					if _, err := os.Stat(path); err != nil {
						return inputFile("config validate", path, err)
					}
				} else {
					var err error
					if _, path, err = e.paths(); err != nil {
						return err
					}
				}
				return validateConfig(e, path)
			}
		},
	}
}

func validateConfig(e *env, path string) error {
	_, err := config.Load(path, e.getenv)
	out := validateOutput{File: path, Valid: err == nil, Problems: []problem{}}
	var verr *config.ValidationError
	switch {
	case err == nil:
	case errors.As(err, &verr):
		for _, p := range verr.Problems {
			out.Problems = append(out.Problems, problem{Path: p.Path, Message: p.Message})
		}
	default:
		// Unreadable or not JSON5 at all: one problem, without a key path.
		out.Problems = []problem{{Message: err.Error()}}
	}
	if e.json {
		if err := printJSON(e.stdout, out); err != nil {
			return err
		}
	} else if out.Valid {
		fmt.Fprintf(e.stdout, "%s: ok\n", path)
	} else {
		for _, p := range out.Problems {
			fmt.Fprintln(e.stdout, p.String())
		}
	}
	if out.Valid {
		return nil
	}
	noun := "problems"
	if len(out.Problems) == 1 {
		noun = "problem"
	}
	return &exitErr{code: exitError, msg: fmt.Sprintf("%s: %d %s", path, len(out.Problems), noun)}
}
