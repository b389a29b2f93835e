/* rutil.c - the escaping of untrusted strings shared by every writer. */
#include "report/rutil.h"

#include "core/alloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The character entities of HTML; Markdown uses those of < > & too. */
static const char *entity(unsigned char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    default:
        return NULL;
    }
}

void mb__html_escape(mb__buf *b, const char *s)
{
    if (!s)
        return;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (entity(c))
            mb__buf_puts(b, entity(c));
        else if (c < 0x20 && c != '\n' && c != '\t')
            mb__buf_putc(b, ' ');
        else
            mb__buf_putc(b, (char)c);
    }
}

void mb__console_put(mb__buf *b, const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if (c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            mb__buf_printf(b, "\\u00%02X", p[1]);
            p++;
        } else if (c >= 0x20 && c != 0x7F) {
            mb__buf_putc(b, (char)c);
        } else {
            const char *e = c == '\n'   ? "\\n"
                            : c == '\t' ? "\\t"
                            : c == '\r' ? "\\r"
                            : c == 0x1B ? "\\e"
                                        : NULL;
            if (e)
                mb__buf_puts(b, e);
            else
                mb__buf_printf(b, "\\x%02X", c);
        }
    }
}

size_t mb__console_cols(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (p[0] == 0x1B && p[1] == '[') { /* a colour: no column */
            p += 2;
            while (*p && !(*p >= 0x40 && *p <= 0x7E))
                p++;
            if (!*p)
                break;
            continue;
        }
        n += (*p & 0xC0) != 0x80;
    }
    return n;
}

/* Bytes of the longest prefix of s (n bytes) that fits `cols` columns,
 * on a code point boundary; at least one code point. */
static size_t fit_prefix(const char *s, size_t n, size_t cols)
{
    size_t i = 0, c = 0;
    while (i < n && (c < cols || i == 0)) {
        i++;
        while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        c++;
    }
    return i;
}

/* Appends the words of p (n bytes, already safe) wrapped at w columns
 * from column at, next lines indented by indent; no final newline. */
static void wrap_plain(mb__buf *b, const char *p, size_t len, size_t w,
                       size_t at, int indent)
{
    const char *end = p + len;
    int first = 1;
    while (p < end) {
        size_t n = 0;
        while (p + n < end && p[n] != ' ')
            n++;
        mb__buf word = MB_BUF_INIT;
        mb__buf_append(&word, p, n);
        const char *q = word.data ? word.data : "";
        if (!first && at + 1 + mb__console_cols(q) > w) {
            mb__buf_printf(b, "\n%*s", indent, "");
            at = (size_t)indent;
            first = 1;
        }
        if (!first) {
            mb__buf_putc(b, ' ');
            at++;
        }
        /* a word longer than the room left is cut */
        size_t left = n;
        while (left && w > at && at + mb__console_cols(q) > w) {
            size_t k = fit_prefix(q, left, w - at);
            mb__buf_append(b, q, k);
            mb__buf_printf(b, "\n%*s", indent, "");
            at = (size_t)indent;
            q += k;
            left -= k;
        }
        mb__buf_append(b, q, left);
        at += mb__console_cols(q);
        mb__buf_free(&word);
        first = 0;
        p += n;
        while (p < end && *p == ' ')
            p++;
    }
}

void mb__console_wrap(mb__buf *b, const char *s, int width, int col, int indent)
{
    mb__buf safe = MB_BUF_INIT;
    mb__console_put(&safe, s);
    size_t w = width > indent + 8 ? (size_t)width : SIZE_MAX;
    wrap_plain(b, safe.data ? safe.data : "", safe.len, w, (size_t)col, indent);
    mb__buf_putc(b, '\n');
    mb__buf_free(&safe);
}

void mb__console_fit(mb__buf *b, size_t from, int width)
{
    if (width <= 16 || b->oom || !b->data || b->len <= from)
        return;
    mb__buf in = MB_BUF_INIT;
    mb__buf_append(&in, b->data + from, b->len - from);
    if (in.oom) {
        mb__buf_free(&in);
        return;
    }
    b->len = from;
    b->data[from] = '\0';
    const char *p = in.data, *end = in.data + in.len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        mb__buf line = MB_BUF_INIT;
        mb__buf_append(&line, p, n);
        if (mb__console_cols(line.data ? line.data : "") <= (size_t)width) {
            mb__buf_append(b, p, n);
        } else {
            size_t lead = strspn(line.data, " ");
            int indent = (int)(lead + 2 < (size_t)width / 2 ? lead + 2 : lead);
            mb__buf_append(b, p, lead);
            wrap_plain(b, p + lead, n - lead, (size_t)width, lead, indent);
        }
        mb__buf_free(&line);
        if (nl)
            mb__buf_putc(b, '\n');
        p += n + (nl ? 1 : 0);
    }
    mb__buf_free(&in);
}

const char *mb__console_safe(const char *s, char *buf, size_t len)
{
    if (!len)
        return buf;
    mb__buf b = MB_BUF_INIT;
    mb__console_put(&b, s);
    snprintf(buf, len, "%.*s", (int)(b.len < len ? b.len : len - 1),
             b.data ? b.data : "");
    mb__buf_free(&b);
    return buf;
}

void mb__md_escape(mb__buf *b, const char *s)
{
    if (!s) {
        mb__buf_putc(b, '-');
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (strchr("\\`*_|[]#~$", c) && c) {
            mb__buf_putc(b, '\\');
            mb__buf_putc(b, (char)c);
        } else if (strchr("<>&", c) && c) {
            mb__buf_puts(b, entity(c));
        } else if (c < 0x20 || c == 0x7f) {
            mb__buf_putc(b, ' ');
        } else {
            mb__buf_putc(b, (char)c);
        }
    }
}

void mb__md_code(mb__buf *b, const char *s)
{
    if (!s) {
        mb__buf_putc(b, '-');
        return;
    }
    size_t run = 0, longest = 0;
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    for (size_t i = 0; i <= longest; i++)
        mb__buf_putc(b, '`');
    /* a span that starts or ends with a backtick needs a space inside */
    int pad = s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`');
    if (pad)
        mb__buf_putc(b, ' ');
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        mb__buf_putc(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
    }
    if (pad)
        mb__buf_putc(b, ' ');
    for (size_t i = 0; i <= longest; i++)
        mb__buf_putc(b, '`');
}

void mb__json_script_embed(mb__buf *b, const json_t *doc)
{
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (!text) {
        mb__buf_puts(b, "null");
        return;
    }
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '<')
            mb__buf_puts(b, "\\u003c");
        else if (c == '>')
            mb__buf_puts(b, "\\u003e");
        else if (c == '&')
            mb__buf_puts(b, "\\u0026");
        else if (c == 0xe2 && (unsigned char)p[1] == 0x80 &&
                 ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9)) {
            mb__buf_puts(b,
                         (unsigned char)p[2] == 0xa8 ? "\\u2028" : "\\u2029");
            p += 2;
        } else
            mb__buf_putc(b, (char)c);
    }
    free(text);
}

const char *mb__heatmap_caption(const json_t *h, char *buf, size_t len)
{
    const char *out = json_string_value(json_object_get(h, "output"));
    const json_t *smp = json_object_get(h, "sample");
    const char *how = json_string_value(json_object_get(h, "chosen"));
    char which[128];
    if (json_is_integer(smp))
        snprintf(which, sizeof which, ", sample %lld of %lld (%s)",
                 (long long)json_integer_value(smp),
                 (long long)json_integer_value(json_object_get(h, "samples")),
                 how && !strcmp(how, "worst sample") ? "the worst" : "chosen");
    else
        snprintf(which, sizeof which, ", all %lld samples (one per row)",
                 (long long)json_integer_value(json_object_get(h, "samples")));
    double mx = json_number_value(json_object_get(h, "max_abs"));
    char num[32];
    if (mx > 0)
        snprintf(num, sizeof num, "brightest = |diff| %.4g", mx);
    else
        snprintf(num, sizeof num, "identical: no difference");
    snprintf(buf, len,
             "|candidate - baseline| of %s%s, %lldx%lld; %s; "
             "magenta: NaN/Inf",
             out ? out : "?", which,
             (long long)json_integer_value(json_object_get(h, "height")),
             (long long)json_integer_value(json_object_get(h, "width")), num);
    return buf;
}

void mb__html_heatmap(mb__buf *b, const json_t *h, const char *who)
{
    const char *png = json_string_value(json_object_get(h, "png_base64"));
    if (!png || !*png ||
        strspn(png, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
                    "mnopqrstuvwxyz0123456789+/=") != strlen(png))
        return;
    /* shown at least 256 px wide, at most 640 wide and 512 high */
    double w = (double)json_integer_value(json_object_get(h, "width"));
    double ht = (double)json_integer_value(json_object_get(h, "height"));
    w = w > 0 ? w : 256;
    ht = ht > 0 ? ht : 1;
    double k = w < 256 ? ceil(256 / w) : 1;
    k = fmin(k, fmax(1, floor(512 / ht)));
    double px = fmin(640, w * k);
    if (ht * px / w > 512)
        px = fmax(32, w * 512 / ht);
    char cap[768];
    mb__buf_printf(b,
                   "<figure class=\"heatmap\"><img alt=\"heatmap\" "
                   "style=\"width:min(100%%,%lldpx);image-rendering:"
                   "pixelated\" src=\"data:image/png;base64,",
                   (long long)px);
    mb__buf_puts(b, png);
    mb__buf_puts(b, "\"><figcaption>");
    if (who) {
        mb__html_escape(b, who);
        mb__buf_puts(b, ": ");
    }
    mb__html_escape(b, mb__heatmap_caption(h, cap, sizeof cap));
    mb__buf_puts(b, "</figcaption></figure>\n");
}
