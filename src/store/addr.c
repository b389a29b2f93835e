/* addr.c - classifying a --db value (addr.h). */
#include "store/addr.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int has_prefix_ci(const char *s, const char *p)
{
    return strncasecmp(s, p, strlen(p)) == 0;
}

static int is_pg_url(const char *s)
{
    return has_prefix_ci(s, "postgresql://") || has_prefix_ci(s, "postgres://");
}

/* Length of a URL scheme followed by "://" at s, or 0. */
static size_t scheme_len(const char *s)
{
    size_t n = 0;
    if (!isalpha((unsigned char)s[0]))
        return 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '+' || s[n] == '-' ||
           s[n] == '.')
        n++;
    return strncmp(s + n, "://", 3) == 0 ? n : 0;
}

/* 1 when a word "[A-Za-z_][A-Za-z0-9_]*" followed by optional blanks and
 * '=' starts at p: libpq's keyword/value syntax. */
static int keyword_at(const char *p)
{
    if (!isalpha((unsigned char)*p) && *p != '_')
        return 0;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '=';
}

/* A keyword/value connection string: a keyword at the start or after
 * white space anywhere in s; or any value holding a password setting
 * (core/redact.h), which must never become a file name. */
static int holds_secret(const char *s)
{
    char *r = mb__redact(s);
    int secret = !r || strcmp(r, s) != 0;
    free(r);
    return secret;
}

static int is_keyword_string(const char *s)
{
    for (const char *p = s; *p; p++)
        if ((p == s || isspace((unsigned char)p[-1])) && keyword_at(p))
            return 1;
    return holds_secret(s);
}

int mb__store_addr_is_postgres(const char *s)
{
    if (!s || has_prefix_ci(s, "sqlite:"))
        return 0;
    return is_pg_url(s) || is_keyword_string(s);
}

mb_status mb__store_addr_parse(const char *s, mb__store_addr *a, mb_err *err)
{
    a->engine = MB__STORE_SQLITE;
    a->target = s;
    if (!s || !*s)
        return mb__fail(err, MB_EINVAL,
                        "no database given: pass --db FILE, --db "
                        "postgresql://... or --db 'host=... dbname=...'");
    if (has_prefix_ci(s, "sqlite:")) {
        a->target = s + 7;
        if (!*a->target || strncmp(a->target, "//", 2) == 0)
            return mb__fail(err, MB_EINVAL,
                            "--db %s: write a SQLite store as sqlite:PATH "
                            "(sqlite:results.db, sqlite:/abs/results.db)",
                            *a->target ? "sqlite://..." : "sqlite:");
        if (holds_secret(a->target))
            return mb__fail(err, MB_EINVAL,
                            "--db sqlite:...: the path holds a password "
                            "setting (password=...); choose a file name "
                            "without one");
        return MB_OK;
    }
    if (is_pg_url(s) || is_keyword_string(s)) {
        a->engine = MB__STORE_POSTGRES;
        return MB_OK;
    }
    size_t n = scheme_len(s);
    if (n)
        return mb__fail(err, MB_EINVAL,
                        "--db: unknown store scheme '%.*s://': use a SQLite "
                        "file (PATH or sqlite:PATH) or PostgreSQL "
                        "(postgresql://... or 'host=... dbname=...')",
                        (int)(n > 32 ? 32 : n), s);
    return MB_OK;
}

char *mb__store_addr_shown(const char *s)
{
    if (!s)
        return mb__strdup("");
    if (!is_pg_url(s))
        return mb__redact(s);
    /* scheme://host/db: neither user nor password */
    const char *rest = strstr(s, "://") + 3;
    /* the last '@' before the query: a password holding '/' or '@'
     * unencoded still ends there */
    const char *end = rest + strcspn(rest, "?#");
    const char *at = NULL;
    for (const char *p = rest; p < end; p++)
        if (*p == '@')
            at = p;
    size_t n = strlen(s) + 1;
    char *shown = mb__malloc(n);
    if (!shown)
        return NULL;
    snprintf(shown, n, "%.*s%s", (int)(rest - s), s, at ? at + 1 : rest);
    char *r = mb__redact(shown); /* and ?password=... */
    free(shown);
    return r;
}
