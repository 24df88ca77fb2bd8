package channels

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// SplitText cuts text into pieces of at most limit characters (runes),
// each cut at the last paragraph break, else line break, else space
// inside the limit, else at the limit. limit <= 0 means no limit.
func SplitText(text string, limit int) []string {
	if limit <= 0 || utf8.RuneCountInString(text) <= limit {
		return []string{text}
	}
	var out []string
	rest := text
	for utf8.RuneCountInString(rest) > limit {
		// byte offset of the limit-th rune
		cut, n := 0, 0
		for i := range rest {
			if n == limit {
				cut = i
				break
			}
			n++
		}
		head := rest[:cut]
		at := -1
		for _, sep := range []string{"\n\n", "\n", " "} {
			if i := strings.LastIndex(head, sep); i > len(head)/2 {
				at = i
				break
			}
		}
		if at <= 0 {
			out = append(out, head)
			rest = rest[cut:]
			continue
		}
		out = append(out, strings.TrimRight(head[:at], " \n"))
		rest = strings.TrimLeft(rest[at:], " \n")
	}
	if strings.TrimSpace(rest) != "" {
		out = append(out, rest)
	}
	return out
}

// ResolveSecret reads OpenClaw's secret input: a string, or a reference
// {source: "env"|"file", provider, id}. nil is "".
func ResolveSecret(v any, getenv func(string) string) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return strings.TrimSpace(x), nil
	case map[string]any:
		src, _ := x["source"].(string)
		id, _ := x["id"].(string)
		switch src {
		case "env":
			s := strings.TrimSpace(getenv(id))
			if s == "" {
				return "", fmt.Errorf("environment variable %s is not set", id)
			}
			return s, nil
		case "file":
			b, err := os.ReadFile(id)
			if err != nil {
				return "", err
			}
			return strings.TrimSpace(string(b)), nil
		}
		return "", fmt.Errorf("secret source %q is not supported here (use env or file)", src)
	}
	return "", fmt.Errorf("want a string or a secret reference")
}

// Sleep waits d or until ctx ends; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// PairingText is the answer to an unknown direct sender under dmPolicy
// "pairing": their id and the code the owner approves.
func PairingText(label, channel, senderID, code string) string {
	return "switchboard: access not configured.\n\nYour " + label + " id: " + senderID +
		"\n\nPairing code: " + code + "\n\nAsk the bot owner to approve with:\nswitchboard pairing approve " + channel + " " + code
}

// IDString renders an allowFrom entry (a number or a string).
func IDString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return fmt.Sprintf("%.0f", x)
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

// Progress remembers how many pieces of a split message a provider has
// accepted, by outbox idempotency key, so that a retried delivery resumes
// after them instead of posting them again (within one process).
type Progress struct {
	mu sync.Mutex
	m  map[string]int
}

// Done returns how many pieces of key were sent.
func (p *Progress) Done(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[key]
}

// Set records n pieces of key sent; n == 0 forgets key (the message is
// complete or was never started).
func (p *Progress) Set(key string, n int) {
	if key == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]int{}
	}
	if n == 0 {
		delete(p.m, key)
		return
	}
	p.m[key] = n
}
