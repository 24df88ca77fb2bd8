package send

import (
	"context"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessions"
)

// sendMode validates sessions_send's mode ("" is followup). A notify
// starts no run, so there is no run to find again under an idempotency
// key: the key is refused rather than silently not deduplicating.
func sendMode(p api.SendRequest) (string, error) {
	switch p.Mode {
	case "", api.SendFollowup:
		return api.SendFollowup, nil
	case api.SendSteer:
		return api.SendSteer, nil
	case api.SendNotify:
		if p.IdempotencyKey != "" {
			return "", domain.Invalid("idempotencyKey is not supported with mode %q (a notify starts no run to find again)", api.SendNotify)
		}
		return api.SendNotify, nil
	}
	return "", domain.Invalid("mode must be one of %s (got %q)", strings.Join(api.SendModes(), "|"), p.Mode)
}

// notify writes an inter-session message into target's transcript without
// starting a run: no model call, no reply-back loop, no announce. It
// answers {status:"ok", messageId} once the message is committed.
func (sd *Sender) notify(ctx context.Context, req Caller, target, display, message string) (api.SendResult, error) {
	requesterKey := req.Key
	requesterChannel := ""
	if s, err := sd.store.GetSession(ctx, requesterKey); err == nil {
		requesterChannel = sessions.ChannelOf(s)
	}
	msg := domain.Message{
		Role:    domain.RoleUser,
		Content: domain.TextContent(message),
		Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, SourceSessionKey: requesterKey,
			SourceChannel: requesterChannel, SourceTool: api.ToolSessionsSend, SourceRunID: req.RunID},
	}
	created := false
	stored, err := sd.rt.Inject(ctx, target, []domain.Message{msg}, func(tx domain.Tx) (domain.Session, error) {
		s, fresh, err := sd.sessions.Ensure(tx, target, nil)
		created = fresh
		return s, err
	})
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeUnavailable {
			return api.SendResult{}, err
		}
		return api.SendResult{Status: statusOf(err), Error: domain.ErrorMessage(err), SessionKey: display}, nil
	}
	if created {
		sd.publishSession(target, "created")
	}
	sd.log.Info("sessions_send notify", "from", requesterKey, "to", target, "message", stored[0].ID)
	return api.SendResult{Status: "ok", MessageID: stored[0].ID, SessionKey: display}, nil
}
