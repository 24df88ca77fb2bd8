package config

import (
	"slices"
	"strings"
	"testing"
)

func TestStoreConfig(t *testing.T) {
	getenv := env(map[string]string{"DATABASE_URL": "postgres://sb@db/sb"})
	bad := []struct {
		name, in, path, msg string
	}{
		{"driver enum", `{store: {driver: "mysql"}}`, "store.driver", `"mysql" is not one of sqlite, postgres`},
		{"url with sqlite", `{store: {url: "postgres://h/db"}}`, "store.url", "only for the postgres driver"},
		{"postgres without url", `{store: {driver: "postgres"}, transcripts: {mirror: false}}`, "store.url", "is required"},
		{"postgres without host", `{store: {driver: "postgres", url: "postgres:///db"}, transcripts: {mirror: false}}`, "store.url", "needs a host ("},
		{"postgres without database", `{store: {driver: "postgres", url: "postgres://h"}, transcripts: {mirror: false}}`, "store.url", "needs a database ("},
		{"postgres without either", `{store: {driver: "postgres", url: "postgres://"}, transcripts: {mirror: false}}`, "store.url", "needs a host and a database"},
		{"postgres bad scheme", `{store: {driver: "postgres", url: "mysql://h/db"}, transcripts: {mirror: false}}`, "store.url", "postgres://"},
		{"postgres mirror in state dir", `{store: {driver: "postgres", url: "${DATABASE_URL}"}}`, "transcripts", "transcripts.dir"},
		{"relative dir", `{transcripts: {dir: "t"}}`, "transcripts.dir", "absolute"},
		{"dir without mirror", `{transcripts: {mirror: false, dir: "/t"}}`, "transcripts.dir", "mirror is false"},
		{"unknown key", `{store: {drvier: "sqlite"}}`, "store.drvier", "unknown key"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			ps := parseProblems(t, tc.in, getenv)
			i := slices.IndexFunc(ps, func(p Problem) bool { return p.Path == tc.path })
			if i < 0 {
				t.Fatalf("problems %v: none at %s", ps, tc.path)
			}
			if !contains(ps[i].Message, tc.msg) {
				t.Errorf("%s: %q, want it to contain %q", tc.path, ps[i].Message, tc.msg)
			}
		})
	}
	good := map[string]string{
		"default":          `{}`,
		"postgres, shared": `{store: {driver: "postgres", url: "${DATABASE_URL}"}, transcripts: {dir: "/srv/t"}}`,
		"postgres, off":    `{store: {driver: "POSTGRES", url: "postgresql://h/db"}, transcripts: {mirror: false}}`,
	}
	for name, in := range good {
		cfg, err := Parse([]byte(in), getenv)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name == "default" && (cfg.Store.Driver != StoreSQLite || !cfg.Transcripts.MirrorOn()) {
			t.Errorf("default: store %+v mirror %v, want sqlite and the mirror on", cfg.Store, cfg.Transcripts.MirrorOn())
		}
		if name == "postgres, shared" && cfg.Store.URL != "postgres://sb@db/sb" {
			t.Errorf("store.url = %q, want ${DATABASE_URL} expanded", cfg.Store.URL)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
