package openclawimport

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

// Layouts of an exported state directory.
const (
	// LayoutJSON is OpenClaw's file layout up to 2026.6:
	// agents/<id>/sessions/sessions.json and one <sessionId>.jsonl
	// transcript per session. OpenClaw 2026.7 and later migrate it into
	// their agent databases.
	LayoutJSON = "json"
	// LayoutSQLite is OpenClaw's layout since 2026.8: session rows and
	// transcripts in agents/<id>/agent/openclaw-agent.sqlite.
	LayoutSQLite = "sqlite"
)

// Layouts lists the layouts Export writes.
var Layouts = []string{LayoutJSON, LayoutSQLite}

// ExportOptions tune Export.
type ExportOptions struct {
	// Layout is LayoutJSON or LayoutSQLite (default LayoutSQLite, what
	// today's OpenClaw reads).
	Layout string
	// Progress, when set, is called after each agent's sessions with the
	// number of sessions written so far and the total.
	Progress func(done, total int)
	// Now stamps what the layout needs a time for and the store has
	// none; nil means time.Now.
	Now func() time.Time
}

// ExportSummary says what Export wrote.
type ExportSummary struct {
	Layout   string `json:"layout"`
	Agents   int    `json:"agents"`
	Sessions int    `json:"sessions"`
	Messages int    `json:"messages"`
}

// ErrTargetNotEmpty is wrapped by Export's error when the target
// directory already holds files.
var ErrTargetNotEmpty = errors.New("target directory is not empty")

// Export writes every session of st (archived ones too) and the messages
// of its current transcript into dir as an OpenClaw state directory.
//
// dir must not exist or be empty. Everything is written into a sibling
// directory first and renamed into place at the end, so a failed export
// leaves no partial state where OpenClaw would find it.
func Export(ctx context.Context, st domain.Store, dir string, opts ExportOptions) (ExportSummary, error) {
	if opts.Layout == "" {
		opts.Layout = LayoutSQLite
	}
	if !slices.Contains(Layouts, opts.Layout) {
		return ExportSummary{}, fmt.Errorf("layout %q: want one of %v", opts.Layout, Layouts)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	sum := ExportSummary{Layout: opts.Layout}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return sum, err
	}
	if err := checkTarget(abs); err != nil {
		return sum, err
	}
	rows, err := st.ListSessions(ctx, domain.SessionQuery{IncludeArchived: true})
	if err != nil {
		return sum, fmt.Errorf("list sessions: %w", err)
	}
	byAgent := map[string][]domain.Session{}
	for _, r := range rows {
		byAgent[r.AgentID] = append(byAgent[r.AgentID], r)
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	// Largest first: what of an agent's database is written after the
	// next agent started overlaps that agent, but the last one's does
	// not, and the smallest agent has the least of it.
	slices.SortFunc(agents, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(byAgent[b]), len(byAgent[a])), strings.Compare(a, b))
	})

	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".export-")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	w := exportWriter{ctx: ctx, st: st, root: tmp, final: abs, opts: opts, total: len(rows), sum: &sum,
		readers: exportReaders(runtime.GOMAXPROCS(0))}
	if err := w.agents(agents, byAgent); err != nil {
		return sum, err
	}
	if err := os.Chmod(tmp, 0o700); err != nil {
		return sum, err
	}
	// An empty target was checked above; it goes so the rename can land.
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return sum, err
	}
	if err := os.Rename(tmp, abs); err != nil {
		return sum, err
	}
	return sum, nil
}

// agents writes each agent's sessions in turn. An agent's finish (see
// agentSQLite) runs while the next agent is written, one at a time; it
// returns after every finish returned.
func (w *exportWriter) agents(agents []string, byAgent map[string][]domain.Session) error {
	var pending chan error // the previous agent's finish, when running
	wait := func() error {
		if pending == nil {
			return nil
		}
		err := <-pending
		pending = nil
		return err
	}
	for _, a := range agents {
		var finish func() error
		var err error
		switch w.opts.Layout {
		case LayoutJSON:
			err = w.agentJSON(a, byAgent[a])
		case LayoutSQLite:
			finish, err = w.agentSQLite(a, byAgent[a])
		}
		err = errors.Join(err, wait())
		if err != nil {
			if finish != nil {
				finish() // only to close and clean up: the export failed
			}
			return err
		}
		w.sum.Agents++
		if finish != nil {
			pending = make(chan error, 1)
			go func(done chan<- error) { done <- finish() }(pending)
		}
	}
	return wait()
}

// checkTarget refuses a target that exists and is not an empty directory.
func checkTarget(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Dir(dir)); err != nil {
			return fmt.Errorf("parent of %s: %w", dir, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(des) > 0 {
		return fmt.Errorf("%s: %w (it has %d entries, for example %s); export writes a new OpenClaw state directory only", dir, ErrTargetNotEmpty, len(des), des[0].Name())
	}
	return nil
}

// exportWriter holds what writing one agent after another shares.
type exportWriter struct {
	ctx         context.Context
	st          domain.Store
	root, final string // the directory being written, where it will be
	opts        ExportOptions
	done, total int
	sum         *ExportSummary
	readers     int // goroutines reading and encoding sessions
}

func (w *exportWriter) progress() {
	if w.opts.Progress != nil {
		w.opts.Progress(w.done, w.total)
	}
}

// messages reads the current transcript of s, as the store holds it
// when the store can say it without decoding it.
func (w *exportWriter) messages(ctx context.Context, s *domain.Session) ([]domain.TranscriptMessage, error) {
	if tr, ok := w.st.(domain.TranscriptJSONReader); ok {
		msgs, err := tr.ReadTranscriptJSON(ctx, s.Key, s.SessionID)
		if err != nil {
			return nil, fmt.Errorf("read messages of %s: %w", s.Key, err)
		}
		return msgs, nil
	}
	msgs, err := w.st.ReadMessages(ctx, s.Key, domain.MessageQuery{SessionID: s.SessionID})
	if err != nil {
		return nil, fmt.Errorf("read messages of %s: %w", s.Key, err)
	}
	out := make([]domain.TranscriptMessage, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		js, err := rowcodec.AppendMessageJSON(nil, m)
		if err != nil {
			return nil, fmt.Errorf("session %s: message %s: %w", s.Key, m.ID, err)
		}
		out[i] = domain.TranscriptMessage{ID: m.ID, ParentID: m.ParentID, Timestamp: m.Timestamp, JSON: js}
	}
	return out, nil
}

// exported is one session made ready for writing: its messages and its
// transcript encoded as JSONL.
type exported struct {
	s    *domain.Session
	msgs []domain.TranscriptMessage
	data []byte
}

// exportAhead is how many sessions the readers may have taken ahead of
// the writer.
const exportAhead = 64

// exportReaders is how many goroutines read and encode sessions when
// procs may run Go code at once: reading a transcript from the store and
// encoding it cost more than writing it to a file, so one reader alone
// left the JSON layout's writer waiting.
func exportReaders(procs int) int { return max(procs, 1) }

// each reads and encodes sessions on reader goroutines of their own and
// hands them to write in order, so reading the store and encoding the
// transcripts overlap with writing the files or the database. It returns
// the first error in session order, after every reader stopped.
func (w *exportWriter) each(sessions []domain.Session, encode func(s *domain.Session, msgs []domain.TranscriptMessage) ([]byte, error), write func(x *exported) error) error {
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	type job struct {
		s   *domain.Session
		out chan<- readResult
	}
	// order holds each session's result channel in session order: the
	// writer takes them one by one, so at most exportAhead sessions are
	// read and not yet written.
	order := make(chan chan readResult, exportAhead)
	jobs := make(chan job)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(order)
		defer close(jobs)
		for i := range sessions {
			out := make(chan readResult, 1)
			select {
			case order <- out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{s: &sessions[i], out: out}:
			case <-ctx.Done():
				return
			}
		}
	})
	for range min(max(w.readers, 1), len(sessions)) {
		wg.Go(func() {
			for j := range jobs {
				// out has room for its one result: a reader never waits
				// for the writer.
				j.out <- w.read(ctx, j.s, encode)
			}
		})
	}
	err := func() error {
		for out := range order {
			var r readResult
			select {
			case r = <-out:
			case <-ctx.Done():
				return ctx.Err()
			}
			if r.err != nil {
				return r.err
			}
			if err := write(&r.x); err != nil {
				return err
			}
			w.sum.Sessions++
			w.sum.Messages += len(r.x.msgs)
			w.done++
			if w.done%DefaultBatchSize == 0 {
				w.progress()
			}
		}
		return nil
	}()
	cancel()
	wg.Wait()
	return err
}

// readResult is a session read and encoded, or why it could not be.
type readResult struct {
	x   exported
	err error
}

// read reads and encodes one session for each.
func (w *exportWriter) read(ctx context.Context, s *domain.Session, encode func(s *domain.Session, msgs []domain.TranscriptMessage) ([]byte, error)) (r readResult) {
	if r.err = ctx.Err(); r.err != nil {
		return r
	}
	msgs, err := w.messages(ctx, s)
	if err != nil {
		r.err = err
		return r
	}
	data, err := encode(s, msgs)
	if err != nil {
		r.err = fmt.Errorf("session %s: %w", s.Key, err)
		return r
	}
	r.x = exported{s: s, msgs: msgs, data: data}
	return r
}

// exportEntry is the session entry OpenClaw keeps for s: the fields the
// import reads, written back.
func exportEntry(s *domain.Session) entry {
	e := entry{
		SessionID: s.SessionID, UpdatedAt: flexInt(s.UpdatedAt),
		Channel: s.Channel, LastChannel: s.LastChannel, LastTo: flexString(s.LastTo), LastAccountID: flexString(s.LastAccount),
		ChatType: s.ChatType, Label: s.Label, DisplayName: s.DisplayName,
		Model: s.Model, ModelProvider: s.ModelProvider,
		InputTokens: flexInt(s.InputTokens), OutputTokens: flexInt(s.OutputTokens),
		TotalTokens: flexInt(s.TotalTokens), ContextTokens: flexInt(s.ContextTokens),
		EstimatedCostUSD: flexFloat(s.EstimatedCostUSD),
		SpawnedBy:        s.SpawnedBy, SpawnDepth: flexInt(s.SpawnDepth), ForkedFromParent: s.ForkedFromParent,
		ThinkingLevel: s.ThinkingLevel, VerboseLevel: s.VerboseLevel, SendPolicy: s.SendPolicy,
		SystemSent: s.SystemSent, AbortedLastRun: s.AbortedLastRun,
		Status: s.Status, StartedAt: flexInt(s.StartedAt), EndedAt: flexInt(s.EndedAt),
	}
	if d := s.Delivery; d != nil {
		e.DeliveryContext = &deliveryContext{Channel: d.Channel, To: flexString(d.To), AccountID: flexString(d.AccountID), ThreadID: flexString(d.ThreadID)}
	}
	if o := s.Origin; o != nil {
		e.Origin = &origin{Provider: o.Provider, AccountID: flexString(o.AccountID)}
	}
	return e
}

// marshalEntry encodes e without HTML escaping, as OpenClaw writes JSON.
func marshalEntry(e *entry) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", e.SessionID, err)
	}
	return b, nil
}
