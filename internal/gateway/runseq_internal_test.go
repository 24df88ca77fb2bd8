package gateway

import "testing"

func TestRunSeqsStamp(t *testing.T) {
	r := runSeqs{}
	cases := []struct {
		name, runID, payload, want string
	}{
		{"first event of a run", "a", `{"runId":"a","stream":"lifecycle"}`, `{"seq":1,"runId":"a","stream":"lifecycle"}`},
		{"next event of the run", "a", `{"runId":"a"}`, `{"seq":2,"runId":"a"}`},
		{"another run counts on its own", "b", `{"runId":"b"}`, `{"seq":1,"runId":"b"}`},
		{"an empty object", "a", `{}`, `{"seq":3}`},
		{"no run: unchanged", "", `{"x":1}`, `{"x":1}`},
		{"not an object: unchanged", "a", `[1]`, `[1]`},
	}
	for _, tc := range cases {
		got := string(r.stamp(tc.runID, []byte(tc.payload)))
		if got != tc.want {
			t.Errorf("%s: stamp = %s, want %s", tc.name, got, tc.want)
		}
	}
}
