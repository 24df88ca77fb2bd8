package attachments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/textcheck"
)

// RootRel is the attachments root relative to an agent workspace.
const RootRel = ".switchboard/attachments"

// Receipt describes materialized attachments; sessions_spawn returns it
// and the manifest holds the same JSON.
type Receipt struct {
	Count      int           `json:"count"`
	TotalBytes int64         `json:"totalBytes"`
	Files      []FileReceipt `json:"files"`
	// RelDir is the folder relative to the workspace, slash-separated.
	RelDir string `json:"relDir"`
}

// FileReceipt is one file of a Receipt.
type FileReceipt struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	Sha256 string `json:"sha256"`
}

// manifest is the JSON of .manifest.json; its field order puts relDir first.
type manifest struct {
	RelDir     string        `json:"relDir"`
	Count      int           `json:"count"`
	TotalBytes int64         `json:"totalBytes"`
	Files      []FileReceipt `json:"files"`
}

// Root returns the attachments root of a workspace.
func Root(workspace string) string {
	return filepath.Join(workspace, filepath.FromSlash(RootRel))
}

// MessageFolderPrefix starts the folder name of a chat message's files:
// they live as long as the transcript that names them, so the sweep of
// folders no spawn names leaves them alone.
const MessageFolderPrefix = "msg-"

// Materialize writes files into a new folder
// <workspace>/.switchboard/attachments/<newID()>/ (mode 0700, parents
// created) with exclusive-create files of mode 0600 and a .manifest.json,
// and returns the receipt and the folder's path. All writes go through an
// os.Root of the workspace, so a symlink planted in the workspace cannot
// redirect them outside it. On any error the new folder is removed.
func Materialize(workspace string, files []File, newID func() string) (Receipt, string, error) {
	return materialize(workspace, files, newID, writeAll)
}

// writerFunc fills a new attachments folder; a parameter so tests can make
// it fail half-way.
type writerFunc func(ws *os.Root, relDir string, files []File) (Receipt, error)

func materialize(workspace string, files []File, newID func() string, write writerFunc) (Receipt, string, error) {
	id := newID()
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || strings.ContainsFunc(id, textcheck.Unsafe) {
		return Receipt{}, "", fmt.Errorf("attachments: invalid folder id %q", id)
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if err := checkName(f.Name); err != nil {
			return Receipt{}, "", err
		}
		if seen[f.Name] {
			return Receipt{}, "", fmt.Errorf("attachments: duplicate name %q", f.Name)
		}
		seen[f.Name] = true
	}

	if err := os.MkdirAll(workspace, 0o700); err != nil {
		return Receipt{}, "", fmt.Errorf("attachments: create workspace: %w", err)
	}
	ws, err := os.OpenRoot(workspace)
	if err != nil {
		return Receipt{}, "", fmt.Errorf("attachments: open workspace: %w", err)
	}
	defer ws.Close()

	relDir := path.Join(RootRel, id)
	if err := ws.MkdirAll(RootRel, 0o700); err != nil {
		return Receipt{}, "", fmt.Errorf("attachments: create root: %w", err)
	}
	// Mkdir (not MkdirAll) so an existing folder is an error and is never
	// removed by the cleanup below.
	if err := ws.Mkdir(relDir, 0o700); err != nil {
		return Receipt{}, "", fmt.Errorf("attachments: create folder: %w", err)
	}
	receipt, err := write(ws, relDir, files)
	if err != nil {
		if rmErr := ws.RemoveAll(relDir); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("attachments: remove partial folder: %w", rmErr))
		}
		return Receipt{}, "", err
	}
	return receipt, filepath.Join(workspace, filepath.FromSlash(relDir)), nil
}

// writeAll writes the files and the manifest into relDir.
func writeAll(ws *os.Root, relDir string, files []File) (Receipt, error) {
	// The umask may have narrowed the mode; make it exactly 0700.
	if err := ws.Chmod(relDir, 0o700); err != nil {
		return Receipt{}, fmt.Errorf("attachments: chmod folder: %w", err)
	}
	r := Receipt{Files: make([]FileReceipt, 0, len(files)), RelDir: relDir}
	for _, f := range files {
		if err := writeExclusive(ws, path.Join(relDir, f.Name), f.Data); err != nil {
			return Receipt{}, err
		}
		sum := sha256.Sum256(f.Data)
		r.Files = append(r.Files, FileReceipt{Name: f.Name, Bytes: int64(len(f.Data)), Sha256: hex.EncodeToString(sum[:])})
		r.Count++
		r.TotalBytes += int64(len(f.Data))
	}
	m, err := json.MarshalIndent(manifest{RelDir: r.RelDir, Count: r.Count, TotalBytes: r.TotalBytes, Files: r.Files}, "", "  ")
	if err != nil {
		return Receipt{}, fmt.Errorf("attachments: manifest: %w", err)
	}
	if err := writeExclusive(ws, path.Join(relDir, manifestName), append(m, '\n')); err != nil {
		return Receipt{}, err
	}
	return r, nil
}

// writeExclusive creates name (which must not exist) with mode 0600.
func writeExclusive(ws *os.Root, name string, data []byte) error {
	f, err := ws.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("attachments: create %s: %w", path.Base(name), err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("attachments: write %s: %w", path.Base(name), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("attachments: close %s: %w", path.Base(name), err)
	}
	return nil
}
