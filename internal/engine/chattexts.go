package engine

import "github.com/switchboard-go/switchboard/internal/api"

// checkChatTexts refuses a chat whose message or delivery hints are over
// their api limits or hold U+0000. The hints are stored on the session row
// and shown in every listing of it: unbounded, one call could make every
// sessions.list answer megabytes.
func checkChatTexts(req ChatRequest) error {
	for _, c := range []struct {
		l api.Limit
		s string
	}{
		{api.MessageChars, req.Message}, {api.DeliverToChars, req.To}, {api.ChatReplyToChars, req.ReplyTo},
		{api.ChatAccountIDChars, req.AccountID}, {api.ChatThreadIDChars, req.ThreadID}, {api.ChatSenderIDChars, req.SenderID},
	} {
		if err := c.l.CheckChars(c.s); err != nil {
			return err
		}
	}
	return nil
}
