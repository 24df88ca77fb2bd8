package telegram

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// offsetFile persists the next update id an account expects: an update
// below it was handled and its turn is durable. It is written only after
// the turn committed, so a crash before that leaves Telegram to redeliver
// the update (and the turn's idempotency key drops a repeat).
type offsetFile struct{ path string }

func (o offsetFile) load() (int64, error) {
	if o.path == "" {
		return 0, nil
	}
	b, err := os.ReadFile(o.path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", o.path, err)
	}
	return n, nil
}

func (o offsetFile) store(next int64) error {
	if o.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(o.path), 0o700); err != nil {
		return err
	}
	tmp := o.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(next, 10)+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, o.path)
}
