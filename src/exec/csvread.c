/* csvread.c - an RFC 4180 CSV reader (see csvread.h). */
#include "exec/csvread.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
    char **f;
    size_t n, cap;
} rec;

static void rec_clear(rec *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
}

/* Moves the field in b to the end of r; false when memory runs out. */
static bool rec_push(rec *r, mb__buf *b)
{
    if (!mb__grow((void **)&r->f, &r->cap, r->n + 1, sizeof *r->f))
        return false;
    char *s = mb__strndup(b->data ? b->data : "", b->len);
    if (!s)
        return false;
    r->f[r->n++] = s;
    b->len = 0;
    return true;
}

/* The error of a quote where RFC 4180 allows none (what: where it stands). */
static mb_status bad_quote(mb_err *err, const char *name, size_t line,
                           const char *what, size_t field)
{
    return mb__fail(err, MB_EFORMAT,
                    "%s line %zu: %s %zu; quote the whole field and double "
                    "inner quotes (\"\")",
                    name, line, what, field);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        memmove(s, s + 1, strlen(s));
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* Reads one record starting at *pos into r: *got is false at the end of
 * the text.  MB_EFORMAT (err names the line) on a malformed field,
 * MB_ENOMEM when memory runs out. */
static mb_status read_rec(const char *t, size_t len, size_t *pos, size_t *line,
                          const char *name, rec *r, mb__buf *b, bool *got,
                          mb_err *err)
{
    *got = false;
    rec_clear(r);
    b->len = 0;
    size_t i = *pos;
    /* skip blank lines */
    while (i < len && (t[i] == '\n' || t[i] == '\r')) {
        if (t[i] == '\n')
            (*line)++;
        i++;
    }
    if (i >= len) {
        *pos = i;
        return MB_OK;
    }
    for (;;) {
        /* one field */
        if (i < len && t[i] == '"') {
            size_t open_line = *line;
            i++;
            for (;;) {
                if (i >= len)
                    return mb__fail(err, MB_EFORMAT,
                                    "%s line %zu: unterminated quoted field "
                                    "(the quote opened on line %zu is never "
                                    "closed)",
                                    name, *line, open_line);
                if (t[i] == '"') {
                    if (i + 1 < len && t[i + 1] == '"') {
                        mb__buf_putc(b, '"');
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                if (t[i] == '\n')
                    (*line)++;
                mb__buf_putc(b, t[i++]);
            }
            if (i < len && t[i] != ',' && t[i] != '\n' && t[i] != '\r')
                return bad_quote(err, name, *line,
                                 "text after a closing quote in field",
                                 r->n + 1);
        } else {
            while (i < len && t[i] != ',' && t[i] != '\n' && t[i] != '\r') {
                if (t[i] == '"')
                    return bad_quote(err, name, *line,
                                     "quote inside unquoted field", r->n + 1);
                mb__buf_putc(b, t[i++]);
            }
        }
        if (b->oom || !rec_push(r, b))
            return mb__fail(err, MB_ENOMEM, "out of memory reading %s", name);
        if (i < len && t[i] == ',') {
            i++;
            continue;
        }
        if (i < len && t[i] == '\r')
            i++;
        if (i < len && t[i] == '\n') {
            i++;
            (*line)++;
        }
        break;
    }
    *pos = i;
    *got = true;
    return MB_OK;
}

static int by_name_cmp(const void *a, const void *b, void *ctx)
{
    const mb__csv *csv = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(csv->header[i], csv->header[j]);
    return c ? c : (i > j) - (i < j);
}

/* Sorts the column indices by name into c->by_name; *twice gets a name
 * that appears twice (the one with the earliest second column), or stays
 * NULL.  false when out of memory. */
static bool index_names(mb__csv *c, const char **twice)
{
    c->by_name = mb__calloc(c->ncols ? c->ncols : 1, sizeof *c->by_name);
    if (!c->by_name)
        return false;
    for (size_t i = 0; i < c->ncols; i++)
        c->by_name[i] = i;
    qsort_r(c->by_name, c->ncols, sizeof *c->by_name, by_name_cmp, c);
    size_t best = SIZE_MAX;
    for (size_t k = 1; k < c->ncols; k++) {
        size_t i = c->by_name[k - 1], j = c->by_name[k];
        if (!strcmp(c->header[i], c->header[j]) && j < best) {
            best = j;
            *twice = c->header[j];
        }
    }
    return true;
}

mb_status mb__csv_parse(const char *text, size_t len, const char *name,
                        mb__csv *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    size_t pos = 0, line = 1, cap_cells = 0, cap_lines = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        pos = 3;
    rec r = {0};
    mb__buf b = MB_BUF_INIT;
    size_t start = line;
    bool got;
    mb_status st = read_rec(text, len, &pos, &line, name, &r, &b, &got, err);
    if (!st && !got)
        st = mb__fail(err, MB_EFORMAT,
                      "%s is empty: the first line must name "
                      "the columns",
                      name);
    if (st)
        goto fail;
    out->ncols = r.n;
    out->header = r.f;
    r.f = NULL;
    r.n = r.cap = 0;
    for (size_t c = 0; c < out->ncols; c++) {
        trim(out->header[c]);
        if (!out->header[c][0]) {
            st =
                mb__fail(err, MB_EFORMAT, "%s line %zu: column %zu has no name",
                         name, start, c + 1);
            goto fail;
        }
    }
    const char *twice = NULL;
    if (!index_names(out, &twice)) {
        st = mb__fail(err, MB_ENOMEM, "out of memory reading %s", name);
        goto fail;
    }
    if (twice) {
        st = mb__fail(err, MB_EFORMAT, "%s line %zu: column '%s' appears twice",
                      name, start, twice);
        goto fail;
    }
    for (;;) {
        while (pos < len && (text[pos] == '\n' || text[pos] == '\r')) {
            if (text[pos] == '\n')
                line++;
            pos++;
        }
        start = line;
        if ((st = read_rec(text, len, &pos, &line, name, &r, &b, &got, err)))
            goto fail;
        if (!got)
            break;
        if (r.n != out->ncols) {
            st =
                mb__fail(err, MB_EFORMAT,
                         "%s line %zu: %zu fields, but the header has %zu "
                         "columns (%s)",
                         name, start, r.n, out->ncols,
                         r.n < out->ncols ? "a column is missing"
                                          : "quote fields that contain commas");
            goto fail;
        }
        if (!mb__grow((void **)&out->cells, &cap_cells,
                      (out->nrows + 1) * out->ncols, sizeof *out->cells) ||
            !mb__grow((void **)&out->line, &cap_lines, out->nrows + 1,
                      sizeof *out->line)) {
            st = mb__fail(err, MB_ENOMEM, "out of memory reading %s", name);
            goto fail;
        }
        memcpy(out->cells + out->nrows * out->ncols, r.f, r.n * sizeof *r.f);
        out->line[out->nrows++] = start;
        r.n = 0;
    }
    free(r.f);
    mb__buf_free(&b);
    return MB_OK;
fail:
    rec_clear(&r);
    free(r.f);
    mb__buf_free(&b);
    mb__csv_free(out);
    return st;
}

void mb__csv_free(mb__csv *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->header && i < c->ncols; i++)
        free(c->header[i]);
    for (size_t i = 0; c->cells && i < c->nrows * c->ncols; i++)
        free(c->cells[i]);
    free(c->header);
    free(c->cells);
    free(c->line);
    free(c->by_name);
    memset(c, 0, sizeof *c);
}

int mb__csv_col(const mb__csv *c, const char *name)
{
    size_t lo = 0, hi = c->by_name ? c->ncols : 0;
    while (lo < hi) { /* the first column of that name */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->header[c->by_name[mid]], name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->ncols && c->by_name && !strcmp(c->header[c->by_name[lo]], name))
        return (int)c->by_name[lo];
    return -1;
}

const char *mb__csv_cell(const mb__csv *c, size_t row, size_t col)
{
    return c->cells[row * c->ncols + col];
}
