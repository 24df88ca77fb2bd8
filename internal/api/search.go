package api

// SearchRequest are sessions_search's parameters.
type SearchRequest struct {
	// Query is split into words (runs of letters and digits); a message
	// matches when its text holds every word (AND).
	Query string
	// Kinds keeps sessions of these kinds (as sessions_list's kinds).
	Kinds []string
	// AgentID keeps sessions of this agent.
	AgentID string
	// SinceMinutes keeps messages stored within this many minutes; 0 = any.
	SinceMinutes int
	// Limit is the most results of one page (SearchLimit).
	Limit int
	// Cursor continues from a previous page's NextCursor.
	Cursor string
}

// SearchResult is the payload of sessions_search: one page of matching
// messages, newest first.
type SearchResult struct {
	Count   int         `json:"count"`
	Results []SearchHit `json:"results"`
	// NextCursor is set when more results may follow; pass it back as
	// cursor for the next page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// SearchHit is one matching message. SessionKey is shown like other tool
// results (the requester's own main as "main").
type SearchHit struct {
	SessionKey string `json:"sessionKey"`
	SessionID  string `json:"sessionId"`
	MessageID  string `json:"messageId"`
	Role       string `json:"role"`
	Timestamp  int64  `json:"timestamp"`
	// Snippet is the masked text (as sessions_history shows it) around the
	// first match.
	Snippet string `json:"snippet"`
}
