/* redact.h - hiding credentials in text that gets printed or stored
 * (command lines, database URLs): a password never reaches a result
 * document, a report, a store row or an error message. */
#ifndef MB_CORE_REDACT_H
#define MB_CORE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* A copy of s (caller frees; NULL when out of memory) with secrets
 * replaced by "***":
 *  - the password of a URL's userinfo: postgresql://u:***@host/db; a
 *    userinfo without a password is kept for postgres(ql):// (a user name)
 *    and replaced for any other scheme (https://TOKEN@host is a token);
 *  - the value of a password=, passwd=, pwd= or sslpassword= setting, in
 *    a URL query (?password=...&) or a libpq keyword string
 *    (host=h password='a b'), also spelled --password=...;
 *  - a URL password holding '/', '?', '#' or '@' unencoded: up to the
 *    last '@' of the URL (a query's '@' then goes too);
 *  - every secret registered with mb__redact_register, wherever it is.
 * Text holding %XX is also read decoded: a URL inside a URL is hidden. */
char *mb__redact(const char *s);
/* The same into dst (at most cap bytes, always NUL-terminated). */
void mb__redact_to(char *dst, size_t cap, const char *s);
/* Remembers the secrets mb__redact finds in s (3 bytes or more, at most
 * 16 in all, percent-decoded too), so that mb__redact hides them in any
 * later text; true when s held one.  Called on the program's arguments
 * before anything runs (not thread-safe: call it first). */
bool mb__redact_register(const char *s);
/* The password of the URL url as mb__redact sees it (up to the last '@'
 * of the URL): [*begin, *end); false when it has none. */
bool mb__url_password(const char *url, size_t *begin, size_t *end);

#endif
