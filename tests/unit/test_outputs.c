/* test_outputs.c - how outputs are written (core/fileio.c) and how
 * credentials are hidden (core/redact.c): a symlink stays a link and its
 * target gets the bytes, a device or FIFO is written through, a replaced
 * file keeps its mode, a bad path fails before any work, and no password
 * survives redaction. */
#include "t.h"

#include "core/fileio.h"
#include "core/redact.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];

static const char *at(const char *name)
{
    static char p[8][4200];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static char *slurp(const char *path)
{
    char *d = NULL;
    mb_err e = {0};
    return mb__read_file(path, &d, NULL, &e) ? NULL : d;
}

static void expect_redacted(const char *in, const char *want)
{
    char *r = mb__redact(in);
    EXPECT_STR(r, want);
    free(r);
}

static void url_passwords_are_hidden(void)
{
    expect_redacted("postgresql://u:secret@db.example/x",
                    "postgresql://u:***@db.example/x");
    expect_redacted("--db=postgres://u:p%40ss@h:5432/x?sslmode=require",
                    "--db=postgres://u:***@h:5432/x?sslmode=require");
    /* a user alone is not a secret for postgres; for https it is a token */
    expect_redacted("postgresql://bench@h/x", "postgresql://bench@h/x");
    expect_redacted("https://ghp_abc@github.com/o/r",
                    "https://***@github.com/o/r");
    expect_redacted("postgresql://h/x?user=u&password=secret&sslmode=a",
                    "postgresql://h/x?user=u&password=***&sslmode=a");
    expect_redacted("postgresql://h/x?sslpassword=secret",
                    "postgresql://h/x?sslpassword=***");
}

/* Issue 37: passwords holding / ? # @ unencoded, a URL inside a URL, and
 * the registered secrets of the arguments wherever they appear. */
static void unencoded_nested_and_registered_secrets_are_hidden(void)
{
    expect_redacted("postgresql://u:a/b?c#d@e@host/db",
                    "postgresql://u:***@host/db");
    expect_redacted("x postgresql://u:p@ss@h:5432/db y",
                    "x postgresql://u:***@h:5432/db y");
    /* a port, then an '@' in the query: nothing hidden */
    expect_redacted("postgresql://h:5432/db?application_name=a@b",
                    "postgresql://h:5432/db?application_name=a@b");
    char *r = mb__redact(
        "https://x/login?next=postgresql%3A%2F%2Fu%3AQx91pw%40h%2Fdb");
    EXPECT(r && !strstr(r, "Qx91pw"));
    free(r);
    EXPECT(mb__redact_register("postgresql://u:Kw7/zz@h/db"));
    EXPECT(!mb__redact_register("plain words"));
    expect_redacted("invalid integer value \"Kw7/zz\" for option",
                    "invalid integer value \"***\" for option");
    size_t b = 0, e = 0;
    EXPECT(mb__url_password("postgresql://u:a/b@h/db", &b, &e));
    EXPECT(b == 15 && e == 18);
    EXPECT(!mb__url_password("postgresql://u@h/db", &b, &e));
}

static void keyword_passwords_are_hidden(void)
{
    expect_redacted("host=h password=secret dbname=x",
                    "host=h password=*** dbname=x");
    expect_redacted("host=h password='se cret' dbname=x",
                    "host=h password=*** dbname=x");
    expect_redacted("PASSWORD=secret", "PASSWORD=***");
    expect_redacted("--password=secret", "--password=***");
    /* libpq's forms: blanks around '=', ; , & # inside a value, an
     * escaped blank */
    expect_redacted("host=h password = secret dbname=x",
                    "host=h password = *** dbname=x");
    expect_redacted("host=h password=se;cr,e&t#x dbname=x",
                    "host=h password=*** dbname=x");
    expect_redacted("host=h password=se\\ cret dbname=x",
                    "host=h password=*** dbname=x");
    expect_redacted("postgresql://h/db?password=se;cret&sslmode=off",
                    "postgresql://h/db?password=***&sslmode=off");
}

static void ordinary_text_is_kept(void)
{
    const char *same[] = {"mbench run model.onnx --json out/r.json",
                          "--shape token_ids=1,128",
                          "--dim batch=4",
                          "a/b@c.onnx",
                          "x_password_y",
                          "",
                          "https://example.com/a@b"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        expect_redacted(same[i], same[i]);
    char small[16];
    mb__redact_to(small, sizeof small, "postgresql://u:secret@h/x");
    EXPECT(!strstr(small, "secret") && !strstr(small, "sec"));
}

static void a_symlink_stays_a_link_and_its_target_is_written(void)
{
    mb_err e = {0};
    EXPECT_EQ_INT(mb__write_file_atomic(at("target.json"), "old", 3, &e),
                  MB_OK);
    EXPECT_EQ_INT(symlink("target.json", at("link.json")), 0);
    EXPECT_EQ_INT(mb__write_file_atomic(at("link.json"), "new", 3, &e), MB_OK);
    struct stat st;
    EXPECT(lstat(at("link.json"), &st) == 0 && S_ISLNK(st.st_mode));
    char *d = slurp(at("target.json"));
    EXPECT_STR(d, "new");
    free(d);
    /* a dangling link creates its target */
    EXPECT_EQ_INT(symlink("made.json", at("dangling.json")), 0);
    EXPECT_EQ_INT(mb__append_file_atomic(at("dangling.json"), "a\n", 2, &e),
                  MB_OK);
    EXPECT_EQ_INT(mb__append_file_atomic(at("dangling.json"), "b\n", 2, &e),
                  MB_OK);
    EXPECT(lstat(at("dangling.json"), &st) == 0 && S_ISLNK(st.st_mode));
    d = slurp(at("made.json"));
    EXPECT_STR(d, "a\nb\n");
    free(d);
}

static void a_device_or_fifo_is_written_through(void)
{
    mb_err e = {0};
    EXPECT_EQ_INT(symlink("/dev/null", at("null.json")), 0);
    EXPECT_EQ_INT(mb__write_file_atomic(at("null.json"), "x", 1, &e), MB_OK);
    struct stat st;
    EXPECT(lstat(at("null.json"), &st) == 0 && S_ISLNK(st.st_mode));
    EXPECT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    EXPECT_EQ_INT(mkfifo(at("fifo"), 0600), 0);
    int r = open(at("fifo"), O_RDONLY | O_NONBLOCK);
    EXPECT(r >= 0);
    EXPECT_EQ_INT(mb__write_file_atomic(at("fifo"), "hello", 5, &e), MB_OK);
    char buf[16] = {0};
    EXPECT_EQ_INT(read(r, buf, sizeof buf - 1), 5);
    EXPECT_STR(buf, "hello");
    close(r);
    EXPECT(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
}

static void a_replaced_file_keeps_its_mode(void)
{
    mb_err e = {0};
    EXPECT_EQ_INT(mb__write_file_atomic(at("private.json"), "1", 1, &e), MB_OK);
    EXPECT_EQ_INT(chmod(at("private.json"), 0600), 0);
    EXPECT_EQ_INT(mb__write_file_atomic(at("private.json"), "2", 1, &e), MB_OK);
    struct stat st;
    EXPECT(stat(at("private.json"), &st) == 0);
    EXPECT_EQ_INT(st.st_mode & 07777, 0600);
}

static void bad_paths_fail_the_check_and_missing_dirs_are_made(void)
{
    mb_err e = {0};
    EXPECT_EQ_INT(mb__output_check(at("new/deeper/r.json"), &e), MB_OK);
    struct stat st;
    EXPECT(stat(at("new/deeper"), &st) == 0 && S_ISDIR(st.st_mode));
    EXPECT(mb__output_check(at("new"), &e) != MB_OK);
    EXPECT_CONTAINS(e.msg, "is a directory");
    EXPECT_EQ_INT(mb__write_file_atomic(at("plain"), "x", 1, &e), MB_OK);
    EXPECT(mb__output_check(at("plain/r.json"), &e) != MB_OK);
    EXPECT_CONTAINS(e.msg, "plain/r.json");
    EXPECT(mb__output_check("/proc/mbench-nope/r.json", &e) != MB_OK);
    EXPECT(mb__output_dir_check(at("plain/sub"), &e) != MB_OK);
    EXPECT_EQ_INT(mb__output_check("-", &e), MB_OK);
    EXPECT_EQ_INT(mb__output_check("/dev/null", &e), MB_OK);
    /* no probe file is left behind */
    EXPECT(access(at("new/deeper/r.json"), F_OK) != 0);
}

int main(void)
{
    const char *base = getenv("MBENCH_TEST_TMP");
    snprintf(dir, sizeof dir, "%s/test_outputs.XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(dir))
        return 1;
    RUN(url_passwords_are_hidden);
    RUN(unencoded_nested_and_registered_secrets_are_hidden);
    RUN(keyword_passwords_are_hidden);
    RUN(ordinary_text_is_kept);
    RUN(a_symlink_stays_a_link_and_its_target_is_written);
    RUN(a_device_or_fifo_is_written_through);
    RUN(a_replaced_file_keeps_its_mode);
    RUN(bad_paths_fail_the_check_and_missing_dirs_are_made);
    return T_DONE();
}
