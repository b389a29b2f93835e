/* fuzz_redact.c - libFuzzer harness for credentials: redaction
 * (mb__redact, src/core/redact.c) and the store-address rule
 * (mb__store_addr_parse, mb__store_addr_shown, src/store/addr.c).  Any
 * input runs through all three.  The input's longest alphanumeric run of
 * 12 or more characters is also planted as a password in the forms users
 * write (URL userinfo, ?password=, keyword string with and without
 * quotes, --password=) around the rest of the input: it must not appear
 * in what is shown, and a keyword string must never be classified as a
 * SQLite file.  Built by `make fuzz`. */
#include "core/buf.h"
#include "core/redact.h"
#include "store/addr.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must_hide(const char *text, const char *secret, int is_store)
{
    char *r = mb__redact(text);
    if (r && strstr(r, secret))
        abort();
    free(r);
    if (!is_store)
        return;
    mb__store_addr a;
    mb_err err = {0};
    mb_status st = mb__store_addr_parse(text, &a, &err);
    if (st == MB_OK && a.engine != MB__STORE_POSTGRES)
        abort(); /* a value holding a password became a file name */
    if (st != MB_OK && strstr(err.msg, secret))
        abort(); /* the refusal shows it */
    char *s = mb__store_addr_shown(text);
    if (s && strstr(s, secret))
        abort();
    free(s);
}

static void plant(const char *rest, const char *secret)
{
    static const char *const forms[] = {
        "postgresql://user:%s@host:5432/db%s",
        "postgres://host/db?sslmode=off&password=%s&%s",
        "host=h dbname=d password=%s %s",
        "host=h password='%s' %s",
        "dbname=x password = %s",
        "mbench run m.onnx --password=%s %s",
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        mb__buf b = MB_BUF_INIT;
        mb__buf_printf(&b, forms[i], secret, rest);
        mb__buf_putc(&b, '\0');
        if (!b.oom)
            must_hide(b.data, secret, i < 5);
        mb__buf_free(&b);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t len = strlen(text);
    free(mb__redact(text));
    mb__store_addr a;
    mb_err err;
    (void)mb__store_addr_parse(text, &a, &err);
    (void)mb__store_addr_is_postgres(text);
    free(mb__store_addr_shown(text));
    /* the longest run of [A-Za-z0-9] as the secret */
    size_t best = 0, at = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && isalnum((unsigned char)text[j]))
            j++;
        if (j - i > best)
            best = j - i, at = i;
        i = j > i ? j : i + 1;
    }
    if (best >= 12) {
        char secret[64];
        snprintf(secret, sizeof secret, "%.*s", (int)(best > 63 ? 63 : best),
                 text + at);
        /* the rest must not repeat it: it would show legitimately */
        char *rest = malloc(len + 1);
        if (rest) {
            size_t k = 0;
            for (size_t i = 0; i < len; i++)
                if (i < at || i >= at + best)
                    rest[k++] = isalnum((unsigned char)text[i]) ? '.' : text[i];
            rest[k] = '\0';
            plant(rest, secret);
            free(rest);
        }
    }
    free(text);
    return 0;
}
