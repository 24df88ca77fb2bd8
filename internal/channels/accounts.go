package channels

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// AccountBlock is one account's config block: the channel block's keys
// with the account's own laid over them (OpenClaw's account inheritance).
type AccountBlock struct {
	ID  string
	Raw map[string]any
}

// AccountBlocks resolves the accounts of a flat channel block: each
// `accounts.<id>` over the top-level keys, or the block alone as
// DefaultAccountID when it has no accounts. Ids are lowercased, sorted.
func AccountBlocks(raw map[string]any) []AccountBlock {
	base := map[string]any{}
	for k, v := range raw {
		if k != "accounts" && k != "defaultAccount" {
			base[k] = v
		}
	}
	accts, _ := raw["accounts"].(map[string]any)
	if len(accts) == 0 {
		return []AccountBlock{{ID: DefaultAccountID, Raw: base}}
	}
	ids := make([]string, 0, len(accts))
	for id := range accts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]AccountBlock, 0, len(ids))
	for _, id := range ids {
		own, _ := accts[id].(map[string]any)
		m := make(map[string]any, len(base)+len(own))
		for k, v := range base {
			m[k] = v
		}
		for k, v := range own {
			m[k] = v
		}
		out = append(out, AccountBlock{ID: strings.ToLower(id), Raw: m})
	}
	return out
}

// Decode decodes a raw block into a typed view, naming path in errors.
func Decode(path string, raw map[string]any, into any) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// NoEffect lists the keys of a raw channel block (and of its accounts)
// that are accepted but do nothing, as key paths under prefix, sorted.
func NoEffect(prefix string, raw map[string]any, effect map[string]bool) []string {
	var out []string
	for k, v := range raw {
		switch {
		case k == "accounts":
			m, _ := v.(map[string]any)
			for id, a := range m {
				if am, ok := a.(map[string]any); ok {
					out = append(out, NoEffect(prefix+".accounts."+id, am, effect)...)
				}
			}
		case k == "defaultAccount":
		case !effect[k]:
			out = append(out, prefix+"."+k)
		}
	}
	sort.Strings(out)
	return out
}

// Listen serves h on addr until Close; the server's goroutine joins wg.
// It is the webhook listener of the providers that push to switchboard.
func Listen(addr string, h http.Handler, wg *sync.WaitGroup, log *slog.Logger) (*http.Server, net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("webhook listener: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("webhook listener", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return srv, ln.Addr(), nil
}
