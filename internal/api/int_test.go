package api

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/jsonerr"
)

func TestIntDecodes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{in: `50`, want: 50},
		{in: `-3`, want: -3},
		{in: `50.0`, want: 50},
		{in: `5e1`, want: 50},
		{in: `1e20`, want: math.MaxInt64},
		{in: `100000000000000000000`, want: math.MaxInt64},
		{in: `-1e400`, want: math.MinInt64},
		{in: `1.5`, err: "limit must be a whole number (got 1.5)"},
		{in: `"5"`, err: "limit must be a number (got a string)"},
		{in: `true`, err: "limit must be a number"},
		{in: `{}`, err: "limit must be a number"},
	}
	for _, tt := range tests {
		var p struct {
			Limit *Int `json:"limit"`
		}
		body := []byte(`{"limit":` + tt.in + `}`)
		err := json.Unmarshal(body, &p)
		if tt.err != "" {
			if err == nil {
				t.Errorf("%s: decoded %v, want an error", tt.in, *p.Limit)
				continue
			}
			if got := jsonerr.Describe("", body, err); !strings.Contains(got, tt.err) {
				t.Errorf("%s: error %q, want it to contain %q", tt.in, got, tt.err)
			}
			continue
		}
		if err != nil || p.Limit == nil || int64(*p.Limit) != tt.want {
			t.Errorf("%s: got %v, %v; want %d", tt.in, p.Limit, err, tt.want)
		}
	}
	var p struct {
		Limit *Int `json:"limit"`
	}
	if err := json.Unmarshal([]byte(`{"limit":null}`), &p); err != nil || p.Limit != nil || p.Limit.Int64() != nil {
		t.Errorf("null: %v, %v", p.Limit, err)
	}
}

func TestParseWholeClampsThroughLimit(t *testing.T) {
	n, err := ParseWhole("1e20")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := SessionsListLimit.Apply(n); err != nil || got != SessionsListLimit.Max {
		t.Errorf("a clamped limit of 1e20 = %d, %v; want %d", got, err, SessionsListLimit.Max)
	}
	for _, bad := range []string{"", "x", "1.5", "0x10", " 5", "NaN", "Inf"} {
		if _, err := ParseWhole(bad); err == nil {
			t.Errorf("ParseWhole(%q) accepted", bad)
		}
	}
}
