package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// row is one algorithm's line of a plot.
type row struct {
	a    algo
	reqs []request
	f    figures
}

// The plot's layout, in pixels.
const (
	width     = 880
	labelX    = 12  // the algorithm's name
	plotX     = 196 // the bars
	plotW     = 540
	figX      = 748 // the figures
	rowH      = 52
	upH       = 30 // the admitted bars' full height
	downH     = 10 // the denied bars' full depth
	charW     = 6  // an estimate of a character's width at 11 px, for layout
	fontStack = "Helvetica, Arial, sans-serif"
)

// Colours: one per client, then denied, the wait, the grid and the text.
var (
	clientColours = []string{"#2f6db5", "#2a9d8f", "#8e6bbf"}
	deniedColour  = "#d1495b"
	delayColour   = "#e69f00"
	gridColour    = "#e4e4e4"
	mutedColour   = "#666666"
)

// canvas accumulates an SVG document.
type canvas struct{ b bytes.Buffer }

func (c *canvas) printf(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

// text writes s at (x, y) with the given extra attributes.
func (c *canvas) text(x, y int, attrs, s string) {
	c.printf(`<text x="%d" y="%d"%s>%s</text>`+"\n", x, y, attrs, esc(s))
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func esc(s string) string { return escaper.Replace(s) }

// tenths formats a coordinate given in tenths of a pixel.
func tenths(v int) string {
	if v%10 == 0 {
		return fmt.Sprint(v / 10)
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%d", sign, v/10, v%10)
}

// binned counts, per bin of the shape, the admitted requests of each
// client (when they proceed), the denied ones (when they arrive), and the
// longest wait of those admitted (by arrival).
type binned struct {
	admitted [][]int // [client][bin]
	denied   []int
	wait     []time.Duration
}

func binOf(s shape, reqs []request) binned {
	n := int(s.length / s.bin)
	b := binned{admitted: make([][]int, len(s.clients)), denied: make([]int, n), wait: make([]time.Duration, n)}
	for c := range b.admitted {
		b.admitted[c] = make([]int, n)
	}
	for _, r := range reqs {
		i := int(r.at / s.bin)
		if !r.allowed {
			b.denied[i]++
			continue
		}
		b.wait[i] = max(b.wait[i], r.delay)
		if j := int(r.proceeds() / s.bin); j < n {
			b.admitted[r.client][j]++
		}
	}
	return b
}

// plot renders the rows of shape s as one SVG: a row per algorithm, the
// admitted requests of each bin as bars up, the denied ones as bars down,
// on scales shared by every row.
func plot(s shape, rows []row) []byte {
	bins := make([]binned, len(rows))
	maxUp, maxDown := 1, 1
	for i, r := range rows {
		bins[i] = binOf(s, r.reqs)
		for j := range bins[i].denied {
			sum := 0
			for c := range bins[i].admitted {
				sum += bins[i].admitted[c][j]
			}
			maxUp, maxDown = max(maxUp, sum), max(maxDown, bins[i].denied[j])
		}
		if s.cumulative {
			for _, c := range r.f.clients {
				maxUp = max(maxUp, c.admitted)
			}
		}
	}
	var c canvas
	about := wrap(s.about, 130)
	legendY := 48 + 16*len(about)
	top := legendY + 22
	height := top + len(rows)*rowH + 30
	c.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	c.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" font-size="11">`+"\n",
		width, height, width, height, fontStack)
	c.printf(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	c.text(labelX, 26, ` font-size="17" font-weight="bold"`, s.title)
	for i, line := range about {
		c.text(labelX, 46+16*i, ` font-size="12"`, line)
	}
	c.legend(s, legendY, maxUp, maxDown, rows)
	c.grid(s, top, top+len(rows)*rowH)
	for i, r := range rows {
		c.row(s, top+i*rowH, r, bins[i], maxUp, maxDown)
	}
	c.axis(s, top+len(rows)*rowH)
	c.printf("</svg>\n")
	return c.b.Bytes()
}

// legend explains the marks and their scales.
func (c *canvas) legend(s shape, y, maxUp, maxDown int, rows []row) {
	x := labelX
	item := func(mark, label string) {
		if mark != "" {
			c.printf("%s\n", mark)
			x += 14
		}
		c.text(x, y, "", label)
		x += utf8.RuneCountInString(label)*charW + 14
	}
	box := func(colour string) string {
		return fmt.Sprintf(`<rect x="%d" y="%d" width="10" height="10" fill="%s"/>`, x, y-9, colour)
	}
	line := func(colour, style string) string {
		return fmt.Sprintf(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" %s/>`, x, y-4, x+10, y-4, colour, style)
	}
	const solid, dashed = `stroke-width="2"`, `stroke-dasharray="3,2"`
	mark := box
	up := fmt.Sprintf("admitted, when it proceeds (full height %d per %s)", maxUp, durText(s.bin))
	down := fmt.Sprintf("denied, downwards (full depth %d)", maxDown)
	if s.cumulative {
		mark = func(colour string) string { return line(colour, solid) }
		up = fmt.Sprintf("admitted so far (full height %d),", maxUp)
		down = fmt.Sprintf("denied per %s, downwards (full depth %d)", durText(s.bin), maxDown)
	}
	if len(s.clients) == 1 {
		item(mark(clientColours[0]), up)
	} else {
		for i, cl := range s.clients {
			item(mark(clientColours[i]), cl.name)
		}
		item("", up)
	}
	item(box(deniedColour), down)
	if len(s.clients) == 1 || s.cumulative {
		item(line(mutedColour, dashed), "the limit's rate")
	}
	if !s.cumulative && slices.ContainsFunc(rows, func(r row) bool { return r.f.maxDelay > 0 }) {
		item(line(delayColour, solid), "wait (shaping)")
	}
}

// grid draws a faint line at every window boundary.
func (c *canvas) grid(s shape, y0, y1 int) {
	var d strings.Builder
	for t := time.Duration(0); t <= s.length; t += s.window {
		fmt.Fprintf(&d, "M%s,%dV%d", tenths(xAt(s, t)), y0, y1)
	}
	c.printf(`<path d="%s" stroke="%s" fill="none"/>`+"\n", d.String(), gridColour)
}

// xAt returns the abscissa of instant t, in tenths of a pixel.
func xAt(s shape, t time.Duration) int {
	return plotX*10 + int(int64(t)*plotW*10/int64(s.length))
}

// axis labels the time axis under the rows.
func (c *canvas) axis(s shape, y int) {
	var d strings.Builder
	for t := time.Duration(0); t <= s.length; t += s.tick {
		x := xAt(s, t)
		fmt.Fprintf(&d, "M%s,%dv4", tenths(x), y)
		c.printf(`<text x="%s" y="%d" text-anchor="middle" fill="%s">%s</text>`+"\n", tenths(x), y+16, mutedColour, esc(tickText(s, t)))
	}
	c.printf(`<path d="%s" stroke="%s" fill="none"/>`+"\n", d.String(), mutedColour)
}

// tickText labels instant t in the unit of the shape's ticks.
func tickText(s shape, t time.Duration) string {
	if s.tick >= time.Hour {
		return fmt.Sprintf("%d h", t/time.Hour)
	}
	return fmt.Sprintf("%d s", t/time.Second)
}

// secText formats d in seconds with two decimals, or in minutes from ten
// minutes on.
func secText(d time.Duration) string {
	if d >= 10*time.Minute {
		return fmt.Sprintf("%d min", (d+time.Minute/2)/time.Minute)
	}
	cs := (d + 5*time.Millisecond) / (10 * time.Millisecond)
	return fmt.Sprintf("%d.%02d s", cs/100, cs%100)
}

// wrap splits s into lines of at most n characters, at spaces.
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > n {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
