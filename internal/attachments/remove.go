package attachments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrOutsideRoot is returned by SafeRemove for a folder that is not inside
// the attachments root once symlinks are resolved.
var ErrOutsideRoot = errors.New("attachments: folder is not inside the attachments root")

// SafeRemove removes dir and its contents only if, with every symlink
// resolved, it lies strictly inside root (the attachments root of a
// workspace, see Root). A dir that is, or passes through, a symlink leading
// outside root is refused with ErrOutsideRoot and nothing is touched. A dir
// that no longer exists is not an error. The removal itself runs through an
// os.Root of the resolved root, so a symlink swapped in after the check
// cannot redirect it outside.
func SafeRemove(root, dir string) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("attachments: resolve %s: %w", dir, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s (root %s does not exist)", ErrOutsideRoot, dir, root)
	}
	if err != nil {
		return fmt.Errorf("attachments: resolve root %s: %w", root, err)
	}
	rel, err := filepath.Rel(realRoot, realDir)
	if err != nil || !filepath.IsLocal(rel) || rel == "." {
		return fmt.Errorf("%w: %s resolves to %s, outside %s", ErrOutsideRoot, dir, realDir, realRoot)
	}
	r, err := os.OpenRoot(realRoot)
	if err != nil {
		return fmt.Errorf("attachments: open root: %w", err)
	}
	defer r.Close()
	if err := r.RemoveAll(rel); err != nil {
		return fmt.Errorf("attachments: remove %s: %w", dir, err)
	}
	return nil
}
