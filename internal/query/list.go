package query

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/redact"
)

// ListView is how a listing's rows are shown to its viewer: Row maps a
// session to its row (the viewer's view of the keys, the default model),
// and Decorate adds what the engine holds beside the store (usage,
// budget, progress of a live run).
type ListView struct {
	Operator bool
	Row      func(domain.Session) api.SessionRow
	Decorate func(ctx context.Context, out []api.SessionRow, rows []domain.Session) error
}

// List is sessions_list: the sessions g lets its viewer see, newest
// first, paged and filtered as p asks, shown through v.
func (r Reader) List(ctx context.Context, g Guard, v ListView, p api.ListRequest) (api.ListResult, error) {
	kinds, err := NormalizeKinds(p.Kinds)
	if err != nil {
		return api.ListResult{}, err
	}
	p.Kinds = kinds
	// Every surface (WS sessions.list, HTTP ?search=, CLI --search) lists
	// through here, so the bound is checked once for all of them.
	if err := api.ListSearchChars.CheckChars(p.Search); err != nil {
		return api.ListResult{}, err
	}
	if p.Limit <= 0 {
		p.Limit = int(api.ListLimit.Default)
	}
	if int64(p.Limit) > api.ListLimit.Max && !v.Operator {
		p.Limit = int(api.ListLimit.Max)
	}
	if int64(p.Limit) > api.SessionsListLimit.Max {
		p.Limit = int(api.SessionsListLimit.Max)
	}
	if int64(p.MessageLimit) > api.ListMessageLimit.Max {
		p.MessageLimit = int(api.ListMessageLimit.Max)
	}
	offset, err := api.ListOffset.Apply(int64(p.Offset))
	if err != nil {
		return api.ListResult{}, err
	}
	p.Offset = int(offset)
	// One row past the page tells whether another page follows.
	want := p.Limit + 1
	now := r.Now().UnixMilli()
	var rows []domain.Session
	if g.SelfOnly() {
		s, err := r.Store.GetSession(ctx, g.Key())
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return api.ListResult{}, err
		}
		if err == nil && p.Offset == 0 && matchesList(s, p, now) {
			rows = append(rows, s)
		}
	} else {
		q := domain.SessionQuery{Kinds: p.Kinds, Limit: want, Search: p.Search, Label: p.Label,
			SpawnedBy: p.SpawnedBy, IncludeArchived: p.IncludeArchived, ExcludeCronRuns: true}
		if p.AgentID != "" {
			q.AgentIDs = []string{p.AgentID}
		}
		if p.ActiveMinutes > 0 {
			q.UpdatedSince = now - int64(p.ActiveMinutes)*60_000
		}
		scoped, filter := g.Scope(q)
		if p.AgentID != "" && scoped.AgentIDs != nil && !slices.Contains(scoped.AgentIDs, p.AgentID) {
			return api.ListResult{Sessions: []api.SessionRow{}}, nil
		}
		if p.AgentID != "" {
			scoped.AgentIDs = []string{p.AgentID}
		}
		// Unfiltered scopes page in SQL; a filtered one skips visible rows
		// here, so an offset never counts a row the requester cannot see.
		skip := p.Offset
		if !filter {
			scoped.Offset, skip = p.Offset, 0
		}
		for {
			page, err := r.Store.ListSessions(ctx, scoped)
			if err != nil {
				return api.ListResult{}, err
			}
			if !filter {
				// Paged in SQL: the page is the listing (no copy of 200
				// sessions, a sixth of what a listing allocated).
				rows = page
				break
			}
			if rows == nil {
				rows = make([]domain.Session, 0, want)
			}
			for _, s := range page {
				if !g.AllowRow(ctx, s) {
					continue
				}
				if skip > 0 {
					skip--
					continue
				}
				rows = append(rows, s)
			}
			if len(rows) >= want || len(page) < scoped.Limit {
				break
			}
			last := page[len(page)-1]
			scoped.AfterUpdatedAt, scoped.AfterKey = last.UpdatedAt, last.Key
		}
	}
	hasMore := len(rows) > p.Limit
	if hasMore {
		rows = rows[:p.Limit]
	}
	out := api.ListResult{Count: len(rows), Sessions: make([]api.SessionRow, len(rows)), HasMore: hasMore}
	if hasMore {
		next := p.Offset + len(rows)
		out.NextOffset = &next
	}
	for i, s := range rows {
		out.Sessions[i] = v.Row(s)
	}
	if v.Decorate != nil {
		if err := v.Decorate(ctx, out.Sessions, rows); err != nil {
			return api.ListResult{}, err
		}
	}
	if p.MessageLimit > 0 {
		if err := attachMessages(ctx, r.Store, out.Sessions, rows, p.MessageLimit); err != nil {
			return api.ListResult{}, err
		}
		if !v.Operator {
			if err := maskListMessages(out.Sessions); err != nil {
				return api.ListResult{}, err
			}
		}
	}
	if p.IncludeLastMessage || p.IncludeDerivedTitles {
		if err := r.AttachTitles(ctx, out.Sessions, rows, p.IncludeLastMessage, p.IncludeDerivedTitles); err != nil {
			return api.ListResult{}, err
		}
	}
	return out, nil
}

// matchesList applies list filters to one row in Go (self-only listing).
func matchesList(s domain.Session, p api.ListRequest, now int64) bool {
	if s.ArchivedAt > 0 && !p.IncludeArchived {
		return false
	}
	if len(p.Kinds) > 0 && !slices.Contains(p.Kinds, s.Kind) {
		return false
	}
	if p.ActiveMinutes > 0 && s.UpdatedAt < now-int64(p.ActiveMinutes)*60_000 {
		return false
	}
	return true
}

// attachMessages adds the last n non-tool messages of each row, each as
// the store holds it (api.ListMessage). A store that reads many tails in
// one query without decoding them (domain.TailsJSONReader) does so: a
// query per row was most of a messageLimit listing's CPU, and decoding
// each message only to encode it again a fifth of the rest. Otherwise a
// few workers each take rows in turn: one goroutine per row would grow a
// fresh stack through SQLite's deep call chain for every row.
func attachMessages(ctx context.Context, st domain.Store, out []api.SessionRow, rows []domain.Session, n int) error {
	exclude := []string{domain.RoleToolResult, "tool"}
	if tr, ok := st.(domain.TailsJSONReader); ok {
		return attachTails(ctx, tr, out, rows, n, exclude)
	}
	errs := make([]error, len(rows))
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1) - 1); i < len(rows); i = int(next.Add(1) - 1) {
			msgs, err := st.ReadMessages(ctx, rows[i].Key, domain.MessageQuery{SessionID: rows[i].SessionID, Limit: n,
				ExcludeRoles: exclude})
			if err != nil {
				errs[i] = err
				continue
			}
			out[i].Messages = make([]api.ListMessage, len(msgs))
			for j, m := range msgs {
				if out[i].Messages[j], err = api.ListMessageOf(m); err != nil {
					errs[i] = err
					break
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range min(AttachWorkers, len(rows)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return errors.Join(errs...)
}

// attachTails reads the tails through tr, in up to tailChunks queries
// at once: one query per listing leaves the second core idle, and the
// listing's latency is its CPU time.
func attachTails(ctx context.Context, tr domain.TailsJSONReader, out []api.SessionRow, rows []domain.Session, n int, exclude []string) error {
	gens := make([]domain.Generation, len(rows))
	for i, s := range rows {
		gens[i] = domain.Generation{Key: s.Key, SessionID: s.SessionID}
	}
	chunks := min(tailChunks, (len(gens)+tailChunkMin-1)/tailChunkMin)
	if chunks < 1 {
		return nil
	}
	size := (len(gens) + chunks - 1) / chunks
	errs := make([]error, chunks)
	read := func(c int) {
		lo, hi := c*size, min((c+1)*size, len(gens))
		tails, err := tr.ReadTailsJSON(ctx, gens[lo:hi], n, exclude)
		if err != nil {
			errs[c] = err
			return
		}
		errs[c] = listMessages(out[lo:hi], gens[lo:hi], tails)
	}
	var wg sync.WaitGroup
	for c := 1; c < chunks; c++ {
		wg.Go(func() { read(c) })
	}
	read(0)
	wg.Wait()
	return errors.Join(errs...)
}

// listMessages sets each row's messages from its tail, all of them in one
// array; each refers to its JSON where the store read it.
func listMessages(out []api.SessionRow, gens []domain.Generation, tails [][]domain.StoredMessage) error {
	count := 0
	for _, t := range tails {
		count += len(t)
	}
	all := make([]api.ListMessage, count)
	for i, t := range tails {
		if len(t) == 0 {
			continue
		}
		msgs := all[:len(t):len(t)]
		all = all[len(t):]
		for j, m := range t {
			var err error
			if msgs[j], err = api.ListMessageJSON(m.ID, m.JSON); err != nil {
				return fmt.Errorf("sessions_list messages of %s: %w", gens[i].Key, err)
			}
		}
		out[i].Messages = msgs
	}
	return nil
}

// tailChunks is how many tail queries one listing runs at once, each for
// at least tailChunkMin rows (fewer are not worth a second goroutine).
const (
	tailChunks   = 2
	tailChunkMin = 50
)

// maskListMessages sanitizes the messageLimit messages of rows as
// sessions_history does for a requester without operator rights: secrets
// masked, long texts cut, bulky fields dropped (what history, search and
// fork hand a model must not come raw through a listing).
func maskListMessages(rows []api.SessionRow) error {
	for i := range rows {
		lms := rows[i].Messages
		if len(lms) == 0 {
			continue
		}
		msgs := make([]domain.Message, len(lms))
		for j, lm := range lms {
			m, err := lm.Message()
			if err != nil {
				return err
			}
			msgs[j] = m
		}
		clean := redact.History(msgs, redact.HistoryOptions{MaxBytes: math.MaxInt32}).Messages
		if len(clean) != len(msgs) {
			return fmt.Errorf("sessions_list messages of %s: sanitizing kept %d of %d", rows[i].Key, len(clean), len(msgs))
		}
		out := make([]api.ListMessage, len(clean))
		for j, m := range clean {
			m.ID = msgs[j].ID
			var err error
			if out[j], err = api.ListMessageOf(m); err != nil {
				return err
			}
		}
		rows[i].Messages = out
	}
	return nil
}
