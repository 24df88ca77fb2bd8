package modelerr

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// maxErrorBody bounds how much of an error response body is kept.
const maxErrorBody = 64 << 10

// Recorder watches the HTTP attempts of one model call through an SDK
// middleware. SDKs turn unusual error bodies (HTML from a proxy, the bare
// {"error":"text"} of local servers) into decoding errors that lose the
// status; the recorder keeps the last status and error body so Classify can
// report them whatever the SDK made of them. Use one Recorder per call.
type Recorder struct {
	mu       sync.Mutex
	status   int
	body     []byte
	readErr  error // a failure reading a success body: the connection broke
	attempts int
}

// Middleware has the signature of the OpenAI and Anthropic SDK middlewares.
func (r *Recorder) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts++
	r.status, r.body, r.readErr = 0, nil, nil
	if res == nil {
		return res, err
	}
	r.status = res.StatusCode
	if res.StatusCode < 400 && res.Body != nil {
		res.Body = &watchedBody{ReadCloser: res.Body, rec: r}
	}
	if res.StatusCode >= 400 && res.Body != nil {
		body, rerr := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		r.body = body
		res.Body = io.NopCloser(bytes.NewReader(body))
		if rerr != nil && err == nil {
			err = rerr
		}
	}
	return res, err
}

// Attempts returns how many HTTP requests the call made.
func (r *Recorder) Attempts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts
}

// Classify turns the error of an SDK call into the provider error vocabulary
// (see the package comment). parent is the caller's context and timeout the
// per-call timeout that bounded the call.
func Classify(parent context.Context, provider string, timeout time.Duration, rec *Recorder, err error) error {
	if parent.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return Transport(parent, provider, timeout, err)
	}
	rec.mu.Lock()
	status, body, readErr := rec.status, rec.body, rec.readErr
	rec.mu.Unlock()
	switch {
	case status >= 400:
		return Status(provider, status, BodyMessage(body), err)
	case status == 0:
		return Transport(parent, provider, timeout, err)
	case readErr != nil:
		return Transport(parent, provider, timeout, readErr)
	default:
		// The server answered 2xx with a body the SDK could not decode.
		return Malformed(provider, err)
	}
}

// watchedBody records a failed read of a success body, which tells a broken
// connection apart from a complete but undecodable body.
type watchedBody struct {
	io.ReadCloser
	rec *Recorder
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.rec.mu.Lock()
		b.rec.readErr = err
		b.rec.mu.Unlock()
	}
	return n, err
}
