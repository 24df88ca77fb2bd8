package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// errHelp is returned by parseFlags for -h/--help.
var errHelp = errors.New("help requested")

// flagSet returns a FlagSet with the global flags bound to e, so they are
// accepted anywhere on the command line.
func (e *env) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&e.stateDir, "state-dir", e.stateDir, "keep state in `DIR` (else $SWITCHBOARD_STATE_DIR, else ~/.switchboard)")
	fs.StringVar(&e.configPath, "config", e.configPath, "read the config from `FILE` (else $SWITCHBOARD_CONFIG, else <state-dir>/switchboard.json5)")
	fs.BoolVar(&e.json, "json", e.json, "print JSON payloads instead of tables")
	fs.BoolVar(&e.verbose, "verbose", e.verbose, "debug logs on stderr (same as --log-level debug)")
	fs.Var(&e.logFormat, "log-format", "write logs (stderr) as `text` or json (default text)")
	fs.Var(&e.logLevel, "log-level", "log at `LEVEL` and above: debug, info, warn, error (default info for the gateway, warn for other commands)")
	fs.BoolVar(&e.detach, "detach", e.detach, "in-process: record the work and exit; it stays queued for the next engine start (a gateway, or the next command)")
	return fs
}

// isGlobalFlag reports whether name is one of the flags every FlagSet of
// env.flagSet has.
func isGlobalFlag(name string) bool {
	switch name {
	case "state-dir", "config", "json", "verbose", "log-format", "log-level", "detach":
		return true
	}
	return false
}

// parseFlags parses flags wherever they appear among args and returns the
// positional arguments in order. "--" ends flags. With stopAtCommand it
// stops at the first positional argument and returns it with everything
// after it untouched (the top level, where that is the command name).
// Flags are written -name or --name, with the value as the next argument
// or after "=" (booleans take no separate value).
func parseFlags(fs *flag.FlagSet, args []string, stopAtCommand bool) ([]string, error) {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			if stopAtCommand {
				return append(pos, args[i:]...), nil
			}
			pos = append(pos, a)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		if name == "h" || name == "help" {
			if fs.Lookup(name) == nil {
				return nil, errHelp
			}
		}
		f := fs.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("unknown flag %s", flagName(name))
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) || looksLikeFlag(args[i+1]) {
				return nil, fmt.Errorf("flag %s needs a value", flagName(name))
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, fmt.Errorf("%s %s", flagName(name), err)
		}
	}
	return pos, nil
}

func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// intFlag is an integer flag that remembers whether it was given.
type intFlag struct {
	v   int
	set bool
}

func (f *intFlag) String() string { return strconv.Itoa(f.v) }

func (f *intFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return fmt.Errorf("is out of range (got %q)", s)
		}
		return fmt.Errorf("must be a whole number (got %q)", s)
	}
	f.v, f.set = n, true
	return nil
}

// strFlag is a string flag that remembers whether it was given, so an
// explicit empty value can mean "clear".
type strFlag struct {
	v   string
	set bool
}

func (f *strFlag) String() string { return f.v }

func (f *strFlag) Set(s string) error {
	f.v, f.set = s, true
	return nil
}

// ptr returns the value when given, else nil.
func (f *strFlag) ptr() *string {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}

// listFlag collects a repeatable flag; each value may also be a
// comma-separated list.
type listFlag struct {
	v     []string
	split bool
}

func (f *listFlag) String() string { return strings.Join(f.v, ",") }

func (f *listFlag) Set(s string) error {
	if !f.split {
		f.v = append(f.v, s)
		return nil
	}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			f.v = append(f.v, p)
		}
	}
	return nil
}

// looksLikeFlag reports whether a flag's would-be value is another flag
// (`--state-dir --json`): then the flag is missing its value. A negative
// number is a value (the limit check refuses it); write --flag=-x for a
// value that starts with a dash.
func looksLikeFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err != nil
}

// limited applies a limit of internal/api to an integer flag, as the
// session tools apply it: a clamped limit clamps (with a note on stderr),
// any other refuses a value out of range. A flag that was not given
// returns def. The limit's own name is replaced by the flag's in errors.
func (e *env) limited(name string, f *intFlag, l api.Limit, def int) (int, error) {
	if !f.set {
		return def, nil
	}
	l.Name = "--" + name
	if def != 0 {
		// The note names the command's own default (chat waits 120 s by
		// default, runs wait 30 s, on the same limit), not the limit's.
		l.Default = int64(def)
	}
	n, err := l.Apply(int64(f.v))
	if err != nil {
		return 0, e.usagef("%s", domain.ErrorMessage(err))
	}
	if n != int64(f.v) {
		fmt.Fprintf(e.stderr, "note: --%s %d is out of range (%s); using %d\n", name, f.v, l.Describe(), n)
	}
	return int(n), nil
}

// wantArgs checks the number of positional arguments. names are the
// required arguments in order, so an error names only the missing ones
// ("missing MESSAGE" after a KEY).
func (e *env) wantArgs(pos []string, least, most int, names ...string) error {
	switch {
	case len(pos) < least:
		missing := names[min(len(pos), len(names)):min(least, len(names))]
		return e.usagef("missing %s", strings.Join(missing, " and "))
	case most >= 0 && len(pos) > most:
		return e.usagef("unexpected argument %q", pos[most])
	}
	return nil
}
