package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Outbox kinds of push notifications. A push config is kept as an outbox
// row of kind PushConfigKind (status delivered: it is never sent itself),
// keyed by task and config id, its run_id the task's: it is durable, on
// every store backend and shared by the replicas of one, and a task's
// configs are one indexed read. Each update of a task is an outbox item
// of kind PushKind per config, keyed by config, task and update, so an
// update found twice (its event, and the sweep after a restart) is
// enqueued once; the outbox worker delivers it with PushDeliverer.
const (
	PushConfigKind domain.OutboxKind = "a2a_push_config"
	PushKind       domain.OutboxKind = "a2a_push"
)

// PushStore is what push notifications need of the store.
type PushStore interface {
	GetRun(ctx context.Context, id string) (domain.Run, error)
	ListRuns(ctx context.Context, q domain.RunQuery) ([]domain.Run, error)
	ListOutbox(ctx context.Context, q domain.OutboxQuery) ([]domain.OutboxItem, error)
	Update(ctx context.Context, fn func(domain.Tx) error) error
}

// pushConfig is a push config as stored.
type pushConfig struct {
	ID     string `json:"id"`
	TaskID string `json:"taskId"`
	URL    string `json:"url,omitempty"`
	Token  string `json:"token,omitempty"`
	Scheme string `json:"scheme,omitempty"`
	// Credentials go with Scheme in an Authorization header.
	Credentials string `json:"credentials,omitempty"`
	// Owner is the principal that made it (ownerID): only it reads,
	// lists or deletes it.
	Owner string `json:"owner"`
	// Gen is the protocol generation it was made in ("1.0" or "0.3"):
	// its notifications are in that generation's shape.
	Gen     string `json:"gen"`
	Deleted bool   `json:"deleted,omitempty"`
	// row is the outbox row's id and key (not stored in the payload).
	row int64
	key string
}

// pushConfigKey is the outbox key of a task's config.
func pushConfigKey(taskID, id string) string { return "a2a-push-config:" + taskID + ":" + id }

// maxPushConfigs bounds the configs of one task.
const maxPushConfigs = 10

// pushConfigs are the live configs of a task (every owner's).
func pushConfigs(ctx context.Context, st PushStore, taskID string) ([]pushConfig, error) {
	rows, err := st.ListOutbox(ctx, domain.OutboxQuery{RunID: taskID})
	if err != nil {
		return nil, fmt.Errorf("push configs of task %s: %w", taskID, err)
	}
	var out []pushConfig
	for _, it := range rows {
		if it.Kind != PushConfigKind {
			continue
		}
		var c pushConfig
		if json.Unmarshal(it.Payload, &c) != nil || c.Deleted {
			continue
		}
		c.row, c.key = it.ID, it.IdempotencyKey
		out = append(out, c)
	}
	return out, nil
}

// savePushConfig stores c for the task of run: a new config, or the
// owner's config of the same id replaced (set). Another owner's config of
// that id is a conflict.
func savePushConfig(ctx context.Context, st PushStore, run domain.Run, c pushConfig, now int64) (pushConfig, error) {
	existing, err := pushConfigs(ctx, st, run.ID)
	if err != nil {
		return c, err
	}
	replacing := false
	for _, e := range existing {
		if e.ID == c.ID {
			if e.Owner != c.Owner {
				return c, domain.Errorf(domain.CodeConflict, "push config id %q is taken on task %s: choose another id", clip(c.ID), clip(run.ID))
			}
			replacing = true
		}
	}
	if !replacing && len(existing) >= maxPushConfigs {
		return c, domain.Invalid("task %s has %d push configs, the most it may have: delete one first", clip(run.ID), maxPushConfigs)
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return c, err
	}
	c.key = pushConfigKey(run.ID, c.ID)
	row := domain.OutboxItem{IdempotencyKey: c.key, Kind: PushConfigKind, SessionKey: run.SessionKey, RunID: run.ID,
		Payload: payload, Status: domain.OutboxDelivered, CreatedAt: now, DeliveredAt: now}
	err = st.Update(ctx, func(tx domain.Tx) error {
		stored, created, err := tx.EnqueueOutbox(row)
		if err != nil {
			return err
		}
		c.row = stored.ID
		if created {
			return nil
		}
		// A deleted config's row, or the owner's config replaced.
		var old pushConfig
		if json.Unmarshal(stored.Payload, &old) == nil && !old.Deleted && old.Owner != c.Owner {
			return domain.Errorf(domain.CodeConflict, "push config id %q is taken on task %s: choose another id", clip(c.ID), clip(run.ID))
		}
		row.ID, row.CreatedAt = stored.ID, stored.CreatedAt
		return tx.PutOutbox(row)
	})
	return c, err
}

// deletePushConfig deletes the owner's config: its row keeps the key
// (and the ids of the updates already sent) and loses the URL and the
// secrets.
func deletePushConfig(ctx context.Context, st PushStore, run domain.Run, c pushConfig, now int64) error {
	payload, err := json.Marshal(pushConfig{ID: c.ID, TaskID: c.TaskID, Owner: c.Owner, Gen: c.Gen, Deleted: true})
	if err != nil {
		return err
	}
	return st.Update(ctx, func(tx domain.Tx) error {
		return tx.PutOutbox(domain.OutboxItem{ID: c.row, IdempotencyKey: c.key, Kind: PushConfigKind, SessionKey: run.SessionKey,
			RunID: run.ID, Payload: payload, Status: domain.OutboxDelivered, CreatedAt: now, DeliveredAt: now})
	})
}

// pushConfigByKey finds the live config a queued update is for (ok
// false: deleted since).
func pushConfigByKey(ctx context.Context, st PushStore, taskID, key string) (pushConfig, bool, error) {
	cs, err := pushConfigs(ctx, st, taskID)
	if err != nil {
		return pushConfig{}, false, err
	}
	for _, c := range cs {
		if c.key == key {
			return c, true, nil
		}
	}
	return pushConfig{}, false, nil
}

// ownerID names the principal a push config belongs to: the token's name
// and the session it acts as.
func ownerID(name, requester string) string {
	return name + "\x00" + strings.ToLower(strings.TrimSpace(requester))
}
