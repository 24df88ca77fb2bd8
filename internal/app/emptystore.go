package app

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// TranscriptGlob matches the JSONL transcripts of a state dir's mirror:
// their presence means the store once held sessions.
func TranscriptGlob(stateDir string) string {
	return filepath.Join(stateDir, "agents", "*", "sessions", "*.jsonl")
}

// emptyStoreHint adds what to do to the store's refusal of a zero-byte
// store file beside existing transcripts; other errors pass unchanged.
func emptyStoreHint(err error, stateDir string) error {
	if !errors.Is(err, sqlite.ErrEmptyStore) {
		return err
	}
	return fmt.Errorf("%w\nswitchboard will not open it as an empty store (that would lose every session). Restore %s from a backup; "+
		"or move it away and rebuild from the transcripts (OpenClaw-format JSONL under %s) with `switchboard import openclaw DIR` "+
		"pointed at a copy of them that has a sessions.json index; or, to start empty on purpose, move both %s and %s away",
		err, DBPath(stateDir), filepath.Join(stateDir, "agents"), DBPath(stateDir), filepath.Join(stateDir, "agents"))
}
