package channels

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Pairing limits (OpenClaw's): a code has 8 characters, lives an hour,
// and an account has at most 3 pending at once.
const (
	PairingCodeLen     = 8
	PairingTTL         = time.Hour
	PairingMaxPending  = 3
	pairingCodeLetters = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" // no 0/O, 1/I
)

// ErrPairingFull refuses a code while an account has PairingMaxPending.
var ErrPairingFull = errors.New("too many pending pairing requests (at most 3 per account)")

// ErrNoPairingCode is an approve or dismiss of a code that is not pending.
var ErrNoPairingCode = errors.New("no pending pairing request with that code")

// PairingRequest is one pending request (OpenClaw's
// `channels.pairing.list` entry).
type PairingRequest struct {
	Channel   string `json:"channel"`
	AccountID string `json:"accountId"`
	SenderID  string `json:"id"`
	Name      string `json:"name,omitempty"`
	Code      string `json:"code"`
	CreatedAt int64  `json:"createdAt"`
	ExpiresAt int64  `json:"expiresAt"`
}

// pairingFile is the file's content.
type pairingFile struct {
	Requests []PairingRequest `json:"requests"`
	// Approved maps "<channel>:<account>" to approved sender ids.
	Approved map[string][]string `json:"approved"`
}

// Pairing keeps pairing requests and approved senders in one JSON file
// of the state dir, read on each use so that an approval by another
// process (the CLI beside the gateway) takes effect at once.
type Pairing struct {
	path string
	now  func() time.Time
	mu   sync.Mutex
}

// NewPairing opens (lazily) the pairing file at path.
func NewPairing(path string) *Pairing { return &Pairing{path: path, now: time.Now} }

func (p *Pairing) load() (pairingFile, error) {
	var f pairingFile
	b, err := os.ReadFile(p.path)
	if os.IsNotExist(err) {
		return pairingFile{Approved: map[string][]string{}}, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %w", p.path, err)
	}
	if f.Approved == nil {
		f.Approved = map[string][]string{}
	}
	now := p.now().UnixMilli()
	f.Requests = slices.DeleteFunc(f.Requests, func(r PairingRequest) bool { return r.ExpiresAt <= now })
	return f, nil
}

func (p *Pairing) save(f pairingFile) error {
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp := p.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p.path)
}

func approvedKey(channel, account string) string { return channel + ":" + normAccount(account) }

// Approved reports whether a sender was approved on a channel account.
func (p *Pairing) Approved(channel, account, sender string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.load()
	if err != nil {
		return false
	}
	return slices.Contains(f.Approved[approvedKey(channel, account)], sender)
}

// Request returns the pending code of a sender, creating one (fresh) when
// it has none; ErrPairingFull when the account has too many pending.
func (p *Pairing) Request(channel, account, sender, name string) (string, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.load()
	if err != nil {
		return "", false, err
	}
	account = normAccount(account)
	pending := 0
	for _, r := range f.Requests {
		if r.Channel == channel && r.AccountID == account {
			if r.SenderID == sender {
				return r.Code, false, nil
			}
			pending++
		}
	}
	if pending >= PairingMaxPending {
		return "", false, ErrPairingFull
	}
	code, err := newPairingCode()
	if err != nil {
		return "", false, err
	}
	now := p.now()
	f.Requests = append(f.Requests, PairingRequest{Channel: channel, AccountID: account, SenderID: sender, Name: name,
		Code: code, CreatedAt: now.UnixMilli(), ExpiresAt: now.Add(PairingTTL).UnixMilli()})
	return code, true, p.save(f)
}

// List returns the pending requests of a channel ("" for every channel).
func (p *Pairing) List(channel string) ([]PairingRequest, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.load()
	if err != nil {
		return nil, err
	}
	out := []PairingRequest{}
	for _, r := range f.Requests {
		if channel == "" || r.Channel == channel {
			out = append(out, r)
		}
	}
	return out, nil
}

// Approve approves the sender of a pending code and removes the request.
func (p *Pairing) Approve(channel, code string) (PairingRequest, error) {
	return p.resolve(channel, code, true)
}

// Dismiss removes a pending request without approving its sender.
func (p *Pairing) Dismiss(channel, code string) (PairingRequest, error) {
	return p.resolve(channel, code, false)
}

func (p *Pairing) resolve(channel, code string, approve bool) (PairingRequest, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := p.load()
	if err != nil {
		return PairingRequest{}, err
	}
	code = strings.ToUpper(strings.TrimSpace(code))
	for i, r := range f.Requests {
		if r.Channel == channel && r.Code == code {
			f.Requests = slices.Delete(f.Requests, i, i+1)
			if approve {
				k := approvedKey(r.Channel, r.AccountID)
				if !slices.Contains(f.Approved[k], r.SenderID) {
					f.Approved[k] = append(f.Approved[k], r.SenderID)
				}
			}
			return r, p.save(f)
		}
	}
	return PairingRequest{}, ErrNoPairingCode
}

func newPairingCode() (string, error) {
	b := make([]byte, PairingCodeLen)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = pairingCodeLetters[int(b[i])%len(pairingCodeLetters)]
	}
	return string(b), nil
}
