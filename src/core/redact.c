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

/* At s + i there is "://": copies the authority with its password hidden;
 * returns the index just past the copied part. */
static size_t url_authority(const char *s, size_t i, mb_buf *b)
{
    size_t start = i;
    while (start &&
           (isalnum((unsigned char)s[start - 1]) || s[start - 1] == '+' ||
            s[start - 1] == '-' || s[start - 1] == '.'))
        start--;
    size_t slen = i - start;
    int pg = (slen == 10 && strncasecmp(s + start, "postgresql", 10) == 0) ||
             (slen == 8 && strncasecmp(s + start, "postgres", 8) == 0);
    size_t a = i + 3, end = a, at = 0;
    for (; s[end] && !strchr("/?#", s[end]) && !isspace((unsigned char)s[end]);
         end++)
        if (s[end] == '@')
            at = end;
    mb__buf_puts(b, "://");
    if (!at)
        return a;
    const char *colon = memchr(s + a, ':', at - a);
    if (colon) {
        mb__buf_append(b, s + a, (size_t)(colon - (s + a)));
        mb__buf_puts(b, ":***");
    } else if (pg) {
        mb__buf_append(b, s + a, at - a);
    } else {
        mb__buf_puts(b, "***");
    }
    return at; /* the '@' is copied next */
}

static void redact_buf(const char *s, mb_buf *b)
{
    size_t i = 0;
    while (s[i]) {
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

char *mb__redact(const char *s)
{
    mb_buf b = MB_BUF_INIT;
    redact_buf(s ? s : "", &b);
    mb__buf_putc(&b, '\0');
    if (b.oom) {
        mb__buf_free(&b);
        return NULL;
    }
    return mb__buf_take(&b, NULL);
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
