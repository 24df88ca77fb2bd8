// Command benchchart turns the side-by-side store benchmark's JSON results
// (docs/bench/openclaw/openclaw-nN.json and switchboard-nN.json, written by
// test/openclawbench/run.sh) into the Markdown table of
// docs/benchmarks.md (on stdout) and a chart of the speed-up per operation
// and store size (an SVG or PNG, by the -out extension).
//
//	go run ./cmd/benchchart -dir docs/bench/openclaw -out docs/bench-openclaw.svg > table.md
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"gonum.org/v1/plot/vg"
)

func main() {
	dir := flag.String("dir", "docs/bench/openclaw", "the `DIR` holding openclaw-nN.json and switchboard-nN.json")
	out := flag.String("out", "docs/bench-openclaw.svg", "write the chart to `FILE` (.svg or .png)")
	flag.Parse()
	if err := run(*dir, *out, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchchart:", err)
		os.Exit(1)
	}
}

func run(dir, out string, w io.Writer) error {
	sizes, err := loadResults(dir)
	if err != nil {
		return err
	}
	if err := writeTable(w, sizes); err != nil {
		return err
	}
	p, err := speedupChart(sizes)
	if err != nil {
		return err
	}
	return p.Save(9*vg.Inch, 4.5*vg.Inch, out)
}
