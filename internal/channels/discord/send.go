package discord

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/rest"
	"github.com/disgoorg/snowflake/v2"

	"github.com/switchboard-go/switchboard/internal/attachments"
)

// DefaultAPIRoot is Discord's REST root; the API version is appended.
const DefaultAPIRoot = "https://discord.com/api"

// DefaultGatewayURL is Discord's gateway.
const DefaultGatewayURL = "wss://gateway.discord.gg"

// Sender posts messages over Discord's REST API.
type Sender struct {
	client  rest.Client
	limiter *rateLimiter

	mu  sync.Mutex
	dms map[string]string // user id → DM channel id
}

// NewSender builds a sender for a bot token. apiRoot is the API root
// without the version ("" is Discord's); hc may be nil.
func NewSender(token, apiRoot string, hc *http.Client, logger *slog.Logger) *Sender {
	return newSender(token, apiRoot, hc, logger, newRateLimiter(nil, nil))
}

func newSender(token, apiRoot string, hc *http.Client, logger *slog.Logger, l *rateLimiter) *Sender {
	if apiRoot == "" {
		apiRoot = DefaultAPIRoot
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opts := []rest.ConfigOpt{
		rest.WithURL(strings.TrimRight(apiRoot, "/") + "/v10"),
		rest.WithLogger(logger),
		rest.WithUserAgent("DiscordBot (https://github.com/switchboard-go/switchboard, 1) switchboard"),
	}
	if hc != nil {
		opts = append(opts, rest.WithHTTPClient(hc))
	}
	opts = append(opts, rest.WithRateLimiter(l))
	return &Sender{client: rest.NewClient(token, opts...), limiter: l, dms: map[string]string{}}
}

// Typing shows the typing indicator in a channel (Discord keeps it ten
// seconds, or until the bot posts).
func (s *Sender) Typing(ctx context.Context, channelID string) error {
	id, err := snowflake.Parse(channelID)
	if err != nil {
		return fmt.Errorf("discord: channel id %q: %w", channelID, err)
	}
	return s.client.Do(rest.SendTyping.Compile(nil, id), nil, nil, rest.WithCtx(ctx))
}

// Close releases idle connections.
func (s *Sender) Close(ctx context.Context) { s.client.Close(ctx) }

// RateLimited is how many 429 answers the sender has seen.
func (s *Sender) RateLimited() int { return s.limiter.limitedCount() }

// noMentions is sent with every message: a reply quoting "@everyone" or a
// user's id must not ping anyone (Discord's default parses every mention).
func noMentions() *discord.AllowedMentions {
	return &discord.AllowedMentions{Parse: []discord.AllowedMentionType{}, Roles: []snowflake.ID{}, Users: []snowflake.ID{}}
}

// Nonce derives chunk i's nonce from a delivery's identity (its outbox row
// id and idempotency key): a retried delivery sends the same nonces, and
// with enforce_nonce Discord returns the message it already posted
// instead of posting it again. Discord allows 25 characters.
func Nonce(seed string, i int) string {
	sum := sha256.Sum256([]byte(seed))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:10])) + "." + strconv.Itoa(i)
}

// ErrBadTarget reports a `to` that names no Discord channel or user.
var ErrBadTarget = errors.New("discord: bad target")

// ParseTarget reads a delivery target: "channel:<id>", "user:<id>" (a
// direct message) or a bare channel id.
func ParseTarget(to string) (kind, id string, err error) {
	kind, id, ok := strings.Cut(strings.TrimSpace(to), ":")
	if !ok {
		kind, id = "channel", kind
	}
	if (kind != "channel" && kind != "user") || !isSnowflake(id) {
		return "", "", fmt.Errorf("%w %q: want channel:<id>, user:<id> or a channel id", ErrBadTarget, to)
	}
	return kind, id, nil
}

func isSnowflake(s string) bool {
	if len(s) == 0 || len(s) > 20 {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// MaxFilesPerMessage is how many files one Discord message may carry.
const MaxFilesPerMessage = 10

// Send posts text to a target, split at MaxMessageChars, each chunk with
// its nonce and enforce_nonce and no mentions, and files as multipart
// uploads on the last chunk (MaxFilesPerMessage to a message, more in
// messages after it, each with its own nonce). It returns the posted
// message ids.
func (s *Sender) Send(ctx context.Context, to, text, nonceSeed string, files ...attachments.File) ([]string, error) {
	kind, id, err := ParseTarget(to)
	if err != nil {
		return nil, err
	}
	channelID := id
	if kind == "user" {
		if channelID, err = s.dmChannel(ctx, id); err != nil {
			return nil, err
		}
	}
	cid, _ := snowflake.Parse(channelID)
	msgs := []discord.MessageCreate{}
	for _, chunk := range splitText(text, MaxMessageChars) {
		msgs = append(msgs, discord.MessageCreate{Content: chunk})
	}
	for i := 0; i < len(files); i += MaxFilesPerMessage {
		if i > 0 || len(msgs) == 0 {
			msgs = append(msgs, discord.MessageCreate{})
		}
		last := &msgs[len(msgs)-1]
		for _, f := range files[i:min(i+MaxFilesPerMessage, len(files))] {
			last.Files = append(last.Files, discord.NewFile(f.Name, "", bytes.NewReader(f.Data)))
		}
	}
	var ids []string
	for i, mc := range msgs {
		mc.Nonce, mc.EnforceNonce, mc.AllowedMentions = Nonce(nonceSeed, i), true, noMentions()
		body, err := mc.ToBody()
		if err != nil {
			return ids, fmt.Errorf("discord: files for channel %s: %w", channelID, err)
		}
		var m *discord.Message
		if err := s.client.Do(rest.CreateMessage.Compile(nil, cid), body, &m, rest.WithCtx(ctx)); err != nil {
			return ids, fmt.Errorf("discord: post to channel %s: %w", channelID, err)
		}
		if m != nil {
			ids = append(ids, m.ID.String())
		}
	}
	return ids, nil
}

// dmChannel opens (or reuses) the direct-message channel with a user.
func (s *Sender) dmChannel(ctx context.Context, userID string) (string, error) {
	s.mu.Lock()
	c, ok := s.dms[userID]
	s.mu.Unlock()
	if ok {
		return c, nil
	}
	uid, _ := snowflake.Parse(userID)
	var ch struct {
		ID string `json:"id"`
	}
	if err := s.client.Do(rest.CreateDMChannel.Compile(nil), discord.DMChannelCreate{RecipientID: uid}, &ch, rest.WithCtx(ctx)); err != nil {
		return "", fmt.Errorf("discord: open DM with %s: %w", userID, err)
	}
	if !isSnowflake(ch.ID) {
		return "", fmt.Errorf("discord: open DM with %s: no channel id in the answer", userID)
	}
	s.mu.Lock()
	s.dms[userID] = ch.ID
	s.mu.Unlock()
	return ch.ID, nil
}

// fetchChannel reads a channel's kind, guild and parent (a thread the
// gateway did not tell of).
func (s *Sender) fetchChannel(ctx context.Context, id string) (channelInfo, error) {
	cid, err := snowflake.Parse(id)
	if err != nil {
		return channelInfo{}, fmt.Errorf("discord: channel id %q: %w", id, err)
	}
	var c channelInfo
	if err := s.client.Do(rest.GetChannel.Compile(nil, cid), nil, &c, rest.WithCtx(ctx)); err != nil {
		return channelInfo{}, fmt.Errorf("discord: get channel %s: %w", id, err)
	}
	return c, nil
}

// Permanent reports whether a send error cannot be fixed by retrying: a
// bad target, or a 4xx answer other than 429 (unknown channel, missing
// permissions, a refused token).
func Permanent(err error) bool {
	if errors.Is(err, ErrBadTarget) {
		return true
	}
	var re rest.Error // disgo returns it as a value
	if errors.As(err, &re) && re.Response != nil {
		c := re.Response.StatusCode
		return c >= 400 && c < 500 && c != http.StatusTooManyRequests && c != http.StatusRequestTimeout
	}
	return false
}
