package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One size with both files gives a table with the ratio of the p50s and a
// chart file; a size with only OpenClaw's file is skipped.
func TestRunTableAndChart(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("openclaw-n10.json", `{"openclawVersion":"x","ms":{"listAllWarm":{"n":3,"p50":50},"updateEntrySequential":{"n":3,"p50":2}},
		"memMB":{"rssAfterList":100,"rssPeakMaxRss":200},"disk":{"sessionsDirBytes":1048576}}`)
	write("switchboard-n10.json", `{"listAll":{"n":3,"p50":0.5},"updateEntrySequential":{"n":3,"p50":4},"memMB":{"rss":10,"peak":20},"disk":2097152,
		"mirrorDisk":1048576,"import":{"messages":500,"seconds":1}}`)
	write("openclaw-n20.json", `{"ms":{}}`)
	out := filepath.Join(t.TempDir(), "chart.png")
	var table bytes.Buffer
	if err := run(dir, out, &table); err != nil {
		t.Fatal(err)
	}
	got := table.String()
	for _, want := range []string{"| list all | 50.0 | 0.500 | 100× |", "| update a session entry | 2.0 | 4.0 | 0.5× |", "500 messages in 1.0 s",
		"| disk per message, bytes (switchboard: the store alone) | 2097 | 4194 | 0.5× |",
		"| disk per message, bytes (switchboard: store + JSONL mirror, the default) | 2097 | 6291 | 0.3× |"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "20 sessions") {
		t.Errorf("size without switchboard's results in the table:\n%s", got)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Fatalf("chart not written: %v", err)
	}
}

func TestRunNoResults(t *testing.T) {
	if err := run(t.TempDir(), filepath.Join(t.TempDir(), "c.png"), &bytes.Buffer{}); err == nil {
		t.Fatal("empty dir accepted")
	}
}
