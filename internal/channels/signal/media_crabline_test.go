package signal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/chantest"
	"github.com/switchboard-go/switchboard/internal/channels/crabline"
)

// daemonFiles stands in front of crabline's signal-cli-compatible server
// for what it lacks: its injected messages carry no attachments and it
// has no getAttachment. The proxy adds an attachment (signal-cli's
// receive shape: id, contentType, filename, size) to the stream's
// messages whose text starts "file:", answers getAttachment for the
// files it holds with {data: <base64>} as signal-cli does, and passes
// everything else on to crabline.
type daemonFiles struct {
	mu    sync.Mutex
	files map[string][]byte // by attachment id
	asked []map[string]any  // getAttachment params
}

func newDaemonFiles(t *testing.T, c *crabline.Server) (*httptest.Server, *daemonFiles) {
	d := &daemonFiles{files: map[string][]byte{}}
	target, _ := url.Parse(c.BaseURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/events":
			d.events(w, r, c.BaseURL)
			return
		case "/api/v1/rpc":
			b, _ := io.ReadAll(r.Body)
			var call struct {
				Method string         `json:"method"`
				ID     any            `json:"id"`
				Params map[string]any `json:"params"`
			}
			_ = json.Unmarshal(b, &call)
			if call.Method == "getAttachment" {
				d.getAttachment(w, call.ID, call.Params)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, d
}

// events relays crabline's event stream, adding an attachment to each
// "file:<id>:<name>" message.
func (d *daemonFiles) events(w http.ResponseWriter, r *http.Request, base string) {
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, base+"/api/v1/events?"+r.URL.RawQuery, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(resp.StatusCode)
	w.(http.Flusher).Flush()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data:"); ok {
			line = "data:" + d.withFile(data)
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

func (d *daemonFiles) withFile(data string) string {
	var ev map[string]any
	if json.Unmarshal([]byte(data), &ev) != nil {
		return data
	}
	env, _ := ev["envelope"].(map[string]any)
	dm, _ := env["dataMessage"].(map[string]any)
	msg, _ := dm["message"].(string)
	rest, ok := strings.CutPrefix(msg, "file:")
	if !ok {
		return data
	}
	id, name, _ := strings.Cut(rest, ":")
	d.mu.Lock()
	size := len(d.files[id])
	d.mu.Unlock()
	dm["message"] = ""
	dm["attachments"] = []any{map[string]any{"id": id, "contentType": "image/jpeg", "filename": name, "size": size}}
	out, _ := json.Marshal(ev)
	return string(out)
}

func (d *daemonFiles) getAttachment(w http.ResponseWriter, id any, params map[string]any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, params)
	data, ok := d.files[params["id"].(string)]
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -1, "message": "Attachment not found"}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"data": base64.StdEncoding.EncodeToString(data)}})
}

func TestInboundFilesAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "signal")
	srv, d := newDaemonFiles(t, c)
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0, 'J', 'F', 'I', 'F'}
	d.files["att1.jpg"] = jpeg
	d.files["att2.jpg"] = make([]byte, 65)
	const (
		ada   = "+15550001001"
		group = "AbCdEfGh1234567890xyZ+/w=="
	)
	a, err := New(Options{Raw: map[string]any{"account": c.Account, "httpUrl": srv.URL, "dmPolicy": "open", "allowFrom": []any{"*"},
		"groupPolicy": "open", "groups": map[string]any{"*": map[string]any{"requireMention": false}}},
		MediaLimits: attachments.Limits{MaxFileBytes: 64}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Error(err)
		}
	}()
	chantest.WaitFor(t, "the event stream", func() bool { return a.Status()[0].Connected })
	say := func(body map[string]any) channels.Inbound {
		t.Helper()
		before := sink.Count()
		c.Inject(t, body)
		chantest.WaitFor(t, "the message", func() bool { return sink.Count() > before })
		return sink.Last()
	}
	in := say(map[string]any{"sourceNumber": ada, "text": "file:att1.jpg:receipt.jpg"})
	if len(in.Files) != 1 || in.Files[0].Name != "receipt.jpg" || in.Files[0].MimeType != "image/jpeg" || !bytes.Equal(in.Files[0].Data, jpeg) || in.Text != "" {
		t.Fatalf("inbound %+v", in)
	}
	in = say(map[string]any{"sourceNumber": ada, "groupId": group, "text": "file:att2.jpg:big.jpg"})
	if len(in.Files) != 0 || in.Text != "[media not attached: big.jpg (65 bytes, over maxFileBytes 64)]" {
		t.Fatalf("an oversized file: %+v", in)
	}
	in = say(map[string]any{"sourceNumber": ada, "groupId": group, "text": "file:gone.jpg:gone.jpg"})
	if len(in.Files) != 0 || !strings.HasPrefix(in.Text, "[media not attached: gone.jpg (signal getAttachment: Attachment not found") {
		t.Fatalf("a file the daemon does not have: %+v", in)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.asked) != 2 || d.asked[0]["recipient"] != ada || d.asked[0]["account"] != c.Account || d.asked[1]["groupId"] != group {
		t.Fatalf("getAttachment params %v (the oversized file must not be fetched)", d.asked)
	}
	// The echoes of the turns went out through crabline.
	if n := c.SignalSent(t, "recipient", ada, "echo:"); n != 1 {
		t.Errorf("%d echoes to %s, want 1", n, ada)
	}
}

// A file whose announced size is over the account's mediaMaxMb (its own
// value over the channel's) is not fetched: the turn carries a note
// naming the key.
func TestInboundMediaMaxMbAgainstCrabline(t *testing.T) {
	c := crabline.Start(t, "signal")
	srv, d := newDaemonFiles(t, c)
	d.files["att1.jpg"] = make([]byte, 2000)
	const ada = "+15550001001"
	a, err := New(Options{Raw: map[string]any{"dmPolicy": "open", "allowFrom": []any{"*"}, "mediaMaxMb": 50,
		"accounts": map[string]any{"work": map[string]any{"account": c.Account, "httpUrl": srv.URL, "mediaMaxMb": 0.001}}}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &chantest.EchoSink{Send: a.Send}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Error(err)
		}
	}()
	chantest.WaitFor(t, "the event stream", func() bool { return a.Status()[0].Connected })
	c.Inject(t, map[string]any{"sourceNumber": ada, "text": "file:att1.jpg:big.jpg"})
	chantest.WaitFor(t, "the message", func() bool { return sink.Count() > 0 })
	in := sink.Last()
	const want = "[media not attached: big.jpg (2000 bytes: file exceeds 0.001MB limit, channels.signal.mediaMaxMb)]"
	if len(in.Files) != 0 || in.Text != want {
		t.Fatalf("a file over mediaMaxMb: %+v, want text %q", in, want)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.asked) != 0 {
		t.Fatalf("getAttachment called %v for a file over mediaMaxMb", d.asked)
	}
}
