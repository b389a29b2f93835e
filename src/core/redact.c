/* redact.c - replaces passwords in URLs and key=value settings. */
#include "redact.h"

#include "buf.h"

#include <stdbool.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool secret_key(const char *k, size_t n)
{
    static const char *const keys[] = {"password", "passwd", "pwd",
                                       "sslpassword"};
    while (n && *k == '-') {
        k++;
        n--;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i]) == n && strncasecmp(k, keys[i], n) == 0)
            return true;
    return false;
}

static bool key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Secrets seen in this process's arguments (mb__redact_register): hidden
 * wherever they appear, also in text that does not look like a URL (a
 * library's error echoing a piece of a malformed one). */
#define MAX_SECRETS 16
static char *secrets[MAX_SECRETS];
static size_t n_secrets;

/* Collects what redact_buf hides when set (mb__redact_register). */
static bool collecting;

static void collect(const char *s, size_t n)
{
    if (!collecting || n < 3 || n_secrets >= MAX_SECRETS)
        return;
    for (size_t i = 0; i < n_secrets; i++)
        if (strlen(secrets[i]) == n && !memcmp(secrets[i], s, n))
            return;
    char *c = malloc(n + 1);
    if (!c)
        return;
    memcpy(c, s, n);
    c[n] = '\0';
    secrets[n_secrets++] = c;
}

/* The end of the password that starts at p (after the userinfo's ':')
 * in the URL token ending at end: the LAST '@' of the token, so that a
 * password holding '/', '?', '#' or '@' unencoded is hidden whole (a
 * query holding an '@' is hidden too: the safe side); 0 when there is
 * none, or when p starts a port ("host:5432/db"). */
static size_t password_end(const char *s, size_t p, size_t end)
{
    size_t at = 0;
    for (size_t k = p; k < end; k++)
        if (s[k] == '@')
            at = k;
    if (!at)
        return 0;
    size_t d = p;
    while (d < end && isdigit((unsigned char)s[d]))
        d++;
    if (d > p && d < at && strchr("/?#,", s[d]))
        return 0; /* host:PORT/... with an '@' further on */
    return at;
}

/* At s + i there is "://": copies the authority with its password hidden;
 * returns the index just past the copied part. */
static size_t url_authority(const char *s, size_t i, mb__buf *b)
{
    size_t start = i;
    while (start &&
           (isalnum((unsigned char)s[start - 1]) || s[start - 1] == '+' ||
            s[start - 1] == '-' || s[start - 1] == '.'))
        start--;
    size_t slen = i - start;
    int pg = (slen == 10 && strncasecmp(s + start, "postgresql", 10) == 0) ||
             (slen == 8 && strncasecmp(s + start, "postgres", 8) == 0);
    size_t a = i + 3, tok = a, end = a, at = 0, colon = 0;
    while (s[tok] && !isspace((unsigned char)s[tok]) && s[tok] != '"' &&
           s[tok] != '\'')
        tok++;
    for (size_t k = a; k < tok && !strchr("/?#@", s[k]); k++)
        if (s[k] == ':') {
            colon = k;
            break;
        }
    mb__buf_puts(b, "://");
    if (colon && (at = password_end(s, colon + 1, tok)) != 0) {
        mb__buf_append(b, s + a, colon - a);
        mb__buf_puts(b, ":***");
        collect(s + colon + 1, at - colon - 1);
        return at; /* the '@' is copied next */
    }
    for (end = a; end < tok && !strchr("/?#", s[end]); end++)
        if (s[end] == '@')
            at = end;
    if (!at)
        return a;
    if (pg) {
        mb__buf_append(b, s + a, at - a);
    } else {
        mb__buf_puts(b, "***");
        collect(s + a, at - a);
    }
    return at; /* the '@' is copied next */
}

/* The length of the registered secret at s, or 0. */
static size_t secret_at(const char *s)
{
    for (size_t k = 0; k < n_secrets; k++) {
        size_t n = strlen(secrets[k]);
        if (!strncmp(s, secrets[k], n))
            return n;
    }
    return 0;
}

static void redact_buf(const char *s, mb__buf *b)
{
    size_t i = 0;
    while (s[i]) {
        size_t sn = n_secrets ? secret_at(s + i) : 0;
        if (sn) {
            mb__buf_puts(b, "***");
            i += sn;
            continue;
        }
        if (strncmp(s + i, "://", 3) == 0) {
            i = url_authority(s, i, b);
            continue;
        }
        /* a key=value whose key starts here */
        if (key_char(s[i]) && (i == 0 || !key_char(s[i - 1]))) {
            size_t k = i, eq = i;
            while (key_char(s[k]))
                k++;
            /* libpq also takes "password = value" */
            for (eq = k; s[eq] == ' ' || s[eq] == '\t';)
                eq++;
            if (s[eq] == '=' && (i == 0 || strchr("?&; \t\n,", s[i - 1])) &&
                secret_key(s + i, k - i)) {
                size_t v = eq + 1;
                while (s[v] == ' ' || s[v] == '\t')
                    v++;
                mb__buf_append(b, s + i, v - i);
                mb__buf_puts(b, "***");
                size_t v0 = v;
                if (s[v] == '\'' || s[v] == '"') {
                    char q = s[v++];
                    while (s[v] && s[v] != q)
                        v += s[v] == '\\' && s[v + 1] ? 2 : 1;
                    if (s[v])
                        v++;
                } else {
                    /* a URL query value ends at & or #; a libpq keyword
                     * value only at white space (it may hold ; , & #,
                     * and a backslash escapes the next character) */
                    int query = i > 0 && strchr("?&", s[i - 1]);
                    while (s[v] && !isspace((unsigned char)s[v]) &&
                           !(query && strchr("&#", s[v])))
                        v += s[v] == '\\' && s[v + 1] ? 2 : 1;
                }
                collect(s + v0, v - v0);
                i = v;
                continue;
            }
            mb__buf_append(b, s + i, k - i);
            i = k;
            continue;
        }
        mb__buf_putc(b, s[i++]);
    }
}

/* %XX decoded (other bytes as they are); NULL when out of memory. */
static char *percent_decoded(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1), *o = d;
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && isxdigit((unsigned char)s[i + 1]) &&
            isxdigit((unsigned char)s[i + 2])) {
            char h[3] = {s[i + 1], s[i + 2], 0};
            *o++ = (char)strtol(h, NULL, 16);
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    return d;
}

/* redact_buf into a new string; NULL when out of memory. */
static char *redact_once(const char *s)
{
    mb__buf b = MB_BUF_INIT;
    redact_buf(s, &b);
    mb__buf_putc(&b, '\0');
    if (b.oom) {
        mb__buf_free(&b);
        return NULL;
    }
    return mb__buf_take(&b, NULL);
}

char *mb__redact(const char *s)
{
    s = s ? s : "";
    char *r = redact_once(s);
    if (!r || !strchr(s, '%'))
        return r;
    /* percent-encoded secrets: when the decoded text hides something,
     * the decoded text, hidden, is what is shown */
    char *d = percent_decoded(s), *rd = d ? redact_once(d) : NULL;
    if (!d || !rd) {
        free(d);
        free(rd);
        free(r);
        return NULL;
    }
    if (strcmp(rd, d) != 0) {
        free(r);
        r = rd;
    } else {
        free(rd);
    }
    free(d);
    return r;
}

void mb__redact_to(char *dst, size_t cap, const char *s)
{
    if (!cap)
        return;
    char *r = mb__redact(s);
    /* out of memory: say nothing rather than the secret */
    snprintf(dst, cap, "%s", r ? r : "(hidden)");
    free(r);
}

bool mb__redact_register(const char *s)
{
    if (!s)
        return false;
    size_t before = n_secrets;
    collecting = true;
    char *r = mb__redact(s);
    collecting = false;
    bool found = !r || strcmp(r, s) != 0;
    free(r);
    /* a percent-encoded secret in its decoded spelling too */
    for (size_t k = before; k < n_secrets && n_secrets < MAX_SECRETS; k++)
        if (strchr(secrets[k], '%')) {
            char *dk = percent_decoded(secrets[k]);
            if (dk && strlen(dk) >= 3)
                secrets[n_secrets++] = dk;
            else
                free(dk);
        }
    return found;
}

bool mb__url_password(const char *url, size_t *begin, size_t *end)
{
    const char *sep = strstr(url, "://");
    if (!sep)
        return false;
    size_t a = (size_t)(sep - url) + 3, tok = a, colon = 0;
    while (url[tok] && !isspace((unsigned char)url[tok]))
        tok++;
    for (size_t k = a; k < tok && !strchr("/?#@", url[k]); k++)
        if (url[k] == ':') {
            colon = k;
            break;
        }
    size_t at = colon ? password_end(url, colon + 1, tok) : 0;
    if (!at)
        return false;
    *begin = colon + 1;
    *end = at;
    return true;
}
