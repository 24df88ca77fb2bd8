package openai

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var testNow = time.UnixMilli(1_753_999_000_123)

type reply = fakeapi.Reply

// newProvider returns a provider talking to f. The base URL keeps the /v1
// suffix real endpoints have, so request paths are checked too.
func newProvider(t *testing.T, f *fakeapi.Server, mod func(*Config)) *Provider {
	t.Helper()
	cfg := Config{
		BaseURL:    f.URL + "/v1",
		APIKey:     "sk-test-123",
		MaxRetries: 2,
		HTTPClient: f.Client(),
		Now:        func() time.Time { return testNow },
	}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// officialProvider returns a provider configured for api.openai.com whose
// requests a transport reroutes to f, to test behaviour that depends on
// talking to OpenAI itself.
func officialProvider(t *testing.T, f *fakeapi.Server) *Provider {
	t.Helper()
	target, err := url.Parse(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: reroute{target: target, next: f.Client().Transport}}
	p, err := New(Config{APIKey: "sk-test-123", HTTPClient: hc, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type reroute struct {
	target *url.URL
	next   http.RoundTripper
}

func (r reroute) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.target.Scheme, r.target.Host, ""
	return r.next.RoundTrip(req)
}
