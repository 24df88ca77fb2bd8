package openclawimport

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// parseAgentDB turns the session rows of an agent database into
// candidates. Each row's entry_json is the same session entry that
// sessions.json held, decoded as parseEntry does; the row's own columns
// (and those of its current session window) fill what the entry leaves
// out, and current_session_id names the transcript.
func parseAgentDB(ctx context.Context, a *agentDB, dirAgent, sessionsDir string, opts Options, sum *Summary) ([]candidate, error) {
	nodes, err := a.nodes(ctx)
	if err != nil {
		return nil, err
	}
	return parseAll(len(nodes), func(i int) indexEntry {
		n := &nodes[i]
		r := parseEntry(a.path, n.key, json.RawMessage(n.entryJSON), dirAgent, sessionsDir, opts)
		if r.skip != "" {
			return r
		}
		n.fill(&r.c.e)
		if err := checkSessionID(r.c.e.SessionID); err != nil {
			r.skip, r.detail = reasonInvalidEntry, fmt.Sprintf("%s: session %q: current_session_id: %v", a.path, n.key, err)
			return r
		}
		if r.c.spawnedBy == "" && r.c.e.SpawnedBy != "" {
			if pk, err := opts.Canonical(r.c.e.SpawnedBy, dirAgent); err == nil {
				r.c.spawnedBy = pk
			}
		}
		if a.events {
			r.c.db = a
		}
		return r
	}, sum), nil
}

// fill completes e from the row's columns where the entry is silent.
func (n *nodeRow) fill(e *entry) {
	if n.sessionID != "" {
		e.SessionID = n.sessionID
	}
	str := func(dst *string, srcs ...sql.NullString) {
		for _, s := range srcs {
			if *dst == "" && s.Valid {
				*dst = s.String
			}
		}
	}
	str(&e.Label, n.label)
	str(&e.DisplayName, n.displayName, n.windowDisplayName)
	str(&e.SpawnedBy, n.spawnedBy, n.windowSpawnedBy)
	str(&e.ParentSessionKey, n.parentKey)
	str(&e.Status, n.status, n.windowStatus)
	str(&e.Channel, n.channel)
	str(&e.ChatType, n.chatType)
	str(&e.Model, n.windowModel)
	str(&e.ModelProvider, n.windowModelProvider)
	if e.LastAccountID == "" && n.account.Valid {
		e.LastAccountID = flexString(n.account.String)
	}
	if e.UpdatedAt == 0 && n.updatedAt.Valid {
		e.UpdatedAt = flexInt(n.updatedAt.Int64)
	}
	if e.StartedAt == 0 && n.startedAt.Valid {
		e.StartedAt = flexInt(n.startedAt.Int64)
	}
	if e.EndedAt == 0 && n.endedAt.Valid {
		e.EndedAt = flexInt(n.endedAt.Int64)
	}
}
