package cli

import (
	"errors"
	"io/fs"
	"net"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// inputFile is the error of a file or directory the user named (by a flag
// or an argument, what) that cannot be used: invalid, naming what and the
// path, with the file system's reason ("no such file or directory").
func inputFile(what, path string, err error) error {
	reason := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason = pe.Err.Error()
	}
	return &domain.Error{Code: domain.CodeInvalid, Message: what + " " + path + ": " + reason}
}

// storeOpenCode is the code of a store that could not be opened: unavailable
// when its server did not answer (a network error), else invalid (a bad
// URL, credentials or database name the user gave).
func storeOpenCode(err error) string {
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) {
		return domain.CodeUnavailable
	}
	return domain.CodeInvalid
}
