package storecopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/store/bulk"
	"github.com/switchboard-go/switchboard/internal/store/postgres"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// Endpoint names a store: "sqlite:PATH" (a SQLite file) or a
// postgres:// (or postgresql://) URL.
type Endpoint struct {
	Driver string // "sqlite" or "postgres"
	Path   string // sqlite
	URL    string // postgres
}

// ParseEndpoint parses a store name as --from and --to take it.
func ParseEndpoint(s string) (Endpoint, error) {
	switch {
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if err := checkPostgresURL(s); err != nil {
			return Endpoint{}, err
		}
		return Endpoint{Driver: "postgres", URL: s}, nil
	case strings.HasPrefix(s, "sqlite:"):
		p := strings.TrimPrefix(s, "sqlite:")
		p = strings.TrimPrefix(p, "//") // sqlite:///abs/path
		if p == "" {
			return Endpoint{}, errors.New("sqlite: needs a file path (sqlite:PATH)")
		}
		return Endpoint{Driver: "sqlite", Path: p}, nil
	}
	return Endpoint{}, fmt.Errorf("%q is not a store: want sqlite:PATH or postgres://user@host/db", clip(s))
}

// String names the endpoint for messages, without a password.
func (e Endpoint) String() string {
	if e.Driver == "sqlite" {
		return "sqlite:" + e.Path
	}
	return redactURL(e.URL)
}

// checkPostgresURL refuses a postgres URL without a host or a database:
// the driver would otherwise fall back to the local socket and the
// user's name, and fail far from the typo. A host or dbname given as a
// query parameter (?host=/run/postgresql) counts.
func checkPostgresURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a postgres URL: %w", redactURL(s), err)
	}
	if missing := config.MissingPostgresURLParts(u); missing != "" {
		return fmt.Errorf("postgres URL %q needs %s (postgres://user@host/db)", redactURL(s), missing)
	}
	return nil
}

// CheckTarget refuses a SQLite target whose directory does not exist:
// creating directories from a typo in a path would put the store
// somewhere nobody looks.
func (e Endpoint) CheckTarget() error {
	if e.Driver != "sqlite" {
		return nil
	}
	dir := filepath.Dir(e.Path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist (create it first)", dir)
	case err != nil:
		return fmt.Errorf("directory %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// Open opens the store e names. A SQLite target file is created when
// missing, in a directory that must exist (CheckTarget); a SQLite source
// must exist.
func (e Endpoint) Open(ctx context.Context, create bool) (bulk.Store, error) {
	switch e.Driver {
	case "sqlite":
		if !create {
			if _, err := os.Stat(e.Path); err != nil {
				return nil, fmt.Errorf("open %s: %w", e, err)
			}
		} else if err := e.CheckTarget(); err != nil {
			return nil, fmt.Errorf("open %s: %w", e, err)
		}
		return sqlite.Open(ctx, e.Path, sqlite.Options{})
	case "postgres":
		return postgres.Open(ctx, e.URL, postgres.Options{})
	}
	return nil, fmt.Errorf("unknown store driver %q", e.Driver)
}

// Same reports whether e and o name the same store.
func (e Endpoint) Same(o Endpoint) bool {
	if e.Driver != o.Driver {
		return false
	}
	if e.Driver == "sqlite" {
		a, err1 := filepath.Abs(e.Path)
		b, err2 := filepath.Abs(o.Path)
		if err1 == nil && err2 == nil && a == b {
			return true
		}
		// One file under two names (a symbolic link, a hard link).
		fa, err1 := os.Stat(e.Path)
		fb, err2 := os.Stat(o.Path)
		return err1 == nil && err2 == nil && os.SameFile(fa, fb)
	}
	return e.URL == o.URL
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
