package channels

import (
	"sort"
	"strings"
	"time"
)

// StatusResult is the answer of `channels.status`, in OpenClaw's result
// shape: the channels in order, their labels, a summary per channel and
// each account's snapshot.
type StatusResult struct {
	TS                      int64                      `json:"ts"`
	ChannelOrder            []string                   `json:"channelOrder"`
	ChannelLabels           map[string]string          `json:"channelLabels"`
	Channels                map[string]ChannelSummary  `json:"channels"`
	ChannelAccounts         map[string][]AccountStatus `json:"channelAccounts"`
	ChannelDefaultAccountID map[string]string          `json:"channelDefaultAccountId"`
}

// ChannelSummary is one channel's line of a StatusResult.
type ChannelSummary struct {
	Configured bool   `json:"configured"`
	Running    bool   `json:"running"`
	Connected  bool   `json:"connected"`
	LastError  string `json:"lastError,omitempty"`
}

// channelLabels are the display names of the provider channels.
var channelLabels = map[string]string{"telegram": "Telegram", "discord": "Discord", "signal": "Signal",
	"whatsapp": "WhatsApp", "bluebubbles": "iMessage (BlueBubbles)"}

// StatusResult reports the registered channels (only channel when it is
// not ""), at now.
func (r *Registry) StatusResult(channel string, now time.Time) StatusResult {
	all := r.Status()
	out := StatusResult{TS: now.UnixMilli(), ChannelOrder: []string{}, ChannelLabels: map[string]string{},
		Channels: map[string]ChannelSummary{}, ChannelAccounts: map[string][]AccountStatus{},
		ChannelDefaultAccountID: map[string]string{}}
	names := make([]string, 0, len(all))
	for n := range all {
		if channel == "" || n == channel {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		accts := all[n]
		out.ChannelOrder = append(out.ChannelOrder, n)
		label := channelLabels[n]
		if label == "" {
			label = strings.ToUpper(n[:1]) + n[1:]
		}
		out.ChannelLabels[n] = label
		sum := ChannelSummary{}
		def := DefaultAccountID
		for i, a := range accts {
			if i == 0 {
				def = a.AccountID
			}
			if a.AccountID == DefaultAccountID {
				def = a.AccountID
			}
			sum.Configured = sum.Configured || a.Configured
			sum.Running = sum.Running || a.Running
			sum.Connected = sum.Connected || a.Connected
			if sum.LastError == "" {
				sum.LastError = a.LastError
			}
		}
		out.Channels[n] = sum
		out.ChannelAccounts[n] = accts
		out.ChannelDefaultAccountID[n] = def
	}
	return out
}
