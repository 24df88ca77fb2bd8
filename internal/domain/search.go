package domain

import "context"

// MessageSearch selects transcript messages by their words, for
// sessions_search. Only messages of a session's current generation match
// (a reset or deleted session's old transcript is not searched). Results
// come back newest first (the order messages were stored in), so a page
// boundary is a stable cursor and a LIMIT stops the scan early.
//
// The visibility fields are the caller's pre-filter: the store returns
// only rows inside them, so a session outside never appears, not even as a
// count. Zero fields do not filter.
type MessageSearch struct {
	// Words must all occur in the message's indexed text (AND). Each word
	// matches whole tokens, case- and diacritic-insensitive; a word made
	// of several tokens ("e-mail") matches them as a phrase. Required.
	Words []string
	// Keys, when non-nil, keeps messages of these session keys only (an
	// empty non-nil slice matches nothing).
	Keys []string
	// TreeRoot keeps the root and every session spawned from it,
	// transitively (as SessionQuery.TreeRoot).
	TreeRoot string
	// AgentIDs keeps sessions of these agents.
	AgentIDs []string
	// Kinds keeps sessions of these stored kinds.
	Kinds []string
	// Since keeps messages with Timestamp >= Since (Unix ms).
	Since int64
	// Before is a cursor: only hits strictly older than this position
	// (SearchHit.Position of the last hit of the previous page); 0 = none.
	Before int64
	// Limit is the most hits returned (required, > 0).
	Limit int
	// Scan, when > 0, is the most index matches the store examines for
	// this page: matches inside Keys or TreeRoot that a filter (agent,
	// kind, time, an old generation) drops count too. At the cap the
	// store stops and returns SearchPage.Next, so no request's work grows
	// with matches it may not return. 0 = no cap (store-internal callers).
	Scan int
}

// SearchPage is what one MessageSearch returns.
type SearchPage struct {
	// Hits are the matches, newest first, at most Limit.
	Hits []SearchHit
	// Scanned counts the index matches the store examined (hits and the
	// matches its filters dropped); matches outside Keys or TreeRoot are
	// not read and do not count.
	Scanned int
	// Next, when > 0, is where the scan stopped at Scan before Limit hits
	// were found: the Before of the rest.
	Next int64
}

// SearchHit is one message a MessageSearch found.
type SearchHit struct {
	SessionKey string
	SessionID  string
	MessageID  string
	Seq        int64
	Role       string
	Timestamp  int64
	// Snippet is the indexed (masked) text around the first match.
	Snippet string
	// Position orders hits (newest first) and is the cursor of the next
	// page; it means nothing else.
	Position int64
}

// MessageSearcher is the full-text read of a store. Every domain.Store
// implements it (the SQLite store with FTS5; a PostgreSQL store with
// tsvector), and store/storetest checks it backend-neutrally.
type MessageSearcher interface {
	SearchMessages(ctx context.Context, q MessageSearch) (SearchPage, error)
}
