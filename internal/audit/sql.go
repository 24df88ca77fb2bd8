package audit

import "strings"

// SelectSQL is the SELECT of columns from the audit_log table that q
// selects, without its LIMIT: the SQL both stores run, with ph naming
// their i-th parameter (from 1).
func SelectSQL(columns string, q Query, ph func(i int) string) (string, []any) {
	var b strings.Builder
	b.WriteString(`SELECT ` + columns + ` FROM audit_log WHERE `)
	var args []any
	if q.Desc {
		if q.Before > 0 {
			args = append(args, q.Before)
			b.WriteString(`seq < ` + ph(len(args)))
		} else {
			b.WriteString(`1 = 1`)
		}
	} else {
		args = append(args, q.After)
		b.WriteString(`seq > ` + ph(len(args)))
	}
	if len(q.Kinds) > 0 {
		b.WriteString(` AND kind IN (`)
		for i, k := range q.Kinds {
			if i > 0 {
				b.WriteString(`, `)
			}
			args = append(args, string(k))
			b.WriteString(ph(len(args)))
		}
		b.WriteString(`)`)
	}
	if q.Desc {
		b.WriteString(` ORDER BY seq DESC`)
	} else {
		b.WriteString(` ORDER BY seq`)
	}
	return b.String(), args
}
