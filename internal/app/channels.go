package app

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles"
	"github.com/switchboard-go/switchboard/internal/channels/discord"
	"github.com/switchboard-go/switchboard/internal/channels/signal"
	"github.com/switchboard-go/switchboard/internal/channels/telegram"
	"github.com/switchboard-go/switchboard/internal/channels/whatsapp"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// newChannels builds the provider adapters the config enables, in one
// registry: every process delivers their outbox items through it, and
// the gateway also starts their receiving (StartChannels).
func newChannels(cfg *config.Config, getenv func(string) string, stateDir string, log *slog.Logger, st domain.Store, pairs *channels.Pairing) (*channels.Registry, error) {
	reg := channels.NewRegistry(log, st)
	media := attachments.LimitsFromConfig(cfg.Tools.SessionsSpawn.Attachments)
	if cfg.Channels.Telegram != nil {
		a, err := telegram.New(telegram.Options{Raw: cfg.Channels.Telegram, Getenv: getenv, StateDir: stateDir, Logger: log, MediaLimits: media,
			Paired: func(account, sender string) bool { return pairs.Approved(telegram.Channel, account, sender) },
			Pair: func(ctx context.Context, account, sender, name string) (string, bool, error) {
				return pairs.Request(telegram.Channel, account, sender, name)
			}})
		if err != nil {
			return nil, err
		}
		if err := reg.Register(a); err != nil {
			return nil, err
		}
	}
	if cfg.Channels.Discord != nil {
		a, err := discord.New(discord.Options{Block: cfg.Channels.Discord, Getenv: getenv, Logger: log, MediaLimits: media,
			Paired: func(account, sender string) bool { return pairs.Approved(discord.ChannelName, account, sender) },
			Pair: func(ctx context.Context, account, sender, name string) (string, bool, error) {
				return pairs.Request(discord.ChannelName, account, sender, name)
			}})
		if err != nil {
			return nil, err
		}
		if err := reg.Register(a); err != nil {
			return nil, err
		}
	}
	if cfg.Channels.Signal != nil {
		a, err := signal.New(signal.Options{Raw: cfg.Channels.Signal, Getenv: getenv, Logger: log, MediaLimits: media,
			Paired: pairedFn(pairs, signal.Channel), Pair: pairFn(pairs, signal.Channel)})
		if err != nil {
			return nil, err
		}
		if err := reg.Register(a); err != nil {
			return nil, err
		}
	}
	if cfg.Channels.WhatsApp != nil {
		a, err := whatsapp.New(whatsapp.Options{Raw: cfg.Channels.WhatsApp, Getenv: getenv, Logger: log, MediaLimits: media,
			Paired: pairedFn(pairs, whatsapp.Channel), Pair: pairFn(pairs, whatsapp.Channel)})
		if err != nil {
			return nil, err
		}
		if err := reg.Register(a); err != nil {
			return nil, err
		}
	}
	if cfg.Channels.BlueBubbles != nil {
		a, err := bluebubbles.New(bluebubbles.Options{Raw: cfg.Channels.BlueBubbles, Getenv: getenv, Logger: log, MediaLimits: media,
			Paired: pairedFn(pairs, bluebubbles.Channel), Pair: pairFn(pairs, bluebubbles.Channel)})
		if err != nil {
			return nil, err
		}
		if err := reg.Register(a); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// pairedFn reports senders approved by pairing on a channel.
func pairedFn(pairs *channels.Pairing, channel string) func(account, sender string) bool {
	return func(account, sender string) bool { return pairs.Approved(channel, account, sender) }
}

// pairFn asks for a pairing code for an unknown sender on a channel.
func pairFn(pairs *channels.Pairing, channel string) func(ctx context.Context, account, sender, name string) (string, bool, error) {
	return func(ctx context.Context, account, sender, name string) (string, bool, error) {
		return pairs.Request(channel, account, sender, name)
	}
}

// StartChannels starts receiving on every configured channel: each
// inbound message becomes a chat turn through the engine's gate. The
// gateway calls it once it serves; Close stops the channels first.
func (a *App) StartChannels(ctx context.Context, log *slog.Logger) error {
	router := channels.NewRouter(channels.RouterOptions{Gate: a.Engine, Config: a.Engine.Config, Sessions: a.Store,
		Events: a.Engine.Subscribe, Logger: log})
	return a.Channels.Start(ctx, router)
}

// PairingPath is the pairing file of a state dir (requests and approved
// senders of dmPolicy "pairing").
func PairingPath(stateDir string) string { return filepath.Join(stateDir, "channels", "pairing.json") }
