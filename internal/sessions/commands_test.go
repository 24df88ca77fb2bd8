package sessions

import "testing"

func TestResetRemainder(t *testing.T) {
	for _, tc := range []struct {
		msg, rest string
		ok        bool
	}{
		{"/new hello there", "hello there", true},
		{"  /RESET\tplan the trip ", "plan the trip", true},
		{"/new", "", false},
		{"/new   ", "", false},
		{"/stop now", "", false},
		{"/newer text", "", false},
		{"hello /new", "", false},
	} {
		if rest, ok := ResetRemainder(tc.msg); rest != tc.rest || ok != tc.ok {
			t.Errorf("ResetRemainder(%q) = %q, %v; want %q, %v", tc.msg, rest, ok, tc.rest, tc.ok)
		}
	}
}
