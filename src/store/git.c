/* git.c - the git facts of the project being measured (commit, branch,
 * dirty flag, commit date), read by running `git -C DIR ...` through
 * fork/exec (never a shell), so results in the store can be placed on a
 * project's history. */
#include "store/store.h"

#include "core/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Runs git with argv (NULL-terminated, argv[0] == "git") and returns its
 * stdout with trailing whitespace trimmed, or NULL when git is missing or
 * exits non-zero.  stdin and stderr are /dev/null. */
static char *run_git(char *const argv[])
{
    int fd[2];
    if (pipe(fd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp("git", argv);
        _exit(127);
    }
    close(fd[1]);
    mb__buf b = MB_BUF_INIT;
    char chunk[4096];
    for (;;) {
        ssize_t n = read(fd[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (b.len < (1u << 20))
            mb__buf_append(&b, chunk, (size_t)n);
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    size_t got = 0;
    char *out = mb__buf_take(&b, &got);
    if (out)
        out[got] = '\0'; /* an empty buffer's bytes are not terminated */
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || b.oom) {
        free(out);
        return NULL;
    }
    if (!out)
        out = calloc(1, 1);
    if (out) {
        size_t len = strlen(out);
        while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' ' ||
                           out[len - 1] == '\r'))
            out[--len] = '\0';
    }
    return out;
}

static json_t *str_or_null(char *owned)
{
    json_t *j = owned && *owned ? json_string(owned) : json_null();
    free(owned);
    return j;
}

json_t *mb__git_info(const char *dir)
{
    char *d = (char *)(dir && *dir ? dir : ".");
    json_t *o = json_object();
    if (!o)
        return NULL;
    char *commit_argv[] = {"git",      "-C", d,      "rev-parse",
                           "--verify", "-q", "HEAD", NULL};
    char *commit = run_git(commit_argv);
    if (!commit) {
        json_object_set_new(o, "commit", json_null());
        json_object_set_new(o, "branch", json_null());
        json_object_set_new(o, "dirty", json_null());
        json_object_set_new(o, "commit_date", json_null());
        return o;
    }
    json_object_set_new(o, "commit", str_or_null(commit));

    char *branch_argv[] = {"git", "-C",      d,      "symbolic-ref",
                           "-q",  "--short", "HEAD", NULL};
    char *branch = run_git(branch_argv);
    if (!branch || !*branch) {
        /* Detached HEAD, as CI checkouts often are: the CI names it. */
        static const char *const vars[] = {"GITHUB_HEAD_REF", "GITHUB_REF_NAME",
                                           "CI_COMMIT_REF_NAME"};
        for (size_t i = 0; i < 3; i++) {
            const char *v = getenv(vars[i]);
            if (v && *v) {
                free(branch);
                branch = strdup(v);
                break;
            }
        }
    }
    json_object_set_new(o, "branch", str_or_null(branch));

    char *status_argv[] = {
        "git", "-C", d, "status", "--porcelain", "--untracked-files=no", NULL};
    char *status = run_git(status_argv);
    json_object_set_new(o, "dirty",
                        status ? json_boolean(*status != '\0') : json_null());
    free(status);

    char *date_argv[] = {"git", "-C",           d,      "log",
                         "-1",  "--format=%ct", "HEAD", NULL};
    char *date = run_git(date_argv);
    json_t *when = json_null();
    if (date && *date) {
        time_t t = (time_t)strtoll(date, NULL, 10);
        struct tm tm;
        char iso[32];
        if (gmtime_r(&t, &tm) &&
            strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
            when = json_string(iso);
    }
    free(date);
    json_object_set_new(o, "commit_date", when);
    return o;
}

/* A commit id as the store keeps it: 4 to 64 hex digits. */
static int is_commit_id(const char *s)
{
    size_t n = 0;
    for (; s && s[n]; n++) {
        char c = s[n];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return 0;
    }
    return n >= 4 && n <= 64;
}

json_t *mb__git_first_parent(const char *dir, const char *tip)
{
    if (!is_commit_id(tip))
        return NULL;
    char *d = (char *)(dir && *dir ? dir : ".");
    char *argv[] = {
        "git",       "-C",        d,    "rev-list", "--first-parent",
        "--reverse", (char *)tip, "--", NULL};
    char *out = run_git(argv);
    if (!out)
        return NULL;
    json_t *order = json_object();
    json_int_t depth = 0;
    for (char *line = out, *next; order && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (is_commit_id(line) &&
            json_object_set_new(order, line, json_integer(depth++))) {
            json_decref(order);
            order = NULL;
        }
    }
    free(out);
    return order;
}
