package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/runspec"
)

// StartReport says what Start recovered from the previous process: runs
// re-queued or aborted by the crash rule, queued runs resumed and JSONL
// mirror files repaired from the store. The process logs it as its
// recovery summary.
type StartReport struct {
	runs.StartReport
	// AttachmentsRemoved counts attachment folders of spawns whose run was
	// never committed (removed at start).
	AttachmentsRemoved int
}

// StartReport returns what Start recovered (zero before Start).
func (e *Engine) StartReport() StartReport {
	return StartReport{StartReport: e.rt.Report(), AttachmentsRemoved: e.swept}
}

// sweepAttachments removes the attachment folders no run names: a process
// killed between writing a spawn's attachments and committing its run left
// them behind (a chat message's files are the transcript's, and kept). It runs before the runtime starts, while nothing spawns;
// folders a sub-agent run names are left to its lifecycle (the announce's
// cleanup). It returns how many it removed.
func (e *Engine) sweepAttachments(ctx context.Context) (int, error) {
	runs, err := e.store.ListRuns(ctx, domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindSubagent}})
	if err != nil {
		return 0, err
	}
	named := map[string]bool{}
	for _, r := range runs {
		if spec, err := runspec.Decode(r); err == nil && spec.Spawn != nil && spec.Spawn.AttachmentsDir != "" {
			named[filepath.Clean(spec.Spawn.AttachmentsDir)] = true
		}
	}
	removed := 0
	for _, a := range e.cfg.Agents.List {
		root := filepath.Join(e.cfg.Workspace(e.dir, a.ID), ".switchboard", "attachments")
		entries, err := os.ReadDir(root)
		if err != nil {
			continue // none written for this agent
		}
		for _, ent := range entries {
			dir := filepath.Join(root, ent.Name())
			if !ent.IsDir() || named[dir] || strings.HasPrefix(ent.Name(), attachments.MessageFolderPrefix) {
				continue
			}
			if err := attachments.SafeRemove(root, dir); err != nil {
				e.log.Warn("orphaned attachments folder not removed", "dir", dir, "err", err)
				continue
			}
			removed++
		}
	}
	if removed > 0 {
		e.log.Warn("removed attachment folders of spawns that never started", "count", removed)
	}
	return removed, nil
}
