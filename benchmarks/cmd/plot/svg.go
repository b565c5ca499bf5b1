package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"

	"github.com/floodgate-go/floodgate/benchmarks/cmd/internal/rounds"
)

// series is one library's line.
type series struct {
	name   string
	xs, ys []float64
}

// panel is one chart: lines over a log or linear x axis, y from 0.
type panel struct {
	title, xlabel, ylabel string
	logX                  bool
	series                []series
}

const (
	panelW, panelH = 440, 320
	left, right    = 64, 16
	top, bottom    = 32, 48
	legendW        = 130
)

var palette = []string{"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"}

// niceStep returns a round step (1, 2 or 5 × 10^k) giving about n ticks up
// to max.
func niceStep(max float64, n int) float64 {
	if max <= 0 {
		return 1
	}
	raw := max / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// short formats a tick label: 120000 is "120k", 10000000 is "10M".
func short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// draw writes panels side by side, with one legend for them all.
func draw(w io.Writer, panels []panel) {
	colour := map[string]string{}
	var names []string
	for i := range panels {
		libraryOrder(panels[i].series)
		for _, s := range panels[i].series {
			if _, ok := colour[s.name]; !ok {
				colour[s.name] = palette[len(names)%len(palette)]
				names = append(names, s.name)
			}
		}
	}
	width := len(panels)*panelW + legendW
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, panelH, width, panelH)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, p := range panels {
		drawPanel(w, p, float64(i*panelW), colour)
	}
	for i, n := range names {
		x, y := float64(len(panels)*panelW+8), float64(top+10+i*18)
		fmt.Fprintf(w, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>`+"\n", x, y, x+20, y, colour[n])
		fmt.Fprintf(w, `<text x="%.0f" y="%.0f" dominant-baseline="middle">%s</text>`+"\n", x+26, y, html.EscapeString(rounds.Display(n)))
	}
	fmt.Fprintln(w, "</svg>")
}

func drawPanel(w io.Writer, p panel, x0 float64, colour map[string]string) {
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	var xs []float64
	for _, s := range p.series {
		for i, x := range s.xs {
			xmin, xmax, ymax = math.Min(xmin, x), math.Max(xmax, x), math.Max(ymax, s.ys[i])
			xs = append(xs, x)
		}
	}
	tx := func(x float64) float64 { return x }
	if p.logX {
		tx = math.Log10
	}
	plotW, plotH := float64(panelW-left-right), float64(panelH-top-bottom)
	px := func(x float64) float64 {
		if xmax == xmin {
			return x0 + left + plotW/2
		}
		return x0 + left + (tx(x)-tx(xmin))/(tx(xmax)-tx(xmin))*plotW
	}
	step := niceStep(ymax, 5)
	ytop := math.Ceil(ymax/step) * step
	if ytop == 0 {
		ytop = 1
	}
	py := func(y float64) float64 { return top + plotH - y/ytop*plotH }

	fmt.Fprintf(w, `<text x="%.0f" y="18" text-anchor="middle" font-weight="bold">%s</text>`+"\n", x0+left+plotW/2, html.EscapeString(p.title))
	for y := 0.0; y <= ytop+step/2; y += step {
		fmt.Fprintf(w, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/>`+"\n", x0+left, py(y), x0+left+plotW, py(y))
		fmt.Fprintf(w, `<text x="%.0f" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", x0+left-6, py(y), short(y))
	}
	seen := map[float64]bool{}
	for _, x := range xs {
		if seen[x] {
			continue
		}
		seen[x] = true
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ddd"/>`+"\n", px(x), float64(top), px(x), top+plotH)
		fmt.Fprintf(w, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", px(x), top+plotH+16, short(x))
	}
	fmt.Fprintf(w, `<rect x="%.0f" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#333"/>`+"\n", x0+left, top, plotW, plotH)
	fmt.Fprintf(w, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", x0+left+plotW/2, panelH-8, html.EscapeString(p.xlabel))
	fmt.Fprintf(w, `<text transform="translate(%.0f %.0f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", x0+14, top+plotH/2, html.EscapeString(p.ylabel))
	for _, s := range p.series {
		pts := ""
		for i, x := range s.xs {
			pts += fmt.Sprintf("%.1f,%.1f ", px(x), py(s.ys[i]))
			fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(x), py(s.ys[i]), colour[s.name])
		}
		fmt.Fprintf(w, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", pts, colour[s.name])
	}
}
