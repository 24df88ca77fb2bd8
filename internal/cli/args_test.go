package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlags(t *testing.T) {
	type got struct {
		Pos   []string
		Limit int
		JSON  bool
		Label string
		Tags  []string
	}
	tests := []struct {
		name    string
		args    []string
		stop    bool
		want    got
		wantErr string
	}{
		{name: "flags after positionals", args: []string{"main", "hi", "--json", "--limit", "3"},
			want: got{Pos: []string{"main", "hi"}, Limit: 3, JSON: true}},
		{name: "flags before and between", args: []string{"--limit=4", "main", "-json", "hi"},
			want: got{Pos: []string{"main", "hi"}, Limit: 4, JSON: true}},
		{name: "double dash ends flags", args: []string{"main", "--", "--json", "-x"},
			want: got{Pos: []string{"main", "--json", "-x"}}},
		{name: "negative number is a value", args: []string{"--limit", "-1"}, want: got{Limit: -1}},
		{name: "bool with explicit value", args: []string{"--json=false", "x"}, want: got{Pos: []string{"x"}}},
		{name: "empty value", args: []string{"--label", "", "x"}, want: got{Pos: []string{"x"}}},
		{name: "repeatable", args: []string{"--tag", "a", "x", "--tag", "b,c"}, want: got{Pos: []string{"x"}, Tags: []string{"a", "b,c"}}},
		{name: "dash alone is positional", args: []string{"-"}, want: got{Pos: []string{"-"}}},
		{name: "stop at command", args: []string{"--json", "chat", "--limit", "2"}, stop: true,
			want: got{Pos: []string{"chat", "--limit", "2"}, JSON: true}},
		{name: "unknown flag", args: []string{"x", "--bogus"}, wantErr: "unknown flag --bogus"},
		{name: "missing value", args: []string{"--limit"}, wantErr: "flag --limit needs a value"},
		{name: "not a number", args: []string{"--limit", "ten"}, wantErr: `--limit must be a whole number (got "ten")`},
		{name: "out of range", args: []string{"--limit", "99999999999999999999"}, wantErr: "--limit is out of range"},
		{name: "help", args: []string{"x", "--help"}, wantErr: errHelp.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var limit intFlag
			var tags listFlag
			fs.Var(&limit, "limit", "")
			fs.Var(&tags, "tag", "")
			j := fs.Bool("json", false, "")
			label := fs.String("label", "", "")
			pos, err := parseFlags(fs, tt.args, tt.stop)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if tt.wantErr == errHelp.Error() && !errors.Is(err, errHelp) {
					t.Fatalf("err = %v, want errHelp", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := got{Pos: pos, Limit: limit.v, JSON: *j, Label: *label, Tags: tags.v}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestListFlagSplit(t *testing.T) {
	f := listFlag{split: true}
	for _, v := range []string{"main, group", "", "cron,"} {
		if err := f.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"main", "group", "cron"}, f.v); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
