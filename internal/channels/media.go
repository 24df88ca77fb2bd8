package channels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/textcheck"
)

// ErrMediaRefused marks a photo or document a message carried that is not
// taken for good (over a limit, refused by the URL guard, gone at the
// provider): the turn goes on with a note naming it instead. Any other
// download error is transient and the message is offered again.
var ErrMediaRefused = errors.New("media refused")

// refusedf is an ErrMediaRefused with its reason.
func refusedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMediaRefused}, args...)...)
}

// Refused is a provider's permanent refusal of a file as ErrMediaRefused,
// without the outbox's "permanent delivery failure" wording (nothing is
// being delivered).
func Refused(err error) error {
	return refusedf("%s", strings.TrimPrefix(err.Error(), outbox.ErrPermanent.Error()+": "))
}

// Media collects the files of one inbound message within the attachment
// limits (tools.sessions_spawn.attachments: file count, bytes per file,
// bytes in total), so the engine's own check of the same limits never
// refuses the turn: a file past a limit becomes a note in the text.
type Media struct {
	lim   attachments.Limits
	total int64
	names map[string]bool
	files []attachments.File
	notes []string
	// cap is the channel's mediaMaxMb (CapMB); 0 is none.
	cap     MediaCap
	oversum int // files refused for being over cap
}

// DefaultMediaMaxMb is OpenClaw's default of channels.<channel>.mediaMaxMb
// (Telegram's and Discord's): 100 MB.
const DefaultMediaMaxMb = 100

// MediaCap is a channel's cap on one inbound file, OpenClaw's
// channels.<channel>.mediaMaxMb: a file over it is not downloaded, and the
// sender is told (OversizeReply).
type MediaCap struct {
	// MB is the cap in megabytes (MiB, as OpenClaw counts them); 0 or
	// less is DefaultMediaMaxMb.
	MB float64
	// Key names the setting in notes and logs ("channels.telegram.mediaMaxMb").
	Key string
}

// Bytes is the cap in bytes.
func (c MediaCap) Bytes() int64 {
	mb := c.MB
	if mb <= 0 {
		mb = DefaultMediaMaxMb
	}
	return max(1, int64(mb*(1<<20)))
}

// label is the cap as OpenClaw words it, "100MB" (0.5MB for a fraction).
func (c MediaCap) label() string {
	mb := c.MB
	if mb <= 0 {
		mb = DefaultMediaMaxMb
	}
	return strconv.FormatFloat(mb, 'f', -1, 64) + "MB"
}

// WithCap sets the channel's mediaMaxMb on m and returns m.
func (m *Media) WithCap(c MediaCap) *Media {
	m.cap = c
	return m
}

// OversizeReply is the answer the sender gets when a file of the message
// was over the channel's mediaMaxMb (OpenClaw's words), or "" when none was.
func (m *Media) OversizeReply() string {
	if m.oversum == 0 {
		return ""
	}
	return "⚠️ File too large. Maximum size is " + m.cap.label() + "."
}

// NewMedia starts a message's files under lim (zero fields: the defaults).
func NewMedia(lim attachments.Limits) *Media {
	return &Media{lim: lim.WithDefaults(), names: map[string]bool{}}
}

// Room is the most bytes the next file may have, or an ErrMediaRefused
// error when the message has as many files as it may.
func (m *Media) Room() (int64, error) {
	if len(m.files) >= m.lim.MaxFiles {
		return 0, refusedf("more than %d files (maxFiles)", m.lim.MaxFiles)
	}
	room := min(m.lim.MaxFileBytes, m.lim.MaxTotalBytes-m.total)
	if m.cap.Key != "" {
		room = min(room, m.cap.Bytes())
	}
	return room, nil
}

// Check refuses a file the provider says has size bytes before it is
// downloaded (0: size not known).
func (m *Media) Check(size int64) error {
	room, err := m.Room()
	if err != nil {
		return err
	}
	if size > room {
		return m.tooLarge(size, room)
	}
	return nil
}

func (m *Media) tooLarge(size, room int64) error {
	if m.cap.Key != "" && size > m.cap.Bytes() {
		return fmt.Errorf("%w: %w", ErrMediaRefused, &oversizeError{size: size, cap: m.cap})
	}
	if room < m.lim.MaxFileBytes {
		return refusedf("%d bytes, over the %d bytes left of maxTotalBytes %d", size, room, m.lim.MaxTotalBytes)
	}
	return refusedf("%d bytes, over maxFileBytes %d", size, m.lim.MaxFileBytes)
}

// Add keeps a downloaded file under a safe, unique name.
func (m *Media) Add(name, mimeType string, data []byte) {
	name = m.unique(SafeFileName(name))
	m.total += int64(len(data))
	m.files = append(m.files, attachments.File{Name: name, MimeType: mimeType, Data: data})
}

// oversizeError is a file over the channel's mediaMaxMb.
type oversizeError struct {
	size int64
	cap  MediaCap
}

func (e *oversizeError) Error() string {
	return fmt.Sprintf("%d bytes: file exceeds %s limit, %s", e.size, e.cap.label(), e.cap.Key)
}

// Refuse notes a file that was not taken, and why.
func (m *Media) Refuse(name string, err error) {
	var over *oversizeError
	if errors.As(err, &over) {
		m.oversum++
	}
	reason := strings.TrimPrefix(err.Error(), ErrMediaRefused.Error()+": ")
	m.notes = append(m.notes, "[media not attached: "+SafeFileName(name)+" ("+reason+")]")
}

// Apply puts the files on in and the notes of refused ones after its text.
func (m *Media) Apply(in *Inbound) {
	in.Files = append(in.Files, m.files...)
	if len(m.notes) > 0 {
		in.Text = strings.TrimSpace(in.Text + "\n" + strings.Join(m.notes, "\n"))
	}
}

// unique makes name differ from the message's earlier files.
func (m *Media) unique(name string) string {
	out := name
	for i := 2; m.names[out]; i++ {
		out = fmt.Sprintf("%d-%s", i, name)
	}
	m.names[out] = true
	return out
}

// SafeFileName turns a provider's (sender-chosen) file name into one the
// attachments layer takes: path separators, control and bidirectional
// formatting characters become '_', the name is clipped to 200 bytes on a
// rune boundary, and an empty or dot name becomes "file".
func SafeFileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ']' || textcheck.Unsafe(r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if len(name) > 200 {
		cut := 200
		for cut > 0 && name[cut]&0xC0 == 0x80 {
			cut--
		}
		name = name[:cut]
	}
	if name == "" || name == "." || name == ".." || name == ".manifest.json" {
		return "file"
	}
	return name
}

// Fetch downloads url with c, reading at most max bytes: a longer body is
// refused (ErrMediaRefused), as is a 4xx answer; a 5xx or a network error
// is returned as it is (transient). The URL is never put in an error, as
// a Bot API file URL holds the token.
func Fetch(ctx context.Context, c *http.Client, url string, max int64) ([]byte, error) {
	return FetchWith(ctx, c, url, nil, max)
}

// FetchWith is Fetch with request headers (a bearer token).
func FetchWith(ctx context.Context, c *http.Client, url string, h http.Header, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, refusedf("bad file URL")
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap() // drop the URL
		}
		return nil, fmt.Errorf("file download: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, fmt.Errorf("file download: HTTP %d", resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, refusedf("the provider answered HTTP %d", resp.StatusCode)
	case resp.ContentLength > max:
		return nil, refusedf("%d bytes, over the %d bytes allowed", resp.ContentLength, max)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("file download: %w", err)
	}
	if int64(len(data)) > max {
		return nil, refusedf("over the %d bytes allowed", max)
	}
	return data, nil
}
