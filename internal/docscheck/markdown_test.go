package docscheck

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Chat turns", "chat-turns"},
		{"Side by side with OpenClaw's session store", "side-by-side-with-openclaws-session-store"},
		{"PostgreSQL and replicas", "postgresql-and-replicas"},
		{"`switchboard bench chat [--sessions N] [--seconds S] [--concurrency C] [--out FILE.json]`",
			"switchboard-bench-chat---sessions-n---seconds-s---concurrency-c---out-filejson"},
		{"Visibility: `tree` is transitive; the sandbox clamp never widens", "visibility-tree-is-transitive-the-sandbox-clamp-never-widens"},
		{"`sessions_list` with `messageLimit`", "sessions_list-with-messagelimit"},
		{"A [link](x.md) and **bold**", "a-link-and-bold"},
		{"Café — déjà vu", "café--déjà-vu"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

func TestAnchorsNumberRepeats(t *testing.T) {
	got := anchors([]string{"Tests", "Tests", "Other", "Tests"})
	want := map[string]bool{"tests": true, "tests-1": true, "other": true, "tests-2": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
}

func TestParse(t *testing.T) {
	text := "# Title\n" +
		"See [a](a.md#x), ![img](p.png \"t\") and `[not](a link)`.\n" +
		"```sh\n" +
		"# [not a heading](nor.md)\n" +
		"run me\n" +
		"```\n" +
		"## Next ##\n" +
		"~~~json5\n{}\n~~~\n"
	d := parse(text)
	if diff := cmp.Diff([]string{"Title", "Next"}, d.headings); diff != "" {
		t.Errorf("headings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]link{{2, "a.md#x"}, {2, "p.png"}}, d.links, cmp.AllowUnexported(link{})); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	want := []block{{line: 3, info: "sh", lines: []string{"# [not a heading](nor.md)", "run me"}}, {line: 8, info: "json5", lines: []string{"{}"}}}
	if diff := cmp.Diff(want, d.blocks, cmp.AllowUnexported(block{})); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}

func TestShCommands(t *testing.T) {
	text := "```sh\n" +
		"go build -o switchboard ./cmd/switchboard\n" +
		"./switchboard chat main \"a # b\"   # a comment\n" +
		"\n" +
		"# a comment line\n" +
		"go run ./cmd/switchboard gateway   # (illustrative) serves until stopped\n" +
		"go run ./cmd/switchboard demo\n" +
		"```\n" +
		"```sh illustrative\n" +
		"bash .ci/run\n" +
		"```\n" +
		"```json5\n{}\n```\n"
	got := shCommands(parse(text))
	want := []command{{3, `./switchboard chat main "a # b"`}, {7, "./switchboard demo"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(command{})); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}

func TestExternal(t *testing.T) {
	for target, want := range map[string]bool{
		"https://example.com/x": true, "mailto:a@b": true, "docs/x.md": false, "#anchor": false,
	} {
		if got := external(target); got != want {
			t.Errorf("external(%q) = %v, want %v", target, got, want)
		}
	}
}
