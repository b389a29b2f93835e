/* svg.c - axes, ticks, scales and text for the inline SVG charts. */
#include "report/svg.h"

#include "report/rutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const palette[] = {
    "#0072B2", /* blue */
    "#E69F00", /* orange */
    "#009E73", /* bluish green */
    "#D55E00", /* vermillion */
    "#CC79A7", /* reddish purple */
    "#56B4E9", /* sky blue */
    "#F0E442", /* yellow */
    "#999999", /* grey */
};

const char *mb__svg_color(size_t i)
{
    return palette[i % (sizeof palette / sizeof *palette)];
}

void mb__svg_title(mb__buf *b, const char *text)
{
    mb__buf_puts(b, "<title>");
    mb__html_escape(b, text);
    mb__buf_puts(b, "</title>");
}

void mb__svg_begin(mb__svg *s, mb__buf *out, const char *id, const char *title,
                   double w, double h)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->w = w;
    s->h = h;
    s->ml = 64;
    s->mr = 16;
    s->mt = 12;
    s->mb = 44;
    mb__buf_puts(out, "<figure class=\"chart\"><div class=\"chart-title\">");
    mb__html_escape(out, title);
    mb__buf_puts(out, "</div>");
    mb__buf_printf(out,
                   "<svg id=\"%s\" class=\"plot\" "
                   "viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                   "preserveAspectRatio=\"xMidYMid meet\">",
                   id, w, h);
    mb__svg_title(out, title);
}

void mb__svg_legend(mb__svg *s, const char *label, const char *color, int style)
{
    if (s->n_leg >= sizeof s->leg_label / sizeof *s->leg_label)
        return;
    s->leg_label[s->n_leg] = label;
    s->leg_color[s->n_leg] = color;
    s->leg_style[s->n_leg] = style;
    s->n_leg++;
}

void mb__svg_legends(mb__svg *s, const mb__svg_key *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mb__svg_legend(s, keys[i].label, keys[i].color, keys[i].style);
}

void mb__svg_end(mb__svg *s, const char *caption)
{
    mb__buf_puts(s->out, "</svg>");
    if (s->n_leg) {
        mb__buf_puts(s->out, "<div class=\"legend\">");
        for (size_t i = 0; i < s->n_leg; i++) {
            static const char *const cls[] = {"sw", "ln", "ln dash"};
            int st = s->leg_style[i] >= 0 && s->leg_style[i] <= 2
                         ? s->leg_style[i]
                         : 0;
            mb__buf_printf(s->out,
                           "<span><i class=\"%s\" style=\"--c:%s\"></i>",
                           cls[st], s->leg_color[i]);
            mb__html_escape(s->out, s->leg_label[i]);
            mb__buf_puts(s->out, "</span>");
        }
        mb__buf_puts(s->out, "</div>");
    }
    if (caption) {
        mb__buf_puts(s->out, "<figcaption>");
        mb__html_escape(s->out, caption);
        mb__buf_puts(s->out, "</figcaption>");
    }
    mb__buf_puts(s->out, "</figure>\n");
}

static double frac(const mb__svg_axis *a, double v)
{
    if (a->hi == a->lo)
        return 0.5;
    if (a->log) {
        double lo = log10(a->lo), hi = log10(a->hi);
        return (log10(v > 0 ? v : a->lo) - lo) / (hi - lo);
    }
    return (v - a->lo) / (a->hi - a->lo);
}

double mb__svg_px(const mb__svg *s, double x)
{
    return s->ml + frac(&s->x, x) * (s->w - s->ml - s->mr);
}

double mb__svg_py(const mb__svg *s, double y)
{
    return s->h - s->mb - frac(&s->y, y) * (s->h - s->mt - s->mb);
}

static double nice_step(double range, size_t n)
{
    double raw = range / (double)(n ? n : 1);
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double step = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return step * mag;
}

void mb__svg_nice_range(double *lo, double *hi)
{
    if (!(*hi > *lo)) {
        double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;
        *lo -= d;
        *hi += d;
    }
    double step = nice_step(*hi - *lo, 5);
    *lo = floor(*lo / step + 1e-9) * step;
    *hi = ceil(*hi / step - 1e-9) * step;
}

size_t mb__svg_ticks(double lo, double hi, int log, double *ticks, size_t max)
{
    size_t n = 0;
    if (!(hi > lo) || max == 0) {
        if (max)
            ticks[n++] = lo;
        return n;
    }
    if (log && lo > 0) {
        static const double mult[3][3] = {{1, 0, 0}, {1, 3, 0}, {1, 2, 5}};
        for (int m = 2; m >= 0; m--) {
            n = 0;
            for (double dec = pow(10, floor(log10(lo)));
                 dec <= hi * 1.0001 && n < max; dec *= 10)
                for (int k = 0; k < 3 && mult[m][k] > 0; k++) {
                    double t = dec * mult[m][k];
                    if (t >= lo * 0.9999 && t <= hi * 1.0001 && n < max)
                        ticks[n++] = t;
                }
            if (n <= 7 || m == 0)
                break;
        }
        if (n < 2 && max >= 2) { /* a narrow log range: linear ticks */
            return mb__svg_ticks(lo, hi, 0, ticks, max);
        }
        return n;
    }
    double step = nice_step(hi - lo, 5);
    for (double t = ceil(lo / step - 1e-9) * step;
         t <= hi + step * 1e-6 && n < max; t += step)
        ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t;
    return n;
}

char *mb__svg_tick_label(double v, char *out, size_t len)
{
    static const mb__scale steps[] = {
        {1e9, 1e9, "%gG"}, {1e6, 1e6, "%gM"}, {1e4, 1e3, "%gk"}};
    if (!isfinite(v) || /* as %g prints it */
        !mb__fmt_scaled(v, fabs(v), steps, sizeof steps / sizeof *steps, out,
                        len))
        snprintf(out, len, "%g", (double)(float)v);
    return out;
}

void mb__svg_text(mb__svg *s, double x, double y, const char *anchor,
                  const char *cls, const char *text)
{
    mb__buf_printf(s->out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x,
                   y, anchor);
    if (cls)
        mb__buf_printf(s->out, " class=\"%s\"", cls);
    mb__buf_putc(s->out, '>');
    mb__html_escape(s->out, text);
    mb__buf_puts(s->out, "</text>");
}

static void x_axis(mb__svg *s, const double *t, size_t nt)
{
    char lab[32];
    double y0 = s->h - s->mb;
    for (size_t i = 0; i < nt; i++) {
        double x = mb__svg_px(s, t[i]);
        mb__buf_printf(s->out,
                       "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" "
                       "y1=\"%.1f\" y2=\"%.1f\"/>",
                       x, x, s->mt, y0);
        mb__svg_text(s, x, y0 + 14, "middle", "tick",
                     mb__svg_tick_label(t[i], lab, sizeof lab));
    }
    mb__buf_printf(s->out,
                   "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                   "y2=\"%.1f\"/>",
                   s->ml, s->w - s->mr, y0, y0);
    if (s->x.label)
        mb__svg_text(s, (s->ml + s->w - s->mr) / 2, s->h - 8, "middle",
                     "axlabel", s->x.label);
}

static void y_axis(mb__svg *s, int no_ticks)
{
    char lab[32];
    double t[16];
    if (!no_ticks) {
        size_t nt = mb__svg_ticks(s->y.lo, s->y.hi, s->y.log, t, 16);
        for (size_t i = 0; i < nt; i++) {
            double y = mb__svg_py(s, t[i]);
            mb__buf_printf(s->out,
                           "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" "
                           "y1=\"%.1f\" y2=\"%.1f\"/>",
                           s->ml, s->w - s->mr, y, y);
            mb__svg_text(s, s->ml - 6, y + 4, "end", "tick",
                         mb__svg_tick_label(t[i], lab, sizeof lab));
        }
    }
    mb__buf_printf(s->out,
                   "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                   "y2=\"%.1f\"/>",
                   s->ml, s->ml, s->mt, s->h - s->mb);
    if (s->y.label && !no_ticks) {
        double cy = (s->mt + s->h - s->mb) / 2;
        mb__buf_printf(s->out,
                       "<text class=\"axlabel\" text-anchor=\"middle\" "
                       "transform=\"translate(14 %.1f) rotate(-90)\">",
                       cy);
        mb__html_escape(s->out, s->y.label);
        mb__buf_puts(s->out, "</text>");
    }
}

void mb__svg_axes(mb__svg *s, int no_y_ticks)
{
    double t[16];
    size_t nt = mb__svg_ticks(s->x.lo, s->x.hi, s->x.log, t, 16);
    y_axis(s, no_y_ticks);
    x_axis(s, t, nt);
}

void mb__svg_axes_xticks(mb__svg *s, const double *ticks, size_t n)
{
    y_axis(s, 0);
    x_axis(s, ticks, n);
}
