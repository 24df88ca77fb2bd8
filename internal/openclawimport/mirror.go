package openclawimport

import (
	"fmt"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// mirrorWriter hands committed messages to Options.Mirror on a goroutine
// of its own, so the mirror's file work (creating a transcript file costs
// more than storing its messages) overlaps with parsing and storing
// instead of holding up the writer. One goroutine: the file creations
// queue on the directory in the kernel anyway, and appends stay in order.
type mirrorWriter struct {
	mirror   Mirror
	queue    chan mirrorJob
	done     sync.WaitGroup
	warnings []string // written by the goroutine, read after done
}

type mirrorJob struct {
	key, agentID, sessionID string
	msgs                    []domain.Message
}

// mirrorQueue is how many sessions the mirror may lag behind the store.
const mirrorQueue = 512

func startMirror(m Mirror) *mirrorWriter {
	w := &mirrorWriter{mirror: m, queue: make(chan mirrorJob, mirrorQueue)}
	w.done.Go(func() {
		for j := range w.queue {
			if err := w.mirror.Append(j.agentID, j.sessionID, j.msgs); err != nil {
				w.warnings = append(w.warnings, fmt.Sprintf("session %s: mirror: %v", j.key, err))
			}
		}
	})
	return w
}

// append queues the stored messages of one session.
func (w *mirrorWriter) append(key, agentID, sessionID string, msgs []domain.Message) {
	w.queue <- mirrorJob{key: key, agentID: agentID, sessionID: sessionID, msgs: msgs}
}

// finish waits for every queued append and returns the warnings.
func (w *mirrorWriter) finish() []string {
	close(w.queue)
	w.done.Wait()
	return w.warnings
}
