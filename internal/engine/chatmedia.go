package engine

import (
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// attachmentLimits are the limits every inline file is held to: a chat
// message's, a channel send's and a spawn's (tools.sessions_spawn.attachments).
func (e *Engine) attachmentLimits() attachments.Limits {
	return attachments.LimitsFromConfig(e.conf().Tools.SessionsSpawn.Attachments)
}

// checkChatFiles refuses a chat whose files break the attachment limits
// (count, names, sizes), before anything is written.
func (e *Engine) checkChatFiles(req api.ChatRequest) error {
	if len(req.Attachments) == 0 {
		return nil
	}
	return attachments.Check(req.Attachments, e.attachmentLimits())
}

// chatContent is the user message's content: msg alone, or with files,
// msg with a note per file and the images as image blocks. The files are
// written to the session agent's workspace first
// (<workspace>/.switchboard/attachments/msg-<id>/), so the agent's tools
// can read what the model only sees named; they stay as long as the
// transcript does.
func (e *Engine) chatContent(key, msg string, files []attachments.File) (domain.Content, error) {
	if len(files) == 0 {
		return domain.TextContent(msg), nil
	}
	r, _, err := attachments.Materialize(e.conf().Workspace(e.dir, e.keys.AgentOf(key)), files,
		func() string { return attachments.MessageFolderPrefix + e.newID() })
	if err != nil {
		return domain.Content{}, attachments.WriteFailure("writing the message's attachments", err)
	}
	return attachments.UserContent(msg, files, r.RelDir), nil
}

// sendFiles decodes a channel send's files under the attachment limits
// and refuses them for a channel that cannot send files.
func (e *Engine) sendFiles(channel string, req api.DeliverRequest) ([]attachments.File, error) {
	if len(req.Attachments) == 0 {
		return nil, nil
	}
	files, err := attachments.Decode(req.Attachments, e.attachmentLimits())
	if err != nil {
		return nil, err
	}
	return files, delivery.CheckFiles(channel, files)
}
