package main

import (
	"fmt"
	"strings"
	"time"
)

// row draws one algorithm's line: its name, the admitted requests above
// the baseline, the denied ones below, the limit's rate, LeakyBucket's
// wait, and the headline figures.
func (c *canvas) row(s shape, y int, r row, b binned, maxUp, maxDown int) {
	base := y + 8 + upH
	c.text(labelX, y+18, ` font-size="13" font-weight="bold"`, r.a.name)
	for i, line := range wrap(r.a.conf, 29) {
		c.text(labelX, y+32+12*i, ` fill="`+mutedColour+`"`, line)
	}
	c.printf(`<path d="M%d,%dH%d" stroke="#bbbbbb" fill="none"/>`+"\n", plotX, base, plotX+plotW)
	if s.cumulative {
		c.cumulative(s, base, b, maxUp)
	} else {
		c.stacked(s, base, b, maxUp)
	}
	c.denied(s, base, b.denied, maxDown)
	c.limitRate(s, base, maxUp)
	if r.f.maxDelay > 0 && !s.cumulative {
		c.waits(s, base, b.wait, r.f.maxDelay)
	}
	c.figures(s, y, r.f)
}

// bar appends to d the bar of bin j from y10 down h10 (tenths of a pixel),
// with a 1 px gap to the next bar when bars are 3 px wide or more.
func bar(d *strings.Builder, s shape, j, y10, h10 int) {
	x0, x1 := xAt(s, time.Duration(j)*s.bin), xAt(s, time.Duration(j+1)*s.bin)
	w := x1 - x0
	if w >= 30 {
		w -= 10
	}
	fmt.Fprintf(d, "M%s,%sh%sv%sh-%sz", tenths(x0), tenths(y10), tenths(w), tenths(h10), tenths(w))
}

// barHeight is count's share of full pixels when most fills them, in
// tenths of a pixel: at least 1 px, so that a single request shows.
func barHeight(count, full, most int) int { return max(10, count*full*10/most) }

// stacked draws the admitted requests of each bin, the clients' bars
// stacked on one another.
func (c *canvas) stacked(s shape, base int, b binned, maxUp int) {
	stack := make([]int, len(b.denied)) // tenths already stacked in each bin
	for cl, counts := range b.admitted {
		var d strings.Builder
		for j, k := range counts {
			if k > 0 {
				h := barHeight(k, upH, maxUp)
				stack[j] += h
				bar(&d, s, j, base*10-stack[j], h)
			}
		}
		if d.Len() > 0 {
			c.printf(`<path d="%s" fill="%s"/>`+"\n", d.String(), clientColours[cl])
		}
	}
}

// cumulative draws, per client, the requests admitted so far: a line
// through the end of every bin.
func (c *canvas) cumulative(s shape, base int, b binned, maxUp int) {
	for cl, counts := range b.admitted {
		var pts strings.Builder
		fmt.Fprintf(&pts, "%d,%d", plotX, base)
		sum := 0
		for j, k := range counts {
			sum += k
			fmt.Fprintf(&pts, " %s,%s", tenths(xAt(s, time.Duration(j+1)*s.bin)), tenths(base*10-sum*upH*10/maxUp))
		}
		c.printf(`<polyline points="%s" stroke="%s" stroke-width="2" fill="none"/>`+"\n", pts.String(), clientColours[cl])
	}
}

// denied draws the denied requests of each bin below the baseline.
func (c *canvas) denied(s shape, base int, denied []int, maxDown int) {
	var d strings.Builder
	for j, k := range denied {
		if k > 0 {
			bar(&d, s, j, base*10+10, barHeight(k, downH, maxDown))
		}
	}
	if d.Len() > 0 {
		c.printf(`<path d="%s" fill="%s"/>`+"\n", d.String(), deniedColour)
	}
}

// limitRate draws the limit's rate, dashed: so many per bin, or, in a
// cumulative plot, so many so far. (Stacked bars of several clients have
// none: each client has a limit of its own.)
func (c *canvas) limitRate(s shape, base, maxUp int) {
	switch {
	case s.cumulative:
		h := int(s.limit * int64(s.length/s.window) * upH * 10 / int64(maxUp))
		c.printf(`<path d="M%d,%dL%d,%s" stroke="%s" stroke-dasharray="3,2" fill="none"/>`+"\n",
			plotX, base, plotX+plotW, tenths(base*10-h), mutedColour)
	case len(s.clients) == 1:
		h := int(s.limit * int64(s.bin) * upH * 10 / int64(s.window) / int64(maxUp))
		c.printf(`<path d="M%d,%sH%d" stroke="%s" stroke-dasharray="3,2" fill="none"/>`+"\n",
			plotX, tenths(base*10-h), plotX+plotW, mutedColour)
	}
}

// waits draws the longest wait of the requests admitted in each bin, full
// height being the longest of all.
func (c *canvas) waits(s shape, base int, wait []time.Duration, longest time.Duration) {
	var pts strings.Builder
	for j, w := range wait {
		x := (xAt(s, time.Duration(j)*s.bin) + xAt(s, time.Duration(j+1)*s.bin)) / 2
		fmt.Fprintf(&pts, " %s,%s", tenths(x), tenths(base*10-int(int64(w)*upH*10/int64(longest))))
	}
	c.printf(`<polyline points="%s" stroke="%s" stroke-width="1.5" fill="none"/>`+"\n", pts.String()[1:], delayColour)
}

// figures writes a row's headline figures beside it.
func (c *canvas) figures(s shape, y int, f figures) {
	c.text(figX, y+16, "", fmt.Sprintf("%d of %d admitted", f.admitted, f.sent))
	c.text(figX, y+30, "", fmt.Sprintf("most in %s: %d", durText(s.window), f.worstWindow))
	switch {
	case f.maxDelay > 0:
		c.text(figX, y+44, ` fill="`+delayColour+`"`, "waits up to "+secText(f.maxDelay))
	case len(f.clients) == 1 && f.denied == 0:
		c.text(figX, y+44, "", "never denied")
	case len(f.clients) == 1:
		c.text(figX, y+44, "", fmt.Sprintf("first denial after %d", f.firstDenial))
	default:
		c.printf(`<text x="%d" y="%d">`, figX, y+44)
		for i, cl := range f.clients {
			if i > 0 {
				c.printf(" · ")
			}
			c.printf(`<tspan fill="%s">%d</tspan>`, clientColours[i], cl.admitted)
		}
		c.printf("</text>\n")
	}
}
