/* docfmt.c - dotted-path lookups in a document, number formatting and
 * CSV field quoting (doc/docfmt.h). */
#include "doc/docfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mb__csv_num(mb__buf *out, const char *fmt, double x)
{
    mb__buf_putc(out, ',');
    if (isfinite(x))
        mb__buf_printf(out, fmt, x);
}

void mb__csv_field(mb__buf *out, const char *s)
{
    if (!s)
        s = "";
    /* OWASP's rule against formula injection: a cell a spreadsheet would
     * take for a formula (= + - @, tab, CR first) gets a leading ' and
     * quotes */
    int formula = s[0] && strchr("=+-@\t\r", s[0]);
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        mb__buf_puts(out, s);
        return;
    }
    mb__buf_putc(out, '"');
    if (formula)
        mb__buf_putc(out, '\'');
    for (; *s; s++) {
        if (*s == '"')
            mb__buf_putc(out, '"');
        mb__buf_putc(out, *s);
    }
    mb__buf_putc(out, '"');
}

const json_t *mb__jget(const json_t *o, const char *path)
{
    char key[128];
    while (o && path && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key || !json_is_object(o))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        path = dot ? dot + 1 : NULL;
    }
    return o;
}

double mb__jnum(const json_t *o, const char *path)
{
    const json_t *v = mb__jget(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *mb__jstr(const json_t *o, const char *path)
{
    const json_t *v = mb__jget(o, path);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

char *mb__fmt_num(double x, int sig, char *out, size_t len)
{
    if (!isfinite(x)) {
        snprintf(out, len, "-");
        return out;
    }
    double a = fabs(x);
    int dec = 0;
    if (a > 0) {
        int mag = (int)floor(log10(a));
        dec = sig - 1 - mag;
        if (dec < 0)
            dec = 0;
        if (dec > 9)
            dec = 9;
    }
    snprintf(out, len, "%.*f", dec, x);
    return out;
}

char *mb__fmt_ms(double ns, char *out, size_t len)
{
    if (!isfinite(ns)) {
        snprintf(out, len, "-");
        return out;
    }
    double ms = ns / 1e6;
    if (fabs(ms) >= 1000)
        snprintf(out, len, "%.0f", ms);
    else
        mb__fmt_num(ms, 4, out, len);
    return out;
}

char *mb__fmt_bytes(double b, char *out, size_t len)
{
    if (!isfinite(b)) {
        snprintf(out, len, "-");
        return out;
    }
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double a = fabs(b);
    while (a >= 1024 && u < 4) {
        a /= 1024;
        b /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, len, "%.0f B", b);
    else
        snprintf(out, len, "%.*f %s", a >= 100 ? 0 : 1, b, unit[u]);
    return out;
}

void mb__put_dims(mb__buf *b, const json_t *dims, const char *open,
                  const char *close)
{
    size_t i;
    const json_t *d;
    mb__buf_puts(b, open);
    json_array_foreach(dims, i, d) mb__buf_printf(
        b, "%s%" JSON_INTEGER_FORMAT, i ? "," : "", json_integer_value(d));
    mb__buf_puts(b, close);
}

char *mb__fmt_p(double p, char *out, size_t len)
{
    if (!isfinite(p))
        snprintf(out, len, "-");
    else if (p < 0.0001)
        snprintf(out, len, "< 0.0001");
    else
        snprintf(out, len, "%.2g", p);
    return out;
}

char *mb__speedup_words(const json_t *speedup, char *out, size_t len)
{
    double s = mb__jnum(speedup, "value");
    const json_t *ci = json_object_get(speedup, "ci95");
    double lo = NAN, hi = NAN;
    if (json_array_size(ci) == 2) {
        lo = json_is_number(json_array_get(ci, 0))
                 ? json_number_value(json_array_get(ci, 0))
                 : NAN;
        hi = json_is_number(json_array_get(ci, 1))
                 ? json_number_value(json_array_get(ci, 1))
                 : NAN;
    }
    if (!(s > 0)) {
        snprintf(out, len, "%s", "");
        return out;
    }
    int slower = s < 1;
    double v = slower ? 1 / s : s;
    double a = slower ? 1 / hi : lo, b = slower ? 1 / lo : hi;
    if (isfinite(a) && isfinite(b) && a > 0)
        snprintf(out, len, "%.2f× %s (95%% CI %.2f–%.2f×)", v,
                 slower ? "slower" : "faster", a, b);
    else
        snprintf(out, len, "%.2f× %s", v, slower ? "slower" : "faster");
    return out;
}

void mb__fmt_duration(double ns, char *buf, size_t len)
{
    if (!isfinite(ns)) {
        snprintf(buf, len, "-");
        return;
    }
    const char *unit = "ns";
    double v = ns;
    if (fabs(ns) >= 1e9) {
        v = ns / 1e9;
        unit = "s";
    } else if (fabs(ns) >= 1e6) {
        v = ns / 1e6;
        unit = "ms";
    } else if (fabs(ns) >= 1e3) {
        v = ns / 1e3;
        unit = "us";
    }
    int prec = fabs(v) >= 100 ? 0 : fabs(v) >= 10 ? 1 : 2;
    if (strcmp(unit, "ns") == 0)
        prec = 0;
    snprintf(buf, len, "%.*f %s", prec, v, unit);
}

bool mb__fmt_scaled(double x, double mag, const mb__scale *steps, size_t n,
                    char *out, size_t len)
{
    if (!isfinite(x)) {
        snprintf(out, len, "-");
        return true;
    }
    for (size_t i = 0; i < n; i++)
        if (mag >= steps[i].at) {
            snprintf(out, len, steps[i].fmt, x / steps[i].div);
            return true;
        }
    return false;
}

void mb__fmt_count(double n, char *buf, size_t len)
{
    static const mb__scale steps[] = {{1e9, 1e9, "%.2fG"},
                                      {1e6, 1e6, "%.2fM"},
                                      {1e4, 1e3, "%.1fK"},
                                      {-INFINITY, 1, "%.0f"}};
    mb__fmt_scaled(n, n, steps, sizeof steps / sizeof *steps, buf, len);
}

void mb__fmt_ms_table(double ns, char *buf, size_t len)
{
    if (!isfinite(ns)) {
        snprintf(buf, len, "n/a");
        return;
    }
    double v = ns / 1e6;
    int prec = v >= 100 ? 1 : v >= 1 ? 3 : v >= 0.01 ? 4 : 5;
    snprintf(buf, len, "%.*f", prec, v);
}

const char *mb__metric_unit(const char *metric)
{
    if (strcmp(metric, "throughput") == 0)
        return "inferences/s";
    if (strcmp(metric, "memory") == 0 || strcmp(metric, "size") == 0)
        return "bytes";
    return "ns";
}

char *mb__fmt_metric(const char *metric, double x, char *out, size_t len)
{
    static const mb__scale bytes[] = {{1048576.0, 1048576.0, "%.2f MiB"},
                                      {-INFINITY, 1, "%.0f B"}};
    static const mb__scale ns[] = {{1e9, 1e9, "%.3f s"},
                                   {1e6, 1e6, "%.3f ms"},
                                   {1e3, 1e3, "%.2f us"},
                                   {-INFINITY, 1, "%.0f ns"}};
    const char *unit = mb__metric_unit(metric);
    if (strcmp(unit, "inferences/s") == 0 && isfinite(x))
        snprintf(out, len, "%.1f/s", x);
    else if (strcmp(unit, "bytes") == 0)
        mb__fmt_scaled(x, x, bytes, sizeof bytes / sizeof *bytes, out, len);
    else
        mb__fmt_scaled(x, x, ns, sizeof ns / sizeof *ns, out, len);
    return out;
}

char *mb__fmt_change(double ratio, char *out, size_t len)
{
    if (!isfinite(ratio))
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%+.1f%%", (ratio - 1) * 100);
    return out;
}

char *mb__fmt_change_ci(double lo, double hi, char *out, size_t len)
{
    if (!isfinite(lo) || !isfinite(hi))
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%+.1f%%..%+.1f%%", (lo - 1) * 100, (hi - 1) * 100);
    return out;
}

char *mb__fmt_p_short(double p, char *out, size_t len)
{
    if (!isfinite(p))
        snprintf(out, len, "-");
    else if (p < 1e-16)
        snprintf(out, len, "<1e-16");
    else
        snprintf(out, len, "%.2g", p);
    return out;
}

char *mb__fmt_grouped(uint64_t v, char *out, size_t len)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    size_t k = 0;
    for (int i = 0; i < n && k + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = tmp[i];
    }
    if (len)
        out[k < len ? k : len - 1] = '\0';
    return out;
}

void mb__batch_suffix(int64_t batch, char *at, size_t at_len, char *id,
                      size_t id_len)
{
    if (at_len)
        at[0] = '\0';
    if (id_len)
        id[0] = '\0';
    if (batch <= 0)
        return;
    if (at_len)
        snprintf(at, at_len, " at batch %" PRId64, batch);
    if (id_len)
        snprintf(id, id_len, "-b%" PRId64, batch);
}
