/* tasks.c - loading and checking suite task tables (see tasks.h). */
#include "exec/tasks.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/fileio.h"
#include "core/redact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const training_cols[] = {
    "branch", "experiment", "trainer", "max_epochs", "batch_size", NULL};
static const char *const inference_cols[] = {
    "branch",     "experiment", "checkpoint_path", "data_path", "trainer",
    "batch_size", NULL};

static mb_status need(const mb__tasks *t, const char *const *cols,
                      const char *what, mb_err *err)
{
    mb__buf miss = MB_BUF_INIT;
    for (size_t i = 0; cols[i]; i++)
        if (mb__csv_col(&t->csv, cols[i]) < 0)
            mb__buf_printf(&miss, "%s%s", miss.len ? ", " : "", cols[i]);
    if (!miss.len)
        return MB_OK;
    mb__fail(err, MB_EFORMAT,
             "%s: the %s task format lacks column(s) %s "
             "(header line 1)",
             t->path, what, miss.data);
    mb__buf_free(&miss);
    return MB_EFORMAT;
}

/* Checks every {name} of s against the columns; MB_EINVAL names the first
 * unknown one. */
static mb_status check_placeholders(const mb__tasks *t, const char *s,
                                    const char *where, mb_err *err)
{
    for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
        const char *q = strchr(p, '}');
        if (!q)
            break;
        char name[256];
        size_t n = (size_t)(q - p - 1);
        if (n == 0 || n >= sizeof name)
            continue;
        memcpy(name, p + 1, n);
        name[n] = '\0';
        if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789_-") != n)
            continue; /* not a placeholder: shell braces, JSON, ... */
        if (mb__csv_col(&t->csv, name) >= 0 || !strcmp(name, "workdir") ||
            !strcmp(name, "index") || !strcmp(name, "root"))
            continue;
        mb__buf cols = MB_BUF_INIT;
        for (size_t i = 0; i < t->csv.ncols; i++)
            mb__buf_printf(&cols, "%s%s", i ? ", " : "", t->csv.header[i]);
        mb__fail(err, MB_EINVAL,
                 "%s: unknown placeholder {%s}; the columns of %s are: %s "
                 "(and {workdir}, {root}, {index})",
                 where, name, t->path, cols.data ? cols.data : "");
        mb__buf_free(&cols);
        return MB_EINVAL;
    }
    return MB_OK;
}

mb_status mb__tasks_load(const char *path, const char *tmpl, mb__tasks *t,
                         mb_err *err)
{
    memset(t, 0, sizeof *t);
    t->col_branch = t->col_experiment = t->col_command = -1;
    char *text = NULL;
    size_t len = 0;
    mb_status st = mb__read_file(path, &text, &len, err);
    if (st != MB_OK)
        return st;
    st = mb__tasks_parse(text, len, path, tmpl, t, err);
    free(text);
    return st;
}

mb_status mb__tasks_parse(const char *text, size_t len, const char *path,
                          const char *tmpl, mb__tasks *t, mb_err *err)
{
    memset(t, 0, sizeof *t);
    t->col_branch = t->col_experiment = t->col_command = -1;
    t->path = mb__strdup(path);
    if (!t->path)
        return mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
    mb_status st = mb__csv_parse(text, len, path, &t->csv, err);
    if (st != MB_OK) {
        mb__tasks_free(t);
        return st;
    }
    t->col_branch = mb__csv_col(&t->csv, "branch");
    t->col_experiment = mb__csv_col(&t->csv, "experiment");
    t->col_command = mb__csv_col(&t->csv, "command");
    if (mb__csv_col(&t->csv, "model") >= 0) {
        t->kind = MB_TASK_MODEL;
        t->format = "model";
    } else {
        t->kind = MB_TASK_COMMAND;
        t->format = "command";
        if (mb__csv_col(&t->csv, "checkpoint_path") >= 0 ||
            mb__csv_col(&t->csv, "data_path") >= 0) {
            t->format = "inference";
            st = need(t, inference_cols, "inference", err);
        } else if (mb__csv_col(&t->csv, "max_epochs") >= 0) {
            t->format = "training";
            st = need(t, training_cols, "training", err);
        }
        if (st == MB_OK && !tmpl && t->col_command < 0)
            st = mb__fail(err, MB_EINVAL,
                          "%s has no 'command' column and no --command "
                          "template was given: pass --command 'python "
                          "train.py experiment={experiment} ...' or add a "
                          "command column (a 'model' column makes rows "
                          "model tasks)",
                          path);
        if (st == MB_OK && tmpl) {
            t->template_ = mb__strdup(tmpl);
            st = check_placeholders(t, tmpl, "--command", err);
        }
        for (size_t r = 0; st == MB_OK && !tmpl && r < t->csv.nrows; r++) {
            char where[512];
            snprintf(where, sizeof where, "%s line %zu, command", path,
                     t->csv.line[r]);
            const char *c = mb__csv_cell(&t->csv, r, (size_t)t->col_command);
            if (!c[0])
                st = mb__fail(err, MB_EINVAL, "%s is empty", where);
            else
                st = check_placeholders(t, c, where, err);
        }
    }
    if (st != MB_OK)
        mb__tasks_free(t);
    return st;
}

void mb__tasks_free(mb__tasks *t)
{
    if (!t)
        return;
    mb__csv_free(&t->csv);
    free(t->template_);
    free(t->path);
    memset(t, 0, sizeof *t);
}

const char *mb__tasks_get(const mb__tasks *t, size_t row, const char *name)
{
    int c = mb__csv_col(&t->csv, name);
    return c < 0 ? NULL : mb__csv_cell(&t->csv, row, (size_t)c);
}

/* v as one word for the sh-like splitter (and for /bin/sh -c): quoted
 * with single quotes when it holds anything but plain characters. */
static void put_word(mb__buf *b, const char *v)
{
    if (*v && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_-+=/.,:@%^") == strlen(v)) {
        mb__buf_puts(b, v);
        return;
    }
    mb__buf_putc(b, '\'');
    for (; *v; v++)
        if (*v == '\'')
            mb__buf_puts(b, "'\\''");
        else
            mb__buf_putc(b, *v);
    mb__buf_putc(b, '\'');
}

/* A comma-separated list as separate words; nothing when empty. */
static void put_list(mb__buf *b, const char *v)
{
    int first = 1;
    while (*v) {
        const char *e = strchr(v, ',');
        size_t n = e ? (size_t)(e - v) : strlen(v);
        while (n && (*v == ' ' || *v == '\t')) {
            v++;
            n--;
        }
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            n--;
        if (n) {
            char *w = mb__strndup(v, n);
            if (w) {
                if (!first)
                    mb__buf_putc(b, ' ');
                put_word(b, w);
                first = 0;
                free(w);
            }
        }
        if (!e)
            break;
        v = e + 1;
    }
}

mb_status mb__tasks_command(const mb__tasks *t, size_t row, const char *workdir,
                            char **out, mb_err *err)
{
    *out = NULL;
    const char *s = t->template_
                        ? t->template_
                        : mb__csv_cell(&t->csv, row, (size_t)t->col_command);
    mb_status st = check_placeholders(t, s, "command", err);
    if (st != MB_OK)
        return st;
    mb__buf b = MB_BUF_INIT;
    for (const char *p = s; *p;) {
        const char *q = *p == '{' ? strchr(p, '}') : NULL;
        if (q) {
            char name[256];
            size_t n = (size_t)(q - p - 1);
            if (n && n < sizeof name) {
                memcpy(name, p + 1, n);
                name[n] = '\0';
                const char *v = mb__tasks_get(t, row, name);
                char idx[32];
                if (!v && !strcmp(name, "workdir"))
                    v = workdir ? workdir : ".";
                if (!v && !strcmp(name, "root"))
                    v = t->root ? t->root : ".";
                char *rooted = NULL; /* {root} inside a cell */
                if (v && strstr(v, "{root}")) {
                    mb__buf r = MB_BUF_INIT;
                    for (const char *c = v; *c;)
                        if (!strncmp(c, "{root}", 6)) {
                            mb__buf_puts(&r, t->root ? t->root : ".");
                            c += 6;
                        } else {
                            mb__buf_putc(&r, *c++);
                        }
                    v = rooted = mb__buf_take(&r, NULL);
                }
                if (!v && !strcmp(name, "index")) {
                    snprintf(idx, sizeof idx, "%zu", row);
                    v = idx;
                }
                if (v) {
                    if (!strcmp(name, "overrides"))
                        put_list(&b, v);
                    else
                        put_word(&b, v);
                    free(rooted);
                    p = q + 1;
                    continue;
                }
                free(rooted);
            }
        }
        mb__buf_putc(&b, *p++);
    }
    if (b.oom) {
        mb__buf_free(&b);
        return mb__fail(err, MB_ENOMEM, "out of memory");
    }
    *out = mb__buf_take(&b, NULL);
    return MB_OK;
}

json_t *mb__tasks_row_json(const mb__tasks *t, size_t row)
{
    json_t *o = json_object();
    for (size_t c = 0; c < t->csv.ncols; c++) { /* never a password */
        char *shown = mb__redact(mb__csv_cell(&t->csv, row, c));
        json_object_set_new(o, t->csv.header[c],
                            json_string(shown ? shown : "***"));
        free(shown);
    }
    return o;
}
