package bench

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// SVG draws the ratio of every row with an anchor as a bar on a log
// scale (1× marked), with the goal as a tick: green when met, red when
// not, grey without a goal. It is plain SVG, written here so that the
// chart needs nothing but the figures.
func SVG(results []Result) string {
	type bar struct {
		name          string
		ratio, lo, hi float64
		goal          float64
		met           string
	}
	var bars []bar
	for _, r := range results {
		if med, lo, hi, ok := r.Ratio(); ok && med > 0 && !math.IsInf(hi, 0) {
			g := r.Row.Max
			if r.Row.Info {
				g = 0
			}
			bars = append(bars, bar{r.Row.Name, med, lo, hi, g, r.Met()})
		}
	}
	const (
		left, width, rowH, top = 420.0, 420.0, 26.0, 40.0
		minLog, maxLog         = -2.0, 1.0 // 0.01× to 10×
	)
	x := func(v float64) float64 {
		l := math.Max(minLog, math.Min(maxLog, math.Log10(v)))
		return left + (l-minLog)/(maxLog-minLog)*width
	}
	h := top + rowH*float64(len(bars)) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", left+width+70, h)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14">agent-lsp ÷ anchor (log scale; lower is faster or smaller; tick: goal)</text>`+"\n")
	for _, t := range []float64{0.01, 0.1, 1, 10} {
		stroke := "#ddd"
		if t == 1 {
			stroke = "#555"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="%s"/>`+"\n", x(t), top-8, x(t), h-25, stroke)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%g×</text>`+"\n", x(t), h-10, t)
	}
	for i, br := range bars {
		y := top + rowH*float64(i)
		color := "#999"
		switch br.met {
		case "yes":
			color = "#3a3"
		case "no":
			color = "#c33"
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, y+14, html.EscapeString(br.name))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="14" fill="%s"/>`+"\n", left, y+3, math.Max(1, x(br.ratio)-left), color)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000"/>`+"\n", x(br.lo), y+10, x(br.hi), y+10)
		if br.goal > 0 {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="2"/>`+"\n", x(br.goal), y, x(br.goal), y+20)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s×</text>`+"\n", math.Max(x(br.ratio), x(br.hi))+4, y+14, num(br.ratio))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
