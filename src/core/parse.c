/* parse.c - strict number, duration and list parsing. */
#include "core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool mb__parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool mb__parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool mb__parse_duration_ns(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return false;
    double mult;
    if (!*end || strcmp(end, "s") == 0)
        mult = 1e9;
    else if (strcmp(end, "ms") == 0)
        mult = 1e6;
    else if (strcmp(end, "us") == 0)
        mult = 1e3;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mult = 60e9;
    else if (strcmp(end, "h") == 0)
        mult = 3600e9;
    else
        return false;
    double ns = v * mult;
    if (ns > 9e18)
        return false;
    *out = (int64_t)ns;
    return true;
}

bool mb__parse_bytes(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s) || strpbrk(s, "xXpP"))
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return false;
    static const char units[] = "KMGT";
    double mult = 1;
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) {
        mult = ldexp(1, 10 * (int)(u - units + 1));
        end++;
        if ((end[0] == 'i' || end[0] == 'I') &&
            (end[1] == 'B' || end[1] == 'b'))
            end += 2;
    } else if (*end == 'B' || *end == 'b') {
        end++;
    }
    double b = v * mult;
    if (*end || b > ldexp(1, 62) || (!u && b != floor(b)))
        return false;
    *out = (uint64_t)b;
    return true;
}

bool mb__parse_i64_list(const char *s, int64_t lo, int64_t hi, int64_t **out,
                        size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!s || !*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
        return false; /* an empty item ("1,,4") is a typo, not a skip */
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int64_t *v = calloc(cap, sizeof *v);
    char *copy = strdup(s);
    if (!v || !copy) {
        free(v);
        free(copy);
        return false;
    }
    size_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (k == cap || !mb__parse_i64(tok, lo, hi, &v[k])) {
            free(v);
            free(copy);
            return false;
        }
        k++;
    }
    free(copy);
    if (k == 0) {
        free(v);
        return false;
    }
    *out = v;
    *n = k;
    return true;
}

size_t mb__edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

bool mb__ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

const char *mb__assignment_value(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq && eq != s && eq[1] ? eq + 1 : NULL;
}

bool mb__parse_fraction(const char *s, double hi, double *out)
{
    char buf[64];
    size_t L = strlen(s);
    if (L == 0 || L >= sizeof buf)
        return false;
    memcpy(buf, s, L + 1);
    bool pct = buf[L - 1] == '%';
    if (pct)
        buf[L - 1] = '\0';
    double d;
    if (!mb__parse_double(buf, 0, pct ? hi * 100 : hi, &d))
        return false;
    *out = pct ? d / 100 : d;
    return true;
}
