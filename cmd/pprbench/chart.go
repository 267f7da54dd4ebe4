package main

import (
	"fmt"
	"html"
	"math"
	"os"
	"strconv"
	"strings"
)

// The attack command's charts, drawn as SVG by hand: a frame (title, axis
// labels, a y grid from 0 to yMax with its ticks, a legend right of the
// plot) holding lines with markers or grouped bars. No plotting library:
// library users of the module download nothing for them.

const (
	chartW, chartH = 680, 330
	// The plot area; the legend is to its right.
	plotL, plotT, plotR, plotB = 62.0, 34.0, 450.0, 286.0
)

var (
	chartColors = []string{"#c0392b", "#2e6db4", "#2a9d4a", "#8e44ad", "#d68910", "#555555"}
	chartDashes = []string{"", "7,3", "2,3", "7,3,2,3"}
)

// chartSeries is one named series of values: a line's y per x, or a bar
// per category.
type chartSeries struct {
	name   string
	values []float64
	color  string
}

// chartFrame is a chart being drawn; y maps values in [0, yMax] onto the
// plot area.
type chartFrame struct {
	sb   strings.Builder
	yMax float64
}

// newChartFrame starts a chart: the title, the axis labels, the y grid with
// its ticks and the axes.
func newChartFrame(title, xLabel, yLabel string, yMax float64) *chartFrame {
	f := &chartFrame{yMax: yMax}
	fmt.Fprintf(&f.sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		chartW, chartH, chartW, chartH)
	fmt.Fprintf(&f.sb, `<rect width="%d" height="%d" fill="white"/>`+"\n", chartW, chartH)
	f.text(chartW/2, 18, "middle", title, `font-size="13"`)
	f.text((plotL+plotR)/2, chartH-10, "middle", xLabel, "")
	f.text(16, (plotT+plotB)/2, "middle", yLabel, fmt.Sprintf(`transform="rotate(-90 16 %g)"`, (plotT+plotB)/2))
	step := niceStep(yMax)
	for i := 0; float64(i)*step <= yMax*(1+1e-9); i++ {
		v := float64(i) * step
		y := f.y(v)
		fmt.Fprintf(&f.sb, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#dddddd"/>`+"\n", plotL, y, plotR, y)
		f.text(plotL-6, y+4, "end", strconv.FormatFloat(v, 'g', 6, 64), "")
	}
	fmt.Fprintf(&f.sb, `<path d="M%g %g V%g H%g" fill="none" stroke="black"/>`+"\n", plotL, plotT, plotB, plotR)
	return f
}

// y is the pixel row of value v.
func (f *chartFrame) y(v float64) float64 { return plotB - v/f.yMax*(plotB-plotT) }

func (f *chartFrame) text(x, y float64, anchor, s, attrs string) {
	fmt.Fprintf(&f.sb, `<text x="%.1f" y="%.1f" text-anchor="%s" %s>%s</text>`+"\n", x, y, anchor, attrs, html.EscapeString(s))
}

// legend lists the series right of the plot, each with the mark draws
// (at x, y, in series i's style).
func (f *chartFrame) legend(series []chartSeries, mark func(i int, x, y float64)) {
	for i, s := range series {
		y := plotT + 8 + 18*float64(i)
		mark(i, plotR+22, y)
		f.text(plotR+44, y+4, "start", s.name, "")
	}
}

// save closes the chart and writes it to path.
func (f *chartFrame) save(path string) error {
	f.sb.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(f.sb.String()), 0o644)
}

// niceStep is a tick step of 1, 2 or 5 times a power of ten giving five
// or six ticks above 0 up to max.
func niceStep(max float64) float64 {
	if !(max > 0) {
		return 1
	}
	raw := max / 6
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// lineChart draws each series as a line with markers over x = 1..len(values),
// y from 0 to yMax, one colour, dash and marker per series.
func lineChart(path, title, xLabel, yLabel string, yMax float64, series []chartSeries) error {
	f := newChartFrame(title, xLabel, yLabel, yMax)
	n := 0
	for _, s := range series {
		n = max(n, len(s.values))
	}
	// x runs from 0.8 to n+0.2, so the first and last points clear the axes.
	x := func(v float64) float64 { return plotL + (v-0.8)/(float64(n)-0.6)*(plotR-plotL) }
	for b := 1; b <= n; b++ {
		f.text(x(float64(b)), plotB+15, "middle", strconv.Itoa(b), "")
	}
	style := func(i int) (color, dash string) {
		color = chartColors[i%len(chartColors)]
		if d := chartDashes[i%len(chartDashes)]; d != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, d)
		}
		return color, dash
	}
	for i, s := range series {
		color, dash := style(i)
		var pts []string
		for b, v := range s.values {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(b+1)), f.y(v)))
		}
		fmt.Fprintf(&f.sb, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>`+"\n", strings.Join(pts, " "), color, dash)
		for b, v := range s.values {
			marker(&f.sb, i, x(float64(b+1)), f.y(v), color)
		}
	}
	f.legend(series, func(i int, cx, cy float64) {
		color, dash := style(i)
		fmt.Fprintf(&f.sb, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="1.5"%s/>`+"\n", cx-14, cy, cx+14, cy, color, dash)
		marker(&f.sb, i, cx, cy, color)
	})
	return f.save(path)
}

// marker draws series i's marker (circle, square, triangle, diamond) at
// x, y.
func marker(sb *strings.Builder, i int, x, y float64, color string) {
	const r = 3.5
	switch i % 4 {
	case 0:
		fmt.Fprintf(sb, `<circle cx="%.1f" cy="%.1f" r="%g" fill="none" stroke="%s"/>`+"\n", x, y, r, color)
	case 1:
		fmt.Fprintf(sb, `<rect x="%.1f" y="%.1f" width="%g" height="%g" fill="none" stroke="%s"/>`+"\n", x-r, y-r, 2*r, 2*r, color)
	case 2:
		fmt.Fprintf(sb, `<path d="M%.1f %.1f L%.1f %.1f L%.1f %.1f Z" fill="none" stroke="%s"/>`+"\n", x, y-r-0.5, x+r, y+r-0.5, x-r, y+r-0.5, color)
	default:
		fmt.Fprintf(sb, `<path d="M%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f Z" fill="none" stroke="%s"/>`+"\n", x, y-r-0.5, x+r+0.5, y, x, y+r+0.5, x-r-0.5, y, color)
	}
}

// barChart draws one group of bars per category, one bar per series (with
// the series' colour), y from 0 to yMax.
func barChart(path, title, yLabel string, yMax float64, categories []string, series []chartSeries) error {
	f := newChartFrame(title, "", yLabel, yMax)
	const barW, gap = 28.0, 2.0
	group := float64(len(series))*(barW+gap) - gap
	slot := (plotR - plotL) / float64(len(categories))
	for c, name := range categories {
		mid := plotL + slot*(float64(c)+0.5)
		f.text(mid, plotB+15, "middle", name, "")
		for i, s := range series {
			v := 0.0
			if c < len(s.values) {
				v = s.values[c]
			}
			x := mid - group/2 + float64(i)*(barW+gap)
			fmt.Fprintf(&f.sb, `<rect x="%.1f" y="%.1f" width="%g" height="%.1f" fill="%s"><title>%s: %g</title></rect>`+"\n",
				x, f.y(v), barW, plotB-f.y(v), s.color, html.EscapeString(s.name), v)
		}
	}
	f.legend(series, func(i int, cx, cy float64) {
		fmt.Fprintf(&f.sb, `<rect x="%g" y="%g" width="12" height="10" fill="%s"/>`+"\n", cx-6, cy-5, series[i].color)
	})
	return f.save(path)
}
