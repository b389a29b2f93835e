/* fileio.c - file reading, mapping, hashing and atomic writes. */
#include "fileio.h"

#include "alloc.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

static mb_status write_atomic2(const char *path, const void *a, size_t alen,
                               const void *b, size_t blen, mb_err *err)
{
    size_t plen = strlen(path);
    char *tmp = mb__malloc(plen + 32);
    if (!tmp)
        return mb__fail(err, MB_ENOMEM, "out of memory writing %s", path);
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return mb__fail(err, MB_EIO,
                        "cannot write %s: %s (check that the directory "
                        "exists and is writable)",
                        path, strerror(e));
    }
    int e = 0;
    if (write_all(fd, a, alen) || write_all(fd, b, blen))
        e = errno ? errno : EIO;
    if (!e && fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
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

mb_status mb__write_file_atomic(const char *path, const void *data, size_t len,
                                mb_err *err)
{
    return write_atomic2(path, data, len, "", 0, err);
}

mb_status mb__append_file_atomic(const char *path, const void *data,
                                 size_t len, mb_err *err)
{
    char *old = NULL;
    size_t olen = 0;
    if (access(path, F_OK) == 0) {
        mb_status s = mb__read_file(path, &old, &olen, err);
        if (s)
            return s;
    }
    mb_status s = write_atomic2(path, old ? old : "", olen, data, len, err);
    free(old);
    return s;
}

mb_status mb__read_file(const char *path, char **data, size_t *len,
                        mb_err *err)
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
        return mb__fail(err, MB_EIO, "cannot read %s: it is a directory",
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

mb_status mb__map_file(const char *path, mb_map *m, mb_err *err)
{
    m->data = NULL;
    m->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mb__fail(err, MB_EIO, "cannot open %s: %s", path,
                        strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return mb__fail(err, MB_EIO, "cannot read %s: not a regular file",
                        path);
    }
    if (st.st_size == 0) {
        close(fd);
        return MB_OK;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return mb__fail(err, MB_EIO, "cannot map %s: %s", path,
                        strerror(errno));
    m->data = p;
    m->len = (size_t)st.st_size;
    return MB_OK;
}

void mb__unmap(mb_map *m)
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
