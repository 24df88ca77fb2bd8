package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"

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

// pairingParams are the params of `channels.pairing.*`.
type pairingParams struct {
	Channel string `json:"channel"`
	Code    string `json:"code,omitempty"`
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
	return map[string]any{"channel": p.Channel, "requests": reqs}, nil
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
	if strings.TrimSpace(p.Channel) == "" || strings.TrimSpace(p.Code) == "" {
		return nil, domain.Invalid("channel and code required")
	}
	pr, err := s.pairing()
	if err != nil {
		return nil, err
	}
	var r channels.PairingRequest
	if approve {
		r, err = pr.Approve(p.Channel, p.Code)
	} else {
		r, err = pr.Dismiss(p.Channel, p.Code)
	}
	if errors.Is(err, channels.ErrNoPairingCode) {
		return nil, domain.Errorf(domain.CodeNotFound, "no pending pairing request for code %s on %s", strings.ToUpper(p.Code), p.Channel)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "channel": r.Channel, "accountId": r.AccountID, "id": r.SenderID, "approved": approve}, nil
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
