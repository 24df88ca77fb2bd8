package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

type attachment struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

type params struct {
	Limit       *int64         `json:"limit"`
	Wait        float64        `json:"wait"`
	Deliver     bool           `json:"deliver"`
	Kinds       []string       `json:"kinds"`
	Attachments []attachment   `json:"attachments"`
	Counts      map[string]int `json:"counts"`
	Budget      *struct {
		Tokens int64 `json:"tokens"`
	} `json:"budget"`
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name, prefix, data, want string
	}{
		{"string for a number", "", `{"limit":"ten"}`, "limit must be a number (got a string)"},
		{"fraction for a whole number", "", `{"limit": 1.5 }`, "limit must be a whole number (got 1.5)"},
		{"number out of range", "", `{"limit":99999999999999999999}`, "limit must be a whole number in range (got 99999999999999999999)"},
		{"string for a float", "", `{"wait":"soon"}`, "wait must be a number (got a string)"},
		{"number for a boolean", "", `{"deliver":1}`, "deliver must be a boolean (got a number)"},
		{"string for an array", "", `{"kinds":"main"}`, "kinds must be an array of strings (got a string)"},
		{"number in an array", "", `{"kinds":["main",2]}`, "kinds[1] must be a string (got a number)"},
		{"entry field", "", `{"attachments":[{"name":"a","content":"x"},{"name":"b","content":5}]}`, "attachments[1].content must be a string (got a number)"},
		{"entry field an array", "", `{"attachments":[{"content":"x"},{"content":[1,2]}]}`, "attachments[1].content must be a string (got an array)"},
		{"entry not an object", "", `{"attachments":[{"content":"x"}, 7]}`, "attachments[1] must be an object (got a number)"},
		{"object for an array", "", `{"attachments":{"a":1}}`, "attachments must be an array (got an object)"},
		{"map value", "", `{"counts":{"a":1,"b":"x"}}`, "counts.b must be a number (got a string)"},
		{"nested object", "", `{"budget":{"tokens":"many"}}`, "budget.tokens must be a number (got a string)"},
		{"under a prefix", "attachments", `[{"content":"x"},{"content":false}]`, "attachments[1].content must be a string (got a boolean)"},
		{"keys with escapes before", "", `{"x\"y":[1,{"a":[]}],"limit":true}`, "limit must be a number (got a boolean)"},
		{"array at the top", "", `[1]`, "value must be an object (got an array)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p params
			var dst any = &p
			if tc.prefix == "attachments" {
				dst = &p.Attachments
			}
			err := json.Unmarshal([]byte(tc.data), dst)
			if err == nil {
				t.Fatalf("no error decoding %s", tc.data)
			}
			if got := Describe(tc.prefix, []byte(tc.data), err); got != tc.want {
				t.Errorf("Describe(%s) = %q, want %q", tc.data, got, tc.want)
			}
		})
	}
}

func TestDescribeOtherErrors(t *testing.T) {
	var p params
	dec := json.NewDecoder(strings.NewReader(`{"colour":"red"}`))
	dec.DisallowUnknownFields()
	if got := Describe("", nil, dec.Decode(&p)); got != `unknown field "colour"` {
		t.Errorf("unknown field: %q", got)
	}
	err := json.Unmarshal([]byte(`{"limit":`), &p)
	if got := Describe("", nil, err); strings.Contains(got, "json:") || !strings.HasPrefix(got, "not valid JSON") {
		t.Errorf("truncated: %q", got)
	}
	err = json.Unmarshal([]byte(`{"limit":x}`), &p)
	if got := Describe("", nil, err); !strings.HasPrefix(got, "not valid JSON: invalid character 'x'") {
		t.Errorf("syntax: %q", got)
	}
}
