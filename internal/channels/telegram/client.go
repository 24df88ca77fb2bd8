package telegram

import (
	"bytes"
	"io"
	"net/http"
)

// jsonEmptyBody is the HTTP client the bot library sends through. The
// library posts parameterless calls (getMe, deleteWebhook without
// options) as an empty multipart body, which some Bot API servers refuse;
// such a call goes out as `{}` JSON instead, which every server accepts.
type jsonEmptyBody struct{ c *http.Client }

// Do sends r, rewriting an empty multipart body to `{}`.
func (j jsonEmptyBody) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(body)) == 0 {
			body = []byte("{}")
			r.Header.Set("Content-Type", "application/json")
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return j.c.Do(r)
}
