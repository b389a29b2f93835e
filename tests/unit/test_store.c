/* test_store.c - store addresses (store/addr.h) and SQLite failures the
 * store must name: read-only stores, full disks. */
#include "t.h"

#include "core/err.h"
#include "store/addr.h"
#include "store/store.h"

#include <stdlib.h>

static mb__store_engine engine_of(const char *s)
{
    mb__store_addr a;
    mb_err e = {0};
    return mb__store_addr_parse(s, &a, &e) ? 0 : a.engine;
}

static void urls_and_keyword_strings_are_postgres(void)
{
    EXPECT_EQ_INT(engine_of("postgresql://u:p@h/db"), MB__STORE_POSTGRES);
    EXPECT_EQ_INT(engine_of("postgres://h/db"), MB__STORE_POSTGRES);
    EXPECT_EQ_INT(engine_of("POSTGRESQL://h/db"), MB__STORE_POSTGRES);
    EXPECT_EQ_INT(engine_of("host=127.0.0.1 port=5432 dbname=mb user=u "
                            "password=secret"),
                  MB__STORE_POSTGRES);
    EXPECT_EQ_INT(engine_of("dbname=mb"), MB__STORE_POSTGRES);
    EXPECT_EQ_INT(engine_of("  host = h"), MB__STORE_POSTGRES);
    EXPECT_EQ_INT(engine_of("service=ci"), MB__STORE_POSTGRES);
    /* a keyword after a space, and any password setting */
    EXPECT_EQ_INT(engine_of("results.db password=x"), MB__STORE_POSTGRES);
    EXPECT_EQ_INT(engine_of("a?password=x"), MB__STORE_POSTGRES);
}

static void paths_and_sqlite_scheme_are_sqlite(void)
{
    mb__store_addr a;
    mb_err e = {0};
    EXPECT_EQ_INT(engine_of("results.db"), MB__STORE_SQLITE);
    EXPECT_EQ_INT(engine_of("/var/lib/mb/results.db"), MB__STORE_SQLITE);
    EXPECT_EQ_INT(engine_of("./a=b.db"), MB__STORE_SQLITE);
    EXPECT_EQ_INT(engine_of("dir with spaces/r.db"), MB__STORE_SQLITE);
    EXPECT_EQ_INT(mb__store_addr_parse("sqlite:a=b.db", &a, &e), MB_OK);
    EXPECT_EQ_INT(a.engine, MB__STORE_SQLITE);
    EXPECT_STR(a.target, "a=b.db");
}

static void unknown_schemes_and_empty_values_are_refused(void)
{
    mb__store_addr a;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__store_addr_parse("mysql://h/db", &a, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "unknown store scheme 'mysql://'");
    EXPECT_EQ_INT(mb__store_addr_parse("", &a, &e), MB_EINVAL);
    EXPECT_EQ_INT(mb__store_addr_parse("sqlite:", &a, &e), MB_EINVAL);
    EXPECT_EQ_INT(mb__store_addr_parse("sqlite:///x.db", &a, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "sqlite:PATH");
    EXPECT_EQ_INT(mb__store_addr_parse("sqlite:x password=s", &a, &e),
                  MB_EINVAL);
    EXPECT(!strstr(e.msg, "password=s"));
}

static void shown_addresses_hold_no_password(void)
{
    char *s = mb__store_addr_shown("host=h dbname=d user=u password=hunter2");
    EXPECT_STR(s, "host=h dbname=d user=u password=***");
    free(s);
    s = mb__store_addr_shown("postgresql://u:hunter2@h:5432/db?sslmode=off");
    EXPECT_STR(s, "postgresql://h:5432/db?sslmode=off");
    free(s);
    s = mb__store_addr_shown("postgresql://u:hun/ter2@h/db");
    EXPECT(s && !strstr(s, "hun") && !strstr(s, "ter2"));
    free(s);
}

static void a_bad_keyword_string_does_not_echo_the_password(void)
{
    mb__store *st = NULL;
    mb_err e = {0};
    EXPECT_EQ_INT(mb__store_open("host=h password=hunter2 x", &st, &e),
                  MB_EINVAL);
    EXPECT(!st);
    EXPECT(!strstr(e.msg, "hunter2"));
    EXPECT_CONTAINS(e.msg, "not a valid PostgreSQL connection string");
}

int main(void)
{
    RUN(urls_and_keyword_strings_are_postgres);
    RUN(paths_and_sqlite_scheme_are_sqlite);
    RUN(unknown_schemes_and_empty_values_are_refused);
    RUN(shown_addresses_hold_no_password);
    RUN(a_bad_keyword_string_does_not_echo_the_password);
    return T_DONE();
}
