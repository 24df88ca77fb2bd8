package gateway

import (
	"context"
	"errors"
	"github.com/switchboard-go/switchboard/internal/audit"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// channelsParams are the params of `channels.status` (OpenClaw's; probe
// and timeoutMs are accepted, the status is always current).
type channelsParams struct {
	Probe     *bool  `json:"probe,omitempty"`
	TimeoutMs *int64 `json:"timeoutMs,omitempty"`
	Channel   string `json:"channel,omitempty"`
}

// pairingParams are the params of `channels.pairing.*` (OpenClaw's:
// a request is named by its requestId, which is the code the sender was
// given; `code` is accepted for it too).
type pairingParams struct {
	Channel   string `json:"channel"`
	AccountID string `json:"accountId,omitempty"`
	RequestID string `json:"requestId,omitempty"`
	Code      string `json:"code,omitempty"`
}

// code is the pairing code the params name.
func (p pairingParams) code() string {
	if c := strings.TrimSpace(p.RequestID); c != "" {
		return c
	}
	return strings.TrimSpace(p.Code)
}

// channelsStatus is the channels' StatusResult (an empty one without
// channels).
func (s *Server) channelsStatus(channel string) channels.StatusResult {
	if s.opts.Channels == nil {
		return channels.NewRegistry(nil, nil).StatusResult(channel, s.now())
	}
	return s.opts.Channels.StatusResult(strings.TrimSpace(channel), s.now())
}

func (s *Server) mChannelsStatus(_ context.Context, cl *call) (any, error) {
	var p channelsParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	return s.channelsStatus(p.Channel), nil
}

// apiChannelsStatus is GET /api/channels/status?channel=.
func (s *Server) apiChannelsStatus(r *http.Request, _ grant) (any, error) {
	return s.channelsStatus(r.URL.Query().Get("channel")), nil
}

func (s *Server) pairing() (*channels.Pairing, error) {
	if s.opts.Pairing == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "pairing is not available on this gateway")
	}
	return s.opts.Pairing, nil
}

func (s *Server) mPairingList(_ context.Context, cl *call) (any, error) {
	var p pairingParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	pr, err := s.pairing()
	if err != nil {
		return nil, err
	}
	reqs, err := pr.List(strings.TrimSpace(p.Channel))
	if err != nil {
		return nil, err
	}
	return s.pairingList(strings.TrimSpace(p.Channel), strings.TrimSpace(p.AccountID), reqs), nil
}

// pairingList is OpenClaw's ChannelsPairingListResult: the accounts that
// may hold requests, the pending requests (named by their code) and the
// limits. switchboard sends no notice to an approved sender and keeps no
// command owner.
func (s *Server) pairingList(channel, account string, reqs []channels.PairingRequest) map[string]any {
	st := s.channelsStatus(channel)
	label := func(ch string) string {
		if l := st.ChannelLabels[ch]; l != "" {
			return l
		}
		return ch
	}
	accounts := []map[string]any{}
	for _, ch := range st.ChannelOrder {
		for _, a := range st.ChannelAccounts[ch] {
			if account == "" || a.AccountID == account {
				accounts = append(accounts, map[string]any{"channel": ch, "channelLabel": label(ch), "accountId": a.AccountID, "notifySupported": false})
			}
		}
	}
	iso := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }
	requests := []map[string]any{}
	for _, r := range reqs {
		if account != "" && r.AccountID != account {
			continue
		}
		name := r.Name
		if name == "" {
			name = r.SenderID
		}
		requests = append(requests, map[string]any{"requestId": r.Code, "channel": r.Channel, "channelLabel": label(r.Channel),
			"accountId": r.AccountID, "senderId": r.SenderID, "senderLabel": name, "createdAt": iso(r.CreatedAt),
			"lastSeenAt": iso(r.CreatedAt), "expiresAt": iso(r.ExpiresAt), "notifySupported": false})
	}
	return map[string]any{"accounts": accounts, "requests": requests, "commandOwnerConfigured": false,
		"limits": map[string]any{"pendingPerAccount": channels.PairingMaxPending, "ttlMs": channels.PairingTTL.Milliseconds()}}
}

func (s *Server) mPairingApprove(_ context.Context, cl *call) (any, error) {
	return s.pairingResolve(cl, true)
}

func (s *Server) mPairingDismiss(_ context.Context, cl *call) (any, error) {
	return s.pairingResolve(cl, false)
}

func (s *Server) pairingResolve(cl *call, approve bool) (any, error) {
	var p pairingParams
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	code := p.code()
	if strings.TrimSpace(p.Channel) == "" || code == "" {
		return nil, domain.Invalid("channel and requestId required")
	}
	pr, err := s.pairing()
	if err != nil {
		return nil, err
	}
	var r channels.PairingRequest
	if approve {
		r, err = pr.Approve(p.Channel, code)
	} else {
		r, err = pr.Dismiss(p.Channel, code)
	}
	if errors.Is(err, channels.ErrNoPairingCode) {
		return nil, domain.Errorf(domain.CodeNotFound, "no pending pairing request for code %s on %s", strings.ToUpper(code), p.Channel)
	}
	if err != nil {
		return nil, err
	}
	s.record(cl.c.ctx, audit.Entry{Kind: audit.KindAdmin, Actor: cl.c.self.Name, Surface: "ws", Op: cl.method,
		Target: p.Channel + ":" + r.SenderID, Outcome: "ok", Detail: "requestId " + r.Code})
	if !approve {
		return map[string]any{"requestId": r.Code, "senderId": r.SenderID}, nil
	}
	return map[string]any{"requestId": r.Code, "senderId": r.SenderID, "notification": "not-requested", "commandOwnerBootstrap": "not-requested"}, nil
}

// channelHealth is the per-channel detail of /healthz.
func (s *Server) channelHealth() map[string]any {
	if s.opts.Channels == nil {
		return nil
	}
	st := s.opts.Channels.StatusResult("", s.now())
	if len(st.ChannelOrder) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, n := range st.ChannelOrder {
		var accts []map[string]any
		for _, a := range st.ChannelAccounts[n] {
			accts = append(accts, map[string]any{"accountId": a.AccountID, "running": a.Running,
				"connected": a.Connected, "lastError": a.LastError})
		}
		out[n] = accts
	}
	return out
}

// channelCollector exports the channels' counters at scrape time:
// switchboard_channel_messages_total{channel, account, outcome} with
// outcome received, delivered, retried or failed.
type channelCollector struct {
	s    *Server
	desc *prometheus.Desc
}

func newChannelCollector(s *Server) channelCollector {
	return channelCollector{s: s, desc: prometheus.NewDesc("switchboard_channel_messages_total",
		"Chat channel messages since start: received (inbound turns), delivered, retried and failed (outbound sends).",
		[]string{"channel", "account", "outcome"}, nil)}
}

func (c channelCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c channelCollector) Collect(ch chan<- prometheus.Metric) {
	if c.s.opts.Channels == nil {
		return
	}
	for name, accts := range c.s.opts.Channels.Status() {
		for _, a := range accts {
			for _, o := range []struct {
				outcome string
				n       uint64
			}{{"received", a.Received}, {"delivered", a.Delivered}, {"retried", a.Retried}, {"failed", a.Failed}} {
				ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(o.n), name, a.AccountID, o.outcome)
			}
		}
	}
}
