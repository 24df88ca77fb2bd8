// Package cli is switchboard's command line: one Run function that parses
// arguments, finds the state directory, opens one api.Service (the running
// gateway of the state dir through internal/client, or the engine
// in-process) and runs a command with it, as the operator or, with --as,
// acting as a requester session.
// cmd/switchboard only wires it to the process; tests call Run.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/mcpserver"
)

// Exit codes of Main.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Main runs the command line, reports a failure on stderr and returns
// the process exit code (see exitCode).
func Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainWith(ctx, nil, args, getenv, stdin, stdout, stderr)
}

// mainWith is Main with the process's hangups (nil: none).
func mainWith(ctx context.Context, hup *hangup, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := interruption(ctx, run(ctx, hup, args, getenv, stdin, stdout, stderr))
	report(stderr, err)
	return exitCode(err)
}

// exitCode is the one mapping of a command's outcome to an exit code, the
// same for every command: 0 ok; 2 a usage error, which the CLI finds
// before doing anything (unknown command or flag, a flag without its
// value, a value of the wrong type or out of range); 1 everything else (a
// missing --config file, an unknown session or agent, a refused call, a
// run that did not end ok).
func exitCode(err error) int {
	var ue *usageError
	var ee *exitErr
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ee):
		return ee.code
	}
	return exitError
}

// report writes a failure to stderr: a usage error with the command's
// short usage, an error with a message, nothing for an exitErr that
// printed its own output.
func report(stderr io.Writer, err error) {
	var ue *usageError
	var ee *exitErr
	switch {
	case err == nil:
	case errors.As(err, &ue):
		msg := ue.msg
		if !strings.HasPrefix(msg, "switchboard ") {
			msg = "switchboard: " + msg
		}
		fmt.Fprintln(stderr, msg)
		if ue.usage != "" {
			fmt.Fprint(stderr, ue.usage)
		}
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(stderr, "switchboard: %s\n", ee.msg)
		}
	default:
		fmt.Fprintf(stderr, "switchboard: %s\n", strings.TrimRight(err.Error(), "\n"))
	}
}

// Run runs one command. Output goes to stdout, diagnostics and progress to
// stderr; stdin is read by commands that speak a protocol on it (mcp).
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(ctx, nil, args, getenv, stdin, stdout, stderr)
}

func run(ctx context.Context, hup *hangup, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if getenv == nil {
		getenv = os.Getenv
	}
	// stderr is shared by the logger (written from the engine's and the
	// gateway's goroutines) and the command's own messages.
	env := &env{ctx: ctx, getenv: getenv, stdin: stdin, stdout: stdout, stderr: &lockedWriter{w: stderr}, hup: hup}
	root := commands()

	// Global flags may come before the command; the rest is parsed by the
	// command itself (which accepts the global flags too).
	fs := env.flagSet("switchboard")
	help := fs.Bool("help", false, "show help")
	fs.BoolVar(help, "h", false, "show help")
	pos, err := parseFlags(fs, args, true)
	if err != nil {
		return usageErr(err.Error(), shortUsage(root, nil))
	}
	if len(pos) == 0 {
		if *help {
			_, err := io.WriteString(stdout, usageOf(root, nil))
			return err
		}
		return usageErr("no command given", shortUsage(root, nil))
	}
	rest := pos[1:]
	if *help {
		rest = append(rest, "--help")
	}
	err = dispatch(env, root, pos[0], rest)
	if err != nil && env.json {
		writeJSONError(env.stdout, err)
	}
	return err
}

// writeJSONError prints a failed command's error on stdout under --json,
// in the shape of the HTTP API's errors ({ok:false, error:{code,
// message}}), so a script reads the same machine-readable code
// (domain.Code*) as every other surface gives; stderr keeps the text. A
// command that printed its own JSON answer (exitErr) prints nothing more.
func writeJSONError(stdout io.Writer, err error) {
	var ee *exitErr
	if errors.As(err, &ee) {
		return
	}
	code, msg := domain.ErrorCode(err), strings.TrimRight(err.Error(), "\n")
	var de *domain.Error
	if errors.As(err, &de) {
		msg = de.Message
	}
	var ue *usageError
	if errors.As(err, &ue) {
		code, msg = domain.CodeInvalid, ue.msg
	}
	_ = printJSON(stdout, map[string]any{"ok": false, "error": map[string]string{"code": code, "message": msg}})
}

// dispatch finds the command named by name (and sub-command names in args)
// and runs it.
func dispatch(env *env, root *command, name string, args []string) error {
	if name == "help" {
		return runHelp(env, root, args)
	}
	cmd := root.sub(name)
	if cmd == nil {
		return usageErr(fmt.Sprintf("unknown command %q%s", name, suggest(root, name)), shortUsage(root, nil))
	}
	path := []*command{cmd}
	for len(cmd.subs) > 0 {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			if hasHelpFlag(args) {
				_, err := io.WriteString(env.stdout, usageOf(cmd, path))
				return err
			}
			return usageErr(fmt.Sprintf("%s: which one? (%s)", cmd.fullName(path), subNames(cmd)), shortUsage(cmd, path))
		}
		sub := cmd.sub(args[0])
		if sub == nil {
			return usageErr(fmt.Sprintf("%s: unknown command %q%s", cmd.fullName(path), args[0], suggest(cmd, args[0])), shortUsage(cmd, path))
		}
		cmd, args = sub, args[1:]
		path = append(path, cmd)
	}
	env.cmd, env.path = cmd, path
	return cmd.run(env, args)
}

// runHelp prints the help of `help CMD [SUB]`.
func runHelp(env *env, root *command, args []string) error {
	cmd, path := root, []*command(nil)
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		sub := cmd.sub(a)
		if sub == nil {
			return usageErr(fmt.Sprintf("help: unknown command %q%s", a, suggest(cmd, a)), shortUsage(root, nil))
		}
		cmd = sub
		path = append(path, cmd)
	}
	_, err := io.WriteString(env.stdout, usageOf(cmd, path))
	return err
}

func hasHelpFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "--help" || a == "-help" {
			return true
		}
	}
	return false
}

// env is what a command runs with: the process's context and streams, and
// the global flags.
type env struct {
	ctx    context.Context
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	stateDir   string
	configPath string
	json       bool
	verbose    bool
	logFormat  logFormat
	logLevel   logLevel
	detach     bool
	// serving: the command is a server (the gateway), which logs at info
	// by default.
	serving bool
	// log is the command's logger, built on first use (see logger).
	log *slog.Logger
	// logs copies log's records to MCP stdio sessions that set a level.
	logs *mcpserver.LogTee
	// hup delivers SIGHUP to a gateway (nil outside Process).
	hup *hangup

	cmd  *command
	path []*command
}

// paths returns the state dir (--state-dir, else $SWITCHBOARD_STATE_DIR,
// else ~/.switchboard), made absolute, and the config file (--config, else
// $SWITCHBOARD_CONFIG, else <state-dir>/switchboard.json5). A config file
// named by --config or $SWITCHBOARD_CONFIG must exist; only the default
// path may be missing (defaults).
func (e *env) paths() (stateDir, configPath string, err error) {
	home := e.getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil && e.stateDir == "" && e.getenv("SWITCHBOARD_STATE_DIR") == "" {
			return "", "", fmt.Errorf("no state directory: set --state-dir or $SWITCHBOARD_STATE_DIR (%w)", err)
		}
	}
	stateDir, configPath = config.ResolvePaths(e.stateDir, e.configPath, e.getenv, home)
	if err := config.CheckNamed(configPath, e.configPath, e.getenv); err != nil {
		return "", "", domain.WithCode(domain.CodeInvalid, err)
	}
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		return "", "", fmt.Errorf("state dir %s: %w", stateDir, err)
	}
	if configPath == filepath.Join(stateDir, "switchboard.json5") {
		configPath = filepath.Join(abs, "switchboard.json5")
	}
	return abs, configPath, nil
}

// usageError is a mistake in how a command was called (exit code 2).
type usageError struct {
	msg   string
	usage string
}

func (e *usageError) Error() string { return e.msg }

func usageErr(msg, usage string) error { return &usageError{msg: msg, usage: usage} }

// usagef reports a usage error of the running command.
func (e *env) usagef(format string, args ...any) error {
	return usageErr(e.cmd.fullName(e.path)+": "+fmt.Sprintf(format, args...), shortUsage(e.cmd, e.path))
}

// exitErr ends a command with a given exit code after it printed its own
// output (a send whose status is error, a validation that found problems).
type exitErr struct {
	code int
	msg  string
}

func (e *exitErr) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.msg
}
