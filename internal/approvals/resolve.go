package approvals

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Get is approval.get: one approval by its full id.
func (ap *Approver) Get(ctx context.Context, r api.ApprovalGetRequest) (api.ApprovalGetResult, error) {
	id := strings.TrimSpace(r.ID)
	if id == "" {
		return api.ApprovalGetResult{}, domain.Invalid("id is required")
	}
	reader, ok := ap.o.Store.(domain.ApprovalReader)
	if !ok {
		return api.ApprovalGetResult{}, domain.Errorf(domain.CodeNotFound, "approval %q not found", id)
	}
	a, err := reader.GetApproval(ctx, id)
	if errors.Is(err, domain.ErrNotFound) {
		return api.ApprovalGetResult{}, domain.Errorf(domain.CodeNotFound, "approval %q not found", id)
	}
	if err != nil {
		return api.ApprovalGetResult{}, err
	}
	return api.ApprovalGetResult{Approval: Snapshot(a)}, nil
}

// Resolve is approval.resolve by the device named device: the first
// decision on a pending approval is recorded; later ones answer
// applied=false with the approval as it stands.
func (ap *Approver) Resolve(ctx context.Context, device string, r api.ApprovalResolveRequest) (api.ApprovalResolveResult, error) {
	id := strings.TrimSpace(r.ID)
	if id == "" {
		return api.ApprovalResolveResult{}, domain.Invalid("id is required")
	}
	if r.Kind != api.ApprovalKindPlugin {
		return api.ApprovalResolveResult{}, domain.Invalid("kind %q: switchboard's approvals are of kind %q", r.Kind, api.ApprovalKindPlugin)
	}
	status := domain.ApprovalAllowed
	switch r.Decision {
	case api.DecisionAllowOnce, api.DecisionAllowAlways:
	case api.DecisionDeny:
		status = domain.ApprovalDenied
	default:
		return api.ApprovalResolveResult{}, domain.Invalid("decision %q: use %s, %s or %s", r.Decision, api.DecisionAllowOnce, api.DecisionAllowAlways, api.DecisionDeny)
	}
	if r.GrantExpiresInDays != nil && (*r.GrantExpiresInDays < 1 || *r.GrantExpiresInDays > 3650) {
		return api.ApprovalResolveResult{}, domain.Invalid("grantExpiresInDays %d must be between 1 and 3650", *r.GrantExpiresInDays)
	}
	resolver := "device:" + device
	if rv := r.Reviewer; rv != nil {
		resolver = "channel:" + rv.Channel + "/" + rv.SenderID
	}
	a, applied, err := ap.decide(ctx, id, status, r.Decision, resolver)
	if err != nil {
		return api.ApprovalResolveResult{}, err
	}
	return api.ApprovalResolveResult{Applied: applied, Approval: Snapshot(a)}, nil
}

// Command is `/approve <id> [always]` and `/deny <id>` in a chat: an
// owner (session.owners, as for /send) decides an approval from the
// channel; the decision names the channel and the sender as resolver.
// handled is false for any other message.
func (ap *Approver) Command(ctx context.Context, key, channel, sender, msg string) (_ api.ChatResult, handled bool, _ error) {
	fields := strings.Fields(strings.TrimSpace(msg))
	if len(fields) == 0 {
		return api.ChatResult{}, false, nil
	}
	name := strings.ToLower(fields[0])
	if name != "/approve" && name != "/deny" {
		return api.ChatResult{}, false, nil
	}
	res := api.ChatResult{SessionKey: key, Command: strings.TrimPrefix(name, "/")}
	if !ap.o.IsOwner(channel, sender) {
		return api.ChatResult{}, true, domain.Errorf(domain.CodeForbidden, "%s is only available to owners", name)
	}
	status, decision := domain.ApprovalDenied, api.DecisionDeny
	usage := "usage: /deny <approval id>"
	if name == "/approve" {
		status, decision = domain.ApprovalAllowed, api.DecisionAllowOnce
		usage = "usage: /approve <approval id> [always]"
		if len(fields) == 3 && strings.EqualFold(fields[2], "always") {
			decision = api.DecisionAllowAlways
			fields = fields[:2]
		}
	}
	if len(fields) != 2 {
		return api.ChatResult{}, true, domain.Invalid("%s", usage)
	}
	id := fields[1]
	a, applied, err := ap.decide(ctx, id, status, decision, "channel:"+channel+"/"+sender)
	if err != nil {
		return api.ChatResult{}, true, err
	}
	if !applied {
		res.Reply = fmt.Sprintf("Approval %s was already %s; nothing changed.", id, a.Status)
		return res, true, nil
	}
	res.Reply = fmt.Sprintf("✅ Approval %s: %s (%s).", id, a.Status, decision)
	return res, true, nil
}

// Pending is approval.list (switchboard's): the pending approvals,
// newest first.
func (ap *Approver) Pending(ctx context.Context) (api.ApprovalListResult, error) {
	items, _, err := ap.list(ctx, []domain.ApprovalStatus{domain.ApprovalPending}, 0, 1000)
	return api.ApprovalListResult{Items: items}, err
}

// History is approval.history: decided approvals, newest first, a page
// at a time (the cursor is where the next page starts).
func (ap *Approver) History(ctx context.Context, r api.ApprovalHistoryRequest) (api.ApprovalHistoryResult, error) {
	limit := api.ApprovalHistoryLimit.Default
	if r.Limit != nil {
		n, err := api.ApprovalHistoryLimit.Apply(int64(*r.Limit))
		if err != nil {
			return api.ApprovalHistoryResult{}, err
		}
		limit = n
	}
	offset := 0
	if r.Cursor != "" {
		n, err := strconv.Atoi(r.Cursor)
		if err != nil || n < 0 {
			return api.ApprovalHistoryResult{}, domain.Invalid("cursor %q is not a cursor approval.history returned", r.Cursor)
		}
		offset = n
	}
	out := api.ApprovalHistoryResult{Items: []api.ApprovalSnapshot{}}
	if r.Kind != "" && r.Kind != api.ApprovalKindPlugin {
		return out, nil
	}
	items, more, err := ap.list(ctx, []domain.ApprovalStatus{domain.ApprovalAllowed, domain.ApprovalDenied,
		domain.ApprovalExpired, domain.ApprovalCancelled}, offset, int(limit))
	if err != nil {
		return out, err
	}
	out.Items = items
	if more {
		out.NextCursor = strconv.Itoa(offset + len(items))
	}
	return out, nil
}

// list reads a page of approvals and whether more follow.
func (ap *Approver) list(ctx context.Context, statuses []domain.ApprovalStatus, offset, limit int) ([]api.ApprovalSnapshot, bool, error) {
	out := []api.ApprovalSnapshot{}
	reader, ok := ap.o.Store.(domain.ApprovalReader)
	if !ok {
		return out, false, nil
	}
	rows, err := reader.ListApprovals(ctx, domain.ApprovalQuery{Statuses: statuses, Offset: offset, Limit: limit + 1})
	if err != nil {
		return out, false, err
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	for _, a := range rows {
		out = append(out, Snapshot(a))
	}
	return out, more, nil
}
