package sqlite

import (
	"context"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Gate holds the named lock until release. A SQLite store is opened by one
// engine only (the state dir is never shared by two: docs/design.md#state-config-and-defaults), so a lock
// in this process excludes every other holder there can be.
func (s *Store) Gate(ctx context.Context, name string) (release func(), err error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("gate: %w", domain.ErrClosed)
	}
	unlock, err := s.gates.LockContext(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("gate %q: %w", name, err)
	}
	return unlock, nil
}
