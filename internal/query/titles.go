package query

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

// AttachWorkers is how many goroutines read a listing's per-row texts at
// once.
const AttachWorkers = 4

// AttachTitles fills sessions.list's lastMessagePreview and derivedTitle
// (OpenClaw's includeLastMessage / includeDerivedTitles): one short read
// per row and field, by AttachWorkers goroutines, since a listing may have
// hundreds of rows. Texts are masked as history masks them.
func (r Reader) AttachTitles(ctx context.Context, out []api.SessionRow, rows []domain.Session, preview, title bool) error {
	if len(rows) == 0 {
		return nil
	}
	// A store that reads many tails in one query (domain.TailsReader)
	// gives every row's newest message at once.
	if tr, ok := r.Store.(domain.TailsReader); ok && preview {
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
				out[i].LastMessagePreview = Clip(t[0].Content.Text(), int(api.ListPreviewChars.Max))
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
	for range min(AttachWorkers, len(rows)) {
		wg.Go(func() {
			for i := range jobs {
				errs[i] = r.titleRow(ctx, &out[i], rows[i], preview, title)
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
func (r Reader) titleRow(ctx context.Context, row *api.SessionRow, s domain.Session, preview, title bool) error {
	exclude := []string{domain.RoleToolResult, "tool"}
	if preview {
		msgs, err := r.Store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID, Limit: 1, ExcludeRoles: exclude})
		if err != nil {
			return err
		}
		if len(msgs) == 1 {
			row.LastMessagePreview = Clip(msgs[0].Content.Text(), int(api.ListPreviewChars.Max))
		}
	}
	if !title {
		return nil
	}
	switch {
	case strings.TrimSpace(row.DisplayName) != "":
		row.DerivedTitle = Clip(row.DisplayName, int(api.ListDerivedTitleChars.Max))
		return nil
	case strings.TrimSpace(row.Label) != "":
		row.DerivedTitle = Clip(row.Label, int(api.ListDerivedTitleChars.Max))
		return nil
	}
	head, err := r.Store.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID, Limit: titleHeadMessages, Oldest: true, ExcludeRoles: exclude})
	if err != nil {
		return err
	}
	for _, m := range head {
		if m.Role == domain.RoleUser {
			if t := Clip(m.Content.Text(), int(api.ListDerivedTitleChars.Max)); t != "" {
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

// Clip masks secrets in s, collapses its whitespace and cuts it to at most
// n characters, at a word boundary when one is in the second half, ending
// with "…" when cut.
func Clip(s string, n int) string {
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
