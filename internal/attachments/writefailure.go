package attachments

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// WriteFailure returns err as a retryable CodeUnavailable error naming the
// cause when the file system refused a write (full disk, quota, I/O
// error): nothing was acknowledged, and the same call succeeds once the
// file system accepts writes again. Other errors are returned as they are.
func WriteFailure(what string, err error) error {
	var cause string
	switch {
	case errors.Is(err, syscall.ENOSPC):
		cause = "no space left on device"
	case errors.Is(err, syscall.EDQUOT):
		cause = "disk quota exceeded"
	case errors.Is(err, syscall.EIO):
		cause = "input/output error"
	case errors.Is(err, syscall.EROFS):
		cause = "read-only file system"
	default:
		return err
	}
	return &domain.Error{Code: domain.CodeUnavailable, Err: err,
		Message: fmt.Sprintf("%s failed: %s; nothing was saved, retry once the disk can be written again", what, cause)}
}
