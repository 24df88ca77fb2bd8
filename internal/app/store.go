package app

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/store/postgres"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// OpenStore opens the store cfg.Store selects: the SQLite file in the
// state dir (the default) or the PostgreSQL database at store.url.
func OpenStore(ctx context.Context, cfg *config.Config, stateDir string) (domain.Store, error) {
	switch cfg.Store.Driver {
	case config.StorePostgres:
		st, err := postgres.Open(ctx, cfg.Store.URL, postgres.Options{})
		if err != nil {
			return nil, fmt.Errorf("store (store.driver postgres): %w", err)
		}
		return st, nil
	case "", config.StoreSQLite:
		st, err := sqlite.Open(ctx, DBPath(stateDir), sqlite.Options{Transcripts: TranscriptGlob(MirrorDir(cfg, stateDir))})
		if err != nil {
			return nil, emptyStoreHint(err, stateDir)
		}
		return st, nil
	}
	return nil, fmt.Errorf("store.driver: %q is not one of sqlite, postgres", cfg.Store.Driver)
}

// NewMirror returns the JSONL transcript mirror cfg.Transcripts asks for:
// under the state dir (the default), under transcripts.dir, or none
// (transcripts.mirror: false), as a nil engine.Mirror so the engine sees
// no mirror at all.
func NewMirror(cfg *config.Config, stateDir string) engine.Mirror {
	if !cfg.Transcripts.MirrorOn() {
		return nil
	}
	m := transcript.New(MirrorDir(cfg, stateDir), time.Now)
	// Replicas of a PostgreSQL store may share transcripts.dir.
	m.Shared = cfg.Store.Driver == config.StorePostgres && cfg.Transcripts.Dir != ""
	return m
}

// MirrorDir is the directory whose agents/ subtree holds the mirror.
func MirrorDir(cfg *config.Config, stateDir string) string {
	if cfg.Transcripts.Dir != "" {
		return cfg.Transcripts.Dir
	}
	return stateDir
}

// StoreName names the configured store for logs: the SQLite file, or the
// PostgreSQL URL without its password.
func StoreName(cfg *config.Config, stateDir string) string {
	if cfg.Store.Driver == config.StorePostgres {
		return cfg.Redacted().Store.URL
	}
	return DBPath(stateDir)
}
