/* fileio.c - file reading, mapping, hashing and atomic writes. */
#include "fileio.h"

#include "alloc.h"
#include "err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static mb_status write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return MB_EIO;
        }
        p += w;
        len -= (size_t)w;
    }
    return MB_OK;
}

/* Whether path p names one of this process's own descriptors, and which
 * (*fd): "-" (stdout), /dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N, /proc/thread-self/fd/N or /proc/<our pid>/fd/N.  Such a path
 * must be written through the descriptor: the symlinks in /proc are not files
 * to replace, and reopening them would start again at offset 0 of a redirected
 * file. */
static bool own_fd(const char *p, int *fd)
{
    if (strcmp(p, "-") == 0 || strcmp(p, "/dev/stdout") == 0)
        return *fd = 1, true;
    if (strcmp(p, "/dev/stderr") == 0)
        return *fd = 2, true;
    const char *n = NULL;
    char mine[64];
    snprintf(mine, sizeof mine, "/proc/%ld/fd/", (long)getpid());
    if (strncmp(p, "/dev/fd/", 8) == 0)
        n = p + 8;
    else if (strncmp(p, "/proc/self/fd/", 14) == 0)
        n = p + 14;
    else if (strncmp(p, "/proc/thread-self/fd/", 21) == 0)
        n = p + 21;
    else if (strncmp(p, mine, strlen(mine)) == 0)
        n = p + strlen(mine);
    if (!n || *n < '0' || *n > '9')
        return false;
    char *end;
    long v = strtol(n, &end, 10);
    if (*end || v > 1 << 20)
        return false;
    *fd = (int)v;
    return true;
}

/* Follows the symlinks of path (not the last target, which may be
 * missing) to where the bytes belong: *fd >= 0 for one of our own
 * descriptors, else *target (caller frees) is a path that is not a
 * symlink.  A relative link is relative to the directory holding it. */
static mb_status resolve(const char *path, int *fd, char **target, mb_err *err)
{
    *fd = -1;
    *target = NULL;
    char *cur = mb__strdup(path);
    if (!cur)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    for (int hops = 0; hops < 40; hops++) {
        if (own_fd(cur, fd)) {
            free(cur);
            return MB_OK;
        }
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            *target = cur;
            return MB_OK;
        }
        char link[4096];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            *target = cur;
            return MB_OK;
        }
        link[n] = '\0';
        char *next;
        const char *slash = strrchr(cur, '/');
        if (link[0] == '/' || !slash) {
            next = mb__strdup(link);
        } else {
            size_t dl = (size_t)(slash - cur) + 1;
            next = mb__malloc(dl + (size_t)n + 1);
            if (next) {
                memcpy(next, cur, dl);
                memcpy(next + dl, link, (size_t)n + 1);
            }
        }
        free(cur);
        if (!next)
            return mb__fail(err, MB_ENOMEM, "out of memory");
        cur = next;
    }
    free(cur);
    return mb__fail(err, MB_EIO,
                    "cannot write %s: too many levels of symbolic links "
                    "(fix the link chain or choose another path)",
                    path);
}

/* "/" unless p already ends with one: for DIR + sep + NAME in messages. */
static const char *sep_after(const char *p)
{
    size_t n = strlen(p);
    return n && p[n - 1] == '/' ? "" : "/";
}

char *mb__dir_of(const char *p)
{
    const char *slash = strrchr(p, '/');
    if (!slash)
        return mb__strdup(".");
    return mb__strndup(p, slash == p ? 1 : (size_t)(slash - p));
}

mb_status mb__mkdirs(const char *dir, mb_err *err)
{
    char *d = mb__strdup(dir);
    if (!d)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    for (char *p = d + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(d, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            mb_status s = mb__fail(
                err, MB_EIO, "cannot create directory %s: %s (%s)", d,
                strerror(e),
                e == ENOTDIR ? "a file is in the way: remove it or choose "
                               "another path"
                             : "create it yourself or choose another path");
            free(d);
            return s;
        }
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    mb_status s = MB_OK;
    if (stat(d, &st) != 0)
        s = mb__fail(err, MB_EIO,
                     "cannot create directory %s: %s (choose "
                     "another path)",
                     d, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        s = mb__fail(err, MB_EIO,
                     "cannot create directory %s: a file of that name is in "
                     "the way (remove it or choose another path)",
                     d);
    free(d);
    return s;
}

/* This host's tag in temp names: a killed mbench's temp files are
 * removed by the next write into the same directory on the same host
 * (another host sharing the directory has other pids). */
static unsigned long host_tag(void)
{
    char h[256] = "";
    gethostname(h, sizeof h - 1);
    uint32_t x = 2166136261u;
    for (const char *p = h; *p; p++)
        x = (x ^ (unsigned char)*p) * 16777619u;
    return x;
}

/* Removes the temp files ".mbench-PID-TAG-*.tmp" of dir that a process
 * of this host that no longer runs left behind (killed while writing). */
static void remove_stale_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    unsigned long tag = host_tag();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = 0;
        unsigned long t = 0;
        int end = 0;
        size_t nl = strlen(e->d_name);
        if (strncmp(e->d_name, ".mbench-", 8) != 0 || nl < 12 ||
            strcmp(e->d_name + nl - 4, ".tmp") != 0 ||
            sscanf(e->d_name, ".mbench-%ld-%8lx-%n", &pid, &t, &end) != 2 ||
            end == 0 || t != tag || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* Creates a new empty file in dir with a fresh name (O_EXCL) and mode
 * 0666 less the umask; *tmp (caller frees) is its path.  The name holds
 * our pid and host_tag (remove_stale_temps). */
static int open_temp(const char *dir, char **tmp)
{
    size_t dl = strlen(dir);
    *tmp = mb__malloc(dl + 64);
    if (!*tmp)
        return errno = ENOMEM, -1;
    for (int tries = 0; tries < 100; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(*tmp, dl + 64, "%s/.mbench-%ld-%08lx-%lx%02d.tmp", dir,
                 (long)getpid(), host_tag(), (unsigned long)ts.tv_nsec, tries);
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return errno = EEXIST, -1;
}

/* Writes a + b through a descriptor (ours, a device, a FIFO). */
static mb_status write_fd(int fd, const char *path, const void *a, size_t alen,
                          const void *b, size_t blen, mb_err *err)
{
    if (write_all(fd, a, alen) || write_all(fd, b, blen))
        return mb__fail(err, MB_EIO, "cannot write %s: %s", path,
                        strerror(errno));
    return MB_OK;
}

/* The temp file + fsync + rename of a regular file, in target's own
 * directory; a replaced file keeps its mode (and, when allowed, owner). */
static mb_status replace_regular(const char *path, const char *target,
                                 const void *a, size_t alen, const void *b,
                                 size_t blen, mb_err *err)
{
    char *dir = mb__dir_of(target), *tmp = NULL;
    if (!dir)
        return mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    remove_stale_temps(dir);
    int fd = open_temp(dir, &tmp);
    if (fd < 0 && errno == ENOENT && mb__mkdirs(dir, err) == MB_OK) {
        free(tmp);
        fd = open_temp(dir, &tmp);
    }
    if (fd < 0) {
        int e = errno;
        free(tmp);
        mb_status s = mb__fail(err, MB_EIO,
                               "cannot write %s: %s (check that %s exists "
                               "and is writable)",
                               path, strerror(e), dir);
        free(dir);
        return s;
    }
    free(dir);
    struct stat old;
    if (stat(target, &old) == 0 && S_ISREG(old.st_mode)) {
        if (fchmod(fd, old.st_mode & 07777) != 0) {
            /* keeps the default mode: not worth losing the result */
        }
        if ((old.st_uid != geteuid() || old.st_gid != getegid()) &&
            fchown(fd, old.st_uid, old.st_gid) != 0) {
            /* only root may give a file away: keep our own */
        }
    }
    int e = 0;
    if (write_all(fd, a, alen) || write_all(fd, b, blen))
        e = errno ? errno : EIO;
    if (!e && fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, target) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        free(tmp);
        return mb__fail(err, MB_EIO,
                        "cannot write %s: %s (the previous file, if any, is "
                        "untouched; free some space or choose another path)",
                        path, strerror(e));
    }
    free(tmp);
    return MB_OK;
}

/* Where an output path's bytes go: one of our descriptors (fd >= 0), or
 * target (not a symlink; caller frees) with what stat says of it. */
typedef struct dest {
    int fd;
    char *target;
    bool exists;    /* stat succeeded: st holds */
    int stat_errno; /* why it did not */
    struct stat st;
} dest;

static mb_status locate(const char *path, dest *d, mb_err *err)
{
    mb_status s = resolve(path, &d->fd, &d->target, err);
    if (s == MB_OK && d->target) {
        d->exists = stat(d->target, &d->st) == 0;
        d->stat_errno = d->exists ? 0 : errno;
    } else {
        d->exists = false;
    }
    return s;
}

/* The error for an output path that is a directory. */
static mb_status is_a_directory(const char *path, mb_err *err)
{
    return mb__fail(err, MB_EIO,
                    "cannot write %s: it is a directory (name a file, e.g. "
                    "%s%sresult.json)",
                    path, path, sep_after(path));
}

/* Writes a + b to path, the way its kind of path needs (fileio.h). */
static mb_status write_out(const char *path, const void *a, size_t alen,
                           const void *b, size_t blen, int append, mb_err *err)
{
    dest d;
    mb_status s = locate(path, &d, err);
    if (s)
        return s;
    if (d.fd >= 0) {
        fflush(stdout);
        fflush(stderr);
        return write_fd(d.fd, strcmp(path, "-") ? path : "stdout", a, alen, b,
                        blen, err);
    }
    char *target = d.target;
    if (d.exists && S_ISDIR(d.st.st_mode)) {
        s = is_a_directory(path, err);
    } else if (d.exists && !S_ISREG(d.st.st_mode)) {
        /* a device, FIFO or socket: write through it, never replace it */
        int o = open(target, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : 0));
        if (o < 0) {
            s = mb__fail(err, MB_EIO, "cannot write %s: %s", path,
                         strerror(errno));
        } else {
            s = write_fd(o, path, a, alen, b, blen, err);
            close(o);
        }
    } else {
        s = replace_regular(path, target, a, alen, b, blen, err);
    }
    free(target);
    return s;
}

mb_status mb__write_file_atomic(const char *path, const void *data, size_t len,
                                mb_err *err)
{
    return write_out(path, data, len, "", 0, 0, err);
}

mb_status mb__write_json_atomic(const char *path, const json_t *doc,
                                size_t flags, mb_err *err)
{
    char *text = doc ? json_dumps(doc, flags) : NULL;
    if (!text)
        return mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    mb_status s = write_out(path, text, strlen(text), "\n", 1, 0, err);
    free(text);
    return s;
}

mb_status mb__append_file_atomic(const char *path, const void *data, size_t len,
                                 mb_err *err)
{
    dest d;
    mb_status s = locate(path, &d, err);
    if (s)
        return s;
    char *old = NULL;
    size_t olen = 0;
    if (d.exists && S_ISREG(d.st.st_mode) &&
        (s = mb__read_file(d.target, &old, &olen, err))) {
        free(d.target);
        return s;
    }
    free(d.target);
    s = write_out(path, old ? old : "", olen, data, len, 1, err);
    free(old);
    return s;
}

/* Creates and removes a file in dir: the only test that holds for root,
 * read-only mounts and /proc alike. */
static mb_status probe_dir(const char *dir, const char *path, mb_err *err)
{
    char *tmp = NULL;
    int fd = open_temp(dir, &tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return mb__fail(err, MB_EIO,
                        "cannot write %s: directory %s is not writable (%s; "
                        "choose a writable directory)",
                        path, dir, strerror(e));
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return MB_OK;
}

/* The directory of target exists (created with its parents when create)
 * and takes new files. */
static mb_status check_dir_of(const char *target, const char *path, int create,
                              mb_err *err)
{
    char *dir = mb__dir_of(target);
    if (!dir)
        return mb__fail(err, MB_ENOMEM, "out of memory");
    mb_status s = create ? mb__mkdirs(dir, err) : MB_OK;
    if (!s)
        s = probe_dir(dir, path, err);
    free(dir);
    return s;
}

mb_status mb__output_check(const char *path, mb_err *err)
{
    if (!path || !*path)
        return mb__fail(err, MB_EINVAL,
                        "empty output path (give a file name, or - for "
                        "stdout)");
    dest d;
    mb_status s = locate(path, &d, err);
    if (s)
        return s;
    if (d.fd >= 0) {
        if (fcntl(d.fd, F_GETFL) < 0)
            return mb__fail(err, MB_EIO,
                            "cannot write %s: descriptor %d is not open", path,
                            d.fd);
        return MB_OK;
    }
    char *target = d.target;
    size_t tl = strlen(target);
    if (d.exists) {
        if (S_ISDIR(d.st.st_mode))
            s = is_a_directory(path, err);
        else if (!S_ISREG(d.st.st_mode)) /* device, FIFO: written through */
            s = access(target, W_OK) == 0
                    ? MB_OK
                    : mb__fail(err, MB_EIO, "cannot write %s: %s", path,
                               strerror(errno));
        else
            s = check_dir_of(target, path, 0, err);
    } else if (d.stat_errno != ENOENT) {
        int e = d.stat_errno;
        s = mb__fail(err, MB_EIO, "cannot write %s: %s (%s)", path, strerror(e),
                     e == ENOTDIR ? "a file is in the way of its directory; "
                                    "choose another path"
                                  : "choose another path");
    } else if (tl && target[tl - 1] == '/') {
        s = mb__fail(err, MB_EIO,
                     "cannot write %s: it names a directory (add a file "
                     "name, e.g. %sresult.json)",
                     path, path);
    } else {
        s = check_dir_of(target, path, 1, err);
    }
    free(target);
    return s;
}

mb_status mb__output_dir_check(const char *dir, mb_err *err)
{
    if (!dir || !*dir)
        return mb__fail(err, MB_EINVAL, "empty directory path");
    mb_status s = mb__mkdirs(dir, err);
    return s ? s : probe_dir(dir, dir, err);
}

mb_status mb__read_lines(const char *path, char ***lines, size_t *n,
                         mb_err *err)
{
    char *text = NULL, *save = NULL;
    mb_status st = mb__read_file(path, &text, NULL, err);
    if (st)
        return st;
    for (char *line = strtok_r(text, "\n", &save); line && !st;
         line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        for (char *h = strchr(line, '#'); h; h = strchr(h + 1, '#'))
            if (h > line && (h[-1] == ' ' || h[-1] == '\t')) {
                *h = '\0';
                break;
            }
        size_t len = strlen(line);
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
                       line[len - 1] == '\r'))
            line[--len] = '\0';
        if (!*line || *line == '#')
            continue;
        char **grown = mb__realloc_array(*lines, *n + 1, sizeof *grown);
        char *copy = grown ? mb__strdup(line) : NULL;
        if (grown)
            *lines = grown;
        if (!copy)
            st = mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
        else
            (*lines)[(*n)++] = copy;
    }
    free(text);
    return st;
}

mb_status mb__read_file(const char *path, char **data, size_t *len, mb_err *err)
{
    *data = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return mb__fail(err, MB_EIO, "cannot open %s: %s", path,
                        strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode)) {
        fclose(f);
        return mb__fail(err, MB_EIO, "cannot read %s: it is a directory", path);
    }
    /* A device (/dev/zero, /dev/urandom) never ends: refuse it rather than
     * read until memory runs out.  Pipes and FIFOs are read to their end. */
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
        fclose(f);
        return mb__fail(err, MB_EIO,
                        "cannot read %s: it is a device, not a "
                        "file; give a file",
                        path);
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
    char *buf = mb__malloc(cap);
    if (!buf) {
        fclose(f);
        return mb__fail(err, MB_ENOMEM, "out of memory reading %s", path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = mb__realloc_array(buf, cap, 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return mb__fail(err, MB_ENOMEM, "out of memory reading %s",
                                path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return mb__fail(err, MB_EIO, "cannot read %s: read error", path);
    }
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return MB_OK;
}

/* "a FIFO", "a character device", ... for a file that is not regular. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO (named pipe)"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* A directory given as the model: says so and names the .onnx files in
 * it. */
static mb_status directory_model(const char *path, const char *what,
                                 mb_err *err)
{
    char found[512] = "";
    size_t n = 0, used = 0;
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 5 || strcmp(e->d_name + l - 5, ".onnx") != 0)
            continue;
        if (n < 3 && used + l + 3 < sizeof found)
            used += (size_t)snprintf(found + used, sizeof found - used, "%s%s",
                                     n ? ", " : "", e->d_name);
        n++;
    }
    if (d)
        closedir(d);
    if (n == 0)
        return mb__fail(err, MB_EIO,
                        "%s %s is a directory; give the .onnx file (there is "
                        "none in it)",
                        what, path);
    return mb__fail(err, MB_EIO,
                    "%s %s is a directory; give the .onnx file (it has %s%s)",
                    what, path, found, n > 3 ? ", ..." : "");
}

mb_status mb__model_file_check(const char *path, const char *what, mb_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        if (e == ENOENT)
            return mb__fail(err, MB_EIO, "%s %s does not exist; check the path",
                            what, path);
        return mb__fail(err, MB_EIO, "%s %s cannot be read: %s%s", what, path,
                        strerror(e),
                        e == EACCES ? " (check its permissions)" : "");
    }
    if (S_ISDIR(st.st_mode))
        return directory_model(path, what, err);
    if (!S_ISREG(st.st_mode))
        return mb__fail(err, MB_EIO,
                        "%s %s is %s, not a regular file: models are read "
                        "from files; save it to one first",
                        what, path, file_kind(st.st_mode));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mb__fail(err, MB_EIO, "%s %s cannot be read: %s%s", what, path,
                        strerror(errno),
                        errno == EACCES ? " (check its permissions)" : "");
    close(fd);
    if (st.st_size == 0)
        return mb__fail(err, MB_EFORMAT,
                        "%s %s is empty (0 bytes); re-export or re-download "
                        "it",
                        what, path);
    return MB_OK;
}

mb_status mb__open_regular(const char *path, int *fd, size_t *size, mb_err *err)
{
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return mb__fail(err, MB_EIO, "cannot open %s: %s", path,
                        strerror(errno));
    struct stat st;
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(*fd);
        *fd = -1;
        return mb__fail(err, MB_EIO, "cannot read %s: not a regular file",
                        path);
    }
    *size = (size_t)st.st_size;
    return MB_OK;
}

mb_status mb__map_file(const char *path, mb__map *m, mb_err *err)
{
    m->data = NULL;
    m->len = 0;
    int fd;
    size_t size;
    mb_status s = mb__open_regular(path, &fd, &size, err);
    if (s)
        return s;
    void *p = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (p == MAP_FAILED)
        return mb__fail(err, MB_EIO, "cannot map %s: %s", path,
                        strerror(errno));
    m->data = p;
    m->len = size;
    return MB_OK;
}

void mb__unmap(mb__map *m)
{
    if (m && m->data && m->len)
        munmap((void *)m->data, m->len);
    if (m) {
        m->data = NULL;
        m->len = 0;
    }
}

static void to_hex(const uint8_t *d, char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = '\0';
}

void mb__sha256_hex(const void *data, size_t len, char hex[65])
{
    struct sha256_ctx c;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&c);
    sha256_update(&c, len, data);
    sha256_digest(&c, sizeof d, d);
    to_hex(d, hex);
}

mb_status mb__sha256_file(const char *path, char hex[65], mb_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mb__fail(err, MB_EIO, "cannot open %s: %s", path,
                        strerror(errno));
    struct sha256_ctx c;
    sha256_init(&c);
    static const size_t chunk = 1 << 20;
    uint8_t *buf = mb__malloc(chunk);
    if (!buf) {
        close(fd);
        return mb__fail(err, MB_ENOMEM, "out of memory hashing %s", path);
    }
    for (;;) {
        ssize_t r = read(fd, buf, chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return mb__fail(err, MB_EIO, "cannot read %s: %s", path,
                            strerror(e));
        }
        if (r == 0)
            break;
        sha256_update(&c, (size_t)r, buf);
    }
    free(buf);
    close(fd);
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&c, sizeof d, d);
    to_hex(d, hex);
    return MB_OK;
}

int64_t mb__file_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    return (int64_t)st.st_size;
}

const char *mb__basename(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}
