package rowcodec

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// searchSep joins the searchable fields so a match cannot span two of them.
const searchSep = "\x1f"

// searchText is what SessionQuery.Search matches. Go lower-cases it, so
// the match is case-insensitive beyond ASCII (SQLite's lower() is not).
func searchText(s *domain.Session) string {
	return strings.ToLower(s.Key + searchSep + s.Label + searchSep + s.DisplayName)
}
