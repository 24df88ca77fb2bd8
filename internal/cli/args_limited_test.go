package cli

import (
	"bytes"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
)

// TestLimitedNoteNamesTheFlagsDefault: a clamped flag's note names the
// command's default, which may differ from the limit's (chat --wait is
// 120 s by default on the wait limit whose default is 30 s).
func TestLimitedNoteNamesTheFlagsDefault(t *testing.T) {
	tests := []struct {
		name     string
		flag     string
		v        int
		limit    api.Limit
		def      int
		want     int
		wantNote string
	}{
		{name: "chat wait", flag: "wait", v: 4000, limit: api.WaitTimeout, def: 120, want: 3600,
			wantNote: "note: --wait 4000 is out of range (0..3600 seconds, default 120); using 3600\n"},
		{name: "runs wait", flag: "timeout", v: 4000, limit: api.WaitTimeout, def: 30, want: 3600,
			wantNote: "note: --timeout 4000 is out of range (0..3600 seconds, default 30); using 3600\n"},
		{name: "engine default kept", flag: "timeout", v: 4000, limit: api.SendTimeout, def: 0, want: 3600,
			wantNote: "note: --timeout 4000 is out of range (0..3600 seconds, default 30); using 3600\n"},
		{name: "in range, no note", flag: "wait", v: 10, limit: api.WaitTimeout, def: 120, want: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			e := &env{stderr: &stderr}
			f := intFlag{v: tt.v, set: true}
			got, err := e.limited(tt.flag, &f, tt.limit, tt.def)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || stderr.String() != tt.wantNote {
				t.Errorf("limited = %d, note %q; want %d, %q", got, stderr.String(), tt.want, tt.wantNote)
			}
		})
	}
}
