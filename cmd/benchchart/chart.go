package main

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// speedupChart draws, per operation, one bar per store size: how many
// times faster switchboard's p50 is than OpenClaw's. Bars are log10 of
// the ratio on a linear axis labelled 1×, 10×, 100×… (a bar chart cannot
// start at 0 on a log axis); a bar below the line means switchboard is
// slower.
func speedupChart(sizes []size) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "switchboard vs OpenClaw session store: speed-up of p50 (OpenClaw ÷ switchboard)"
	p.Y.Label.Text = "times faster (log scale)"
	p.Y.Tick.Marker = powersOfTen{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Add(plotter.NewGrid()) // first, so the bars cover it

	names := make([]string, len(operations))
	for i, op := range operations {
		names[i] = op.Short
	}
	width := vg.Points(72 / float64(len(sizes)))
	palette := []color.Color{
		color.RGBA{R: 0x4c, G: 0x72, B: 0xb0, A: 0xff},
		color.RGBA{R: 0xdd, G: 0x84, B: 0x52, A: 0xff},
		color.RGBA{R: 0x55, G: 0xa8, B: 0x68, A: 0xff},
		color.RGBA{R: 0x81, G: 0x72, B: 0xb3, A: 0xff},
	}
	lo, hi := 0.0, 1.0
	for i, s := range sizes {
		vals := make(plotter.Values, len(operations))
		for j, op := range operations {
			oc, sb := s.OC.Ms[op.OC].P50, s.SB.stat(op.SB).P50
			if oc > 0 && sb > 0 {
				vals[j] = math.Log10(oc / sb)
			}
			lo, hi = math.Min(lo, vals[j]), math.Max(hi, vals[j])
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		bars.Color = palette[i%len(palette)]
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(float64(i)-float64(len(sizes)-1)/2)
		p.Add(bars)
		p.Legend.Add(fmt.Sprintf("%d sessions", s.N), bars)
	}
	// Headroom above the tallest bar for the legend.
	p.Y.Min, p.Y.Max = math.Floor(lo), math.Ceil(hi)+0.6
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(operations))-0.4
	return p, nil
}

// powersOfTen labels a log10 axis with 1×, 10×, 100×….
type powersOfTen struct{}

func (powersOfTen) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(min); e <= max; e++ {
		label := fmt.Sprintf("%g×", math.Pow(10, e))
		if e >= 0 {
			label = fmt.Sprintf("%.0f×", math.Pow(10, e)) // 1000000×, not 1e+06×
		}
		ticks = append(ticks, plot.Tick{Value: e, Label: label})
	}
	return ticks
}
