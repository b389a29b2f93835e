/* redact.h - hiding credentials in text that gets printed or stored
 * (command lines, database URLs): a password never reaches a result
 * document, a report, a store row or an error message. */
#ifndef MB_CORE_REDACT_H
#define MB_CORE_REDACT_H

#include <stddef.h>

/* A copy of s (caller frees; NULL when out of memory) with secrets
 * replaced by "***":
 *  - the password of a URL's userinfo: postgresql://u:***@host/db; a
 *    userinfo without a password is kept for postgres(ql):// (a user name)
 *    and replaced for any other scheme (https://TOKEN@host is a token);
 *  - the value of a password=, passwd=, pwd= or sslpassword= setting, in
 *    a URL query (?password=...&) or a libpq keyword string
 *    (host=h password='a b'), also spelled --password=... */
char *mb__redact(const char *s);
/* The same into dst (at most cap bytes, always NUL-terminated). */
void mb__redact_to(char *dst, size_t cap, const char *s);

#endif
