/* svg.h - the small chart toolkit behind the HTML report: a plot area
 * with linear or log axes, "nice" ticks, labelled axes with units, and the
 * Okabe-Ito colour-blind-safe palette.  Charts are emitted as inline <svg>
 * (no xmlns needed inside HTML, so no URL at all), coloured through CSS
 * classes for text and axes so light and dark mode both read well; every
 * mark carries a <title> that the browser shows on hover.  Strings given
 * to these functions are escaped here. */
#ifndef MB_REPORT_SVG_H
#define MB_REPORT_SVG_H

#include "core/buf.h"

#include <stddef.h>

typedef struct mb__svg_axis {
    double lo, hi;     /* data range shown */
    int log;           /* log10 scale (lo must be > 0) */
    const char *label; /* with unit, e.g. "latency (ms)" */
} mb__svg_axis;

typedef struct mb__svg {
    mb__buf *out;
    double w, h;           /* viewBox size */
    double ml, mr, mt, mb; /* margins around the plot area */
    mb__svg_axis x, y;
    /* legend entries, drawn as HTML under the chart by mb__svg_end */
    const char *leg_label[24];
    const char *leg_color[24];
    int leg_style[24]; /* 0 swatch, 1 solid line, 2 dashed line */
    size_t n_leg;
} mb__svg;

/* Okabe-Ito colour i (cycles), as "#rrggbb". */
const char *mb__svg_color(size_t i);

/* Opens <figure><svg id=...> with a <title> (escaped) and sets the plot
 * area.  `id` is a plain identifier chosen by mbench, never user text. */
void mb__svg_begin(mb__svg *s, mb__buf *out, const char *id, const char *title,
                   double w, double h);
/* Adds a legend entry (label borrowed until mb__svg_end; escaped there).
 * Entries beyond 24 are dropped. */
void mb__svg_legend(mb__svg *s, const char *label, const char *color,
                    int style);
/* A chart's fixed legend entries, as a table. */
typedef struct mb__svg_key {
    const char *label, *color;
    int style;
} mb__svg_key;
void mb__svg_legends(mb__svg *s, const mb__svg_key *keys, size_t n);
/* Closes the svg; the legend and `caption` (escaped; may be NULL) go
 * under it. */
void mb__svg_end(mb__svg *s, const char *caption);

/* Data to viewBox coordinates. */
double mb__svg_px(const mb__svg *s, double x);
double mb__svg_py(const mb__svg *s, double y);

/* Grid, ticks and axis labels.  With `no_y_ticks` the y axis shows no
 * numbers (category rows are labelled by the caller). */
void mb__svg_axes(mb__svg *s, int no_y_ticks);
/* Like mb__svg_axes but the x ticks are exactly the given values. */
void mb__svg_axes_xticks(mb__svg *s, const double *ticks, size_t n);

/* Up to max "nice" tick values within [lo, hi] (1-2-5 steps; decades and
 * 1-2-5 multiples on a log axis).  Returns the count. */
size_t mb__svg_ticks(double lo, double hi, int log, double *ticks, size_t max);
/* Extends [*lo, *hi] outward to nice numbers (linear axes only). */
void mb__svg_nice_range(double *lo, double *hi);
/* Formats a tick value compactly ("0.5", "12", "1.2k", "3M"). */
char *mb__svg_tick_label(double v, char *out, size_t len);

/* Text at (x, y) in viewBox units, escaped; anchor "start|middle|end";
 * cls is a CSS class name chosen by mbench (or NULL). */
void mb__svg_text(mb__svg *s, double x, double y, const char *anchor,
                  const char *cls, const char *text);
/* Appends "<title>text</title>" (escaped). */
void mb__svg_title(mb__buf *b, const char *text);

#endif
