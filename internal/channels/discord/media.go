package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/urlguard"
)

// Attachment is a file a message carried, as MESSAGE_CREATE describes it.
type Attachment struct {
	Filename    string
	ContentType string
	Size        int64
	URL         string
}

// cdnHosts are the hosts Discord serves attachments from. An attachment
// URL elsewhere is refused unless it is on the configured apiRoot's
// origin (a Discord-compatible server of one's own).
var cdnHosts = map[string]bool{"cdn.discordapp.com": true, "media.discordapp.net": true}

// mediaFetcher downloads a message's attachments. A message chooses the
// URLs, so the gateway must not be made to fetch anything else: a URL is
// fetched only from Discord's CDN, through the outbound-URL guard (public
// addresses only, no redirects), or from the configured apiRoot's origin.
type mediaFetcher struct {
	limits attachments.Limits
	// cap is the account's mediaMaxMb.
	cap channels.MediaCap
	// root is the configured apiRoot (nil: none); trusted the client its
	// origin is fetched with.
	root    *url.URL
	trusted *http.Client
	guard   *urlguard.Guard
	guarded *http.Client
}

func newMediaFetcher(limits attachments.Limits, mediaMaxMb float64, apiRoot string, trusted *http.Client) *mediaFetcher {
	g := urlguard.New(urlguard.Policy{})
	f := &mediaFetcher{limits: limits, cap: channels.MediaCap{MB: mediaMaxMb, Key: "channels.discord.mediaMaxMb"}, trusted: trusted, guard: g, guarded: g.Client(60 * time.Second)}
	if apiRoot != "" {
		if u, err := url.Parse(apiRoot); err == nil && u.Host != "" {
			f.root = u
		}
	}
	return f
}

// client returns the client raw may be fetched with, or an
// ErrMediaRefused error.
func (f *mediaFetcher) client(raw string) (*http.Client, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: not a URL", channels.ErrMediaRefused)
	}
	if f.root != nil && urlguard.SameOrigin(u, f.root) {
		return f.trusted, nil
	}
	if !cdnHosts[strings.ToLower(u.Hostname())] {
		return nil, fmt.Errorf("%w: %s is not Discord's CDN", channels.ErrMediaRefused, u.Hostname())
	}
	if _, err := f.guard.CheckURL(raw); err != nil {
		return nil, fmt.Errorf("%w: %v", channels.ErrMediaRefused, err)
	}
	return f.guarded, nil
}

// fetch downloads atts onto in (within the limits; a refused file becomes
// a note in in.Text). An error is a transient failure of a download.
func (f *mediaFetcher) fetch(ctx context.Context, atts []Attachment, in *channels.Inbound) error {
	if len(atts) == 0 {
		return nil
	}
	med := channels.NewMedia(f.limits).WithCap(f.cap)
	for _, a := range atts {
		if err := med.Check(a.Size); err != nil {
			med.Refuse(a.Filename, err)
			continue
		}
		c, err := f.client(a.URL)
		if err != nil {
			med.Refuse(a.Filename, err)
			continue
		}
		room, _ := med.Room()
		data, err := channels.Fetch(ctx, c, a.URL, room)
		if urlguard.Refused(err) {
			err = fmt.Errorf("%w: %v", channels.ErrMediaRefused, err)
		}
		if errors.Is(err, channels.ErrMediaRefused) {
			med.Refuse(a.Filename, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("discord attachment: %w", err)
		}
		med.Add(a.Filename, a.ContentType, data)
	}
	med.Apply(in)
	return nil
}
