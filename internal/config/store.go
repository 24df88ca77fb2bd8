package config

import (
	"net/url"
	"path/filepath"
	"strings"
)

// checkStore validates `store` and `transcripts`.
func (c *Config) checkStore(v *checker) {
	st := c.Store
	v.oneOf("store.driver", st.Driver, StoreSQLite, StorePostgres)
	switch st.Driver {
	case StoreSQLite:
		if st.URL != "" {
			v.add("store.url", "is only for the postgres driver (sqlite keeps <state-dir>/switchboard.db)")
		}
	case StorePostgres:
		if st.URL == "" {
			v.add("store.url", `is required with store.driver "postgres" (e.g. "${DATABASE_URL}")`)
			break
		}
		u, err := url.Parse(st.URL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			v.add("store.url", "must be a postgres:// or postgresql:// URL")
		} else if missing := MissingPostgresURLParts(u); missing != "" {
			// Without a host the driver tries the local socket, and without
			// a database the user's name: refuse here, not at first connect.
			v.add("store.url", "needs %s (postgres://user@host/db)", missing)
		}
		// Several gateways share a PostgreSQL store, and each has its own
		// state dir: a mirror there would scatter one transcript over
		// several machines' disks, silently incomplete on each.
		if c.Transcripts.MirrorOn() && c.Transcripts.Dir == "" {
			v.add("transcripts", `with store.driver "postgres" set transcripts.dir to a directory every gateway shares, or transcripts.mirror: false (the mirror would otherwise be split over each gateway's state dir)`)
		}
	}
	if d := c.Transcripts.Dir; d != "" {
		if !filepath.IsAbs(d) {
			v.add("transcripts.dir", "must be an absolute path (got %q)", d)
		}
		if !c.Transcripts.MirrorOn() {
			v.add("transcripts.dir", "is set but transcripts.mirror is false")
		}
	}
}

// MissingPostgresURLParts names what a postgres URL lacks ("a host", "a
// database" or both, "" for neither), so the problem points at the part to
// add. A host or dbname given as a query parameter (?host=/run/postgresql)
// counts. store.url and `switchboard migrate` both check with it.
func MissingPostgresURLParts(u *url.URL) string {
	q := u.Query()
	host := u.Hostname() != "" || q.Get("host") != ""
	db := strings.Trim(u.Path, "/") != "" || q.Get("dbname") != ""
	switch {
	case !host && !db:
		return "a host and a database"
	case !host:
		return "a host"
	case !db:
		return "a database"
	}
	return ""
}
