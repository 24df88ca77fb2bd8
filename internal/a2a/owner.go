package a2a

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
)

// owner is who an A2A conversation belongs to. contextIds are chosen by
// clients, so two callers naming the same one must not share a session:
// each caller's contexts live under its own tag in the session key
// (agent:<id>:a2a:<tag>:<contextId>), and a caller with a requester
// session reaches only the A2A conversations under its own tag.
type owner struct {
	// tag namespaces the caller's contexts; "" is the operator's, whose
	// keys keep the form agent:<id>:a2a:<contextId>.
	tag string
	// parent is the session a session-bound caller's conversations are
	// created under, so they are in its tree (tree visibility lets it in,
	// its budgets and sandbox cover them).
	parent string
	// restricted: the caller sees through a requester session, so the
	// A2A conversations of other owners do not exist for it.
	restricted bool
}

// ownerOf is the owner of the conversations p opens.
func ownerOf(p api.Principal) owner {
	if req := strings.ToLower(strings.TrimSpace(p.Requester())); req != "" {
		return owner{tag: ownerTag("s", req), parent: req, restricted: true}
	}
	if p.Name == api.OperatorName {
		return owner{}
	}
	return owner{tag: ownerTag("t", p.Name)}
}

// ownerTag is a short digest of a requester session or a token name: a
// session key segment (lower-case letters and digits) that does not show
// the name.
func ownerTag(kind, name string) string {
	sum := sha256.Sum256([]byte("switchboard a2a owner\x00" + kind + "\x00" + name))
	return kind + hex.EncodeToString(sum[:8])
}

// sessionKey is the session of the owner's context ctxID with agent
// agentID.
func (o owner) sessionKey(agentID, ctxID string) string {
	if o.tag == "" {
		return SessionKey(agentID, ctxID)
	}
	return "agent:" + strings.ToLower(agentID) + sessionMarker + o.tag + ":" + contextSegment(ctxID)
}

// reaches reports whether the owner may reach, over A2A, the task of a
// run in session key: an A2A conversation only when it is the owner's;
// another session as the gate decides (the caller already passed it).
func (o owner) reaches(key string) bool {
	if !o.restricted {
		return true
	}
	_, seg, ok := strings.Cut(strings.ToLower(key), sessionMarker)
	if !ok {
		return true
	}
	tag, _, namespaced := strings.Cut(seg, ":")
	return namespaced && tag == o.tag
}
