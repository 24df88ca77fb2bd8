package bulk

// Generations tracks, while messages are imported in (key, seq) order,
// whether each generation's entry ids follow the id scheme of the stores
// (an id is a function of the seq and a salt the generation's first id
// gives away). A generation that does not is "legacy": its ids were drawn
// at random, and the store must check later ids against them.
type Generations struct {
	// salt is nil for a legacy generation.
	salt map[[2]string]*uint32
	// EntryID and EntrySalt are the stores' scheme (rowcodec.EntryID,
	// rowcodec.EntrySalt), passed in so this package depends on no store.
	EntryID   func(seq int64, salt uint32) string
	EntrySalt func(id string, seq int64) (uint32, bool)
}

// Check records m and reports whether its generation is legacy, and
// whether it just became so (its earlier ids must then be recorded too).
func (g *Generations) Check(m *Message) (legacy, became bool) {
	if g.salt == nil {
		g.salt = make(map[[2]string]*uint32)
	}
	k := [2]string{m.SessionKey, m.SessionID}
	s, seen := g.salt[k]
	if !seen {
		salt, ok := g.EntrySalt(m.ID, m.Seq)
		if !ok {
			g.salt[k] = nil
			return true, true
		}
		g.salt[k] = &salt
		return false, false
	}
	if s == nil {
		return true, false
	}
	if g.EntryID(m.Seq, *s) != m.ID {
		g.salt[k] = nil
		return true, true
	}
	return false, false
}
