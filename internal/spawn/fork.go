package spawn

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/redact"
)

// spawnContext validates sessions_spawn's context ("" is isolated).
func spawnContext(c string) (string, error) {
	switch c {
	case "", api.SpawnIsolated:
		return api.SpawnIsolated, nil
	case api.SpawnFork:
		return api.SpawnFork, nil
	}
	return "", domain.Invalid("context must be one of %s (got %q)", strings.Join(api.SpawnContexts(), "|"), c)
}

// ForkMessages is what a forked child is given: the newest user and
// assistant messages of the requester's current transcript, sanitized as
// sessions_history sanitizes them (credentials masked, each text capped,
// usage and details dropped), without tool results and without tool calls
// (the child gets the conversation, not calls it cannot answer), within
// the budget of api.ForkMessages and api.ForkChars (oldest dropped
// first). Each of the parent's own is marked with provenance {kind: "fork",
// sourceSessionKey}; one that came from elsewhere keeps its provenance
// (forkProvenance).
// A requester without a transcript yet gives nothing.
func ForkMessages(ctx context.Context, store domain.Store, requesterKey string) ([]domain.Message, error) {
	s, err := store.GetSession(ctx, requesterKey)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := store.ReadMessages(ctx, requesterKey, domain.MessageQuery{SessionID: s.SessionID,
		Limit: int(api.ForkMessages.Max), ExcludeRoles: []string{domain.RoleToolResult, "tool"}})
	if err != nil {
		return nil, err
	}
	var convo []domain.Message
	for _, m := range raw {
		if m.Role != domain.RoleUser && m.Role != domain.RoleAssistant {
			continue
		}
		if m.Role == domain.RoleAssistant && len(m.Content.ToolCalls()) > 0 {
			var kept []domain.Block
			for _, b := range m.Content.Blocks() {
				if b.Type == domain.BlockText && strings.TrimSpace(b.Text) != "" {
					kept = append(kept, b)
				}
			}
			if len(kept) == 0 {
				continue
			}
			m.Content = domain.BlockContent(kept...)
			m.StopReason = domain.StopReasonStop
		}
		convo = append(convo, m)
	}
	clean := redact.History(convo, redact.HistoryOptions{MaxBytes: 1 << 30}).Messages
	// The character budget: keep the newest messages whose text fits.
	budget := int(api.ForkChars.Max)
	start := len(clean)
	for start > 0 {
		n := utf8.RuneCountInString(clean[start-1].Content.Text())
		if n > budget {
			break
		}
		budget -= n
		start--
	}
	out := make([]domain.Message, 0, len(clean)-start)
	for _, m := range clean[start:] {
		out = append(out, domain.Message{
			Role: m.Role, Content: m.Content, Timestamp: m.Timestamp,
			API: m.API, Provider: m.Provider, Model: m.Model, StopReason: m.StopReason,
			Provenance: forkProvenance(m.Provenance, requesterKey),
		})
	}
	return out, nil
}

// forkProvenance is the provenance of a message copied into a forked
// child: {kind: "fork", sourceSessionKey: parent} for the parent's own
// conversation (its user's words, its answers), but the original one for a
// message that came from elsewhere (another session's send, a sub-agent's
// announce, an exchange step, switchboard's own text): re-stamped, it would
// read as the parent's words.
func forkProvenance(orig *domain.Provenance, parent string) *domain.Provenance {
	if orig != nil && orig.Kind != "" && orig.Kind != domain.ProvenanceExternalUser {
		p := *orig
		return &p
	}
	return &domain.Provenance{Kind: domain.ProvenanceFork, SourceSessionKey: parent}
}
