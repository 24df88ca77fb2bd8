package runtime

import (
	"log/slog"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// mirrorWriter appends finished runs' messages to the JSONL mirror from
// one background goroutine, so file I/O stays off the run's path. Jobs are
// written in order; when the queue is full the caller writes itself (no
// message is dropped). Close drains the queue.
type mirrorWriter struct {
	m    Mirror
	log  *slog.Logger
	jobs chan mirrorJob
	wg   sync.WaitGroup
	mu   sync.Mutex
	done bool
}

type mirrorJob struct {
	agentID, sessionID string
	msgs               []domain.Message
}

func newMirrorWriter(m Mirror, log *slog.Logger) *mirrorWriter {
	w := &mirrorWriter{m: m, log: log, jobs: make(chan mirrorJob, 4096)}
	w.wg.Add(1)
	go w.loop()
	return w
}

func (w *mirrorWriter) loop() {
	defer w.wg.Done()
	for j := range w.jobs {
		w.write(j)
	}
}

func (w *mirrorWriter) write(j mirrorJob) {
	if err := w.m.Append(j.agentID, j.sessionID, j.msgs); err != nil {
		w.log.Warn("transcript mirror append failed", "agent", j.agentID, "sessionId", j.sessionID, "err", err)
	}
}

// append queues a job, or writes it at once when the queue is full or
// closed. Per-session order holds because one session's runs are serial.
func (w *mirrorWriter) append(agentID, sessionID string, msgs []domain.Message) {
	j := mirrorJob{agentID, sessionID, msgs}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		w.write(j)
		return
	}
	select {
	case w.jobs <- j:
	default:
		w.write(j)
	}
}

// close stops accepting jobs and waits until the queued ones are written.
func (w *mirrorWriter) close() {
	w.mu.Lock()
	if !w.done {
		w.done = true
		close(w.jobs)
	}
	w.mu.Unlock()
	w.wg.Wait()
	// The mirror may keep files open for appends; release them.
	if c, ok := w.m.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil {
			w.log.Warn("transcript mirror close", "err", err)
		}
	}
}
