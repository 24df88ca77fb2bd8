package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/redact"
)

// titleHeadMessages is how many of a generation's first non-tool messages
// are read looking for its first user message (a session begins with one,
// so more would only be read for transcripts that start otherwise).
const titleHeadMessages = 4

// attachTitles fills sessions.list's lastMessagePreview and derivedTitle
// (OpenClaw's includeLastMessage / includeDerivedTitles): one short read
// per row and field, by attachWorkers goroutines, since a listing may have
// hundreds of rows. Texts are masked as history masks them.
func (e *Engine) attachTitles(ctx context.Context, out []api.SessionRow, rows []domain.Session, preview, title bool) error {
	if len(rows) == 0 {
		return nil
	}
	// A store that reads many tails in one query (domain.TailsReader)
	// gives every row's newest message at once.
	if tr, ok := e.store.(domain.TailsReader); ok && preview {
		gens := make([]domain.Generation, len(rows))
		for i, s := range rows {
			gens[i] = domain.Generation{Key: s.Key, SessionID: s.SessionID}
		}
		tails, err := tr.ReadTails(ctx, gens, 1, []string{domain.RoleToolResult, "tool"})
		if err != nil {
			return err
		}
		for i, t := range tails {
			if len(t) == 1 {
				out[i].LastMessagePreview = clip(t[0].Content.Text(), int(api.ListPreviewChars.Max))
			}
		}
		preview = false
		if !title {
			return nil
		}
	}
	errs := make([]error, len(rows))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(attachWorkers, len(rows)) {
		wg.Go(func() {
			for i := range jobs {
				errs[i] = e.titleRow(ctx, &out[i], rows[i], preview, title)
			}
		})
	}
	for i := range rows {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return errors.Join(errs...)
}

// titleRow fills one row's preview and title.
func (e *Engine) titleRow(ctx context.Context, row *api.SessionRow, s domain.Session, preview, title bool) error {
	exclude := []string{domain.RoleToolResult, "tool"}
	if preview {
		msgs, err := e.store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID, Limit: 1, ExcludeRoles: exclude})
		if err != nil {
			return err
		}
		if len(msgs) == 1 {
			row.LastMessagePreview = clip(msgs[0].Content.Text(), int(api.ListPreviewChars.Max))
		}
	}
	if !title {
		return nil
	}
	switch {
	case strings.TrimSpace(row.DisplayName) != "":
		row.DerivedTitle = clip(row.DisplayName, int(api.ListDerivedTitleChars.Max))
		return nil
	case strings.TrimSpace(row.Label) != "":
		row.DerivedTitle = clip(row.Label, int(api.ListDerivedTitleChars.Max))
		return nil
	}
	head, err := e.store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID, Limit: titleHeadMessages, Oldest: true, ExcludeRoles: exclude})
	if err != nil {
		return err
	}
	for _, m := range head {
		if m.Role == domain.RoleUser {
			if t := clip(m.Content.Text(), int(api.ListDerivedTitleChars.Max)); t != "" {
				row.DerivedTitle = t
				return nil
			}
		}
	}
	if s.SessionID != "" {
		id := s.SessionID[:min(8, len(s.SessionID))]
		row.DerivedTitle = id + " (" + time.UnixMilli(s.UpdatedAt).UTC().Format(time.DateOnly) + ")"
	}
	return nil
}

// clip masks secrets in s, collapses its whitespace and cuts it to at most
// n characters, at a word boundary when one is in the second half, ending
// with "…" when cut.
func clip(s string, n int) string {
	s, _ = redact.Text(s)
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := n - 1
	if i := strings.LastIndexFunc(string(r[:cut]), unicode.IsSpace); i >= 0 && len([]rune(string(r[:cut])[:i])) > cut/2 {
		cut = len([]rune(string(r[:cut])[:i]))
	}
	return strings.TrimRightFunc(string(r[:cut]), unicode.IsSpace) + "…"
}
