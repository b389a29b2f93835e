/* imagedir.c - image folders as data sets (imagedir.h). */
#include "data/imagedir.h"

#include "core/alloc.h"
#include "core/err.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void mb__image_list_free(mb__image_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    for (size_t i = 0; i < l->n_classes; i++)
        free(l->classes[i]);
    free(l->paths);
    free(l->labels);
    free(l->classes);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = mb__malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

/* The entries of dir (no dot files), sorted by strcmp; dirs or files. */
typedef struct names {
    char **v;
    size_t n, cap;
} names;

static void names_free(names *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static mb_status names_add(names *s, const char *name, mb_err *err)
{
    if (s->n >= MB_IMAGE_MAX_FILES)
        return mb__fail(err, MB_EDATA,
                        "more than %d files in the image folder; give a "
                        "smaller one",
                        MB_IMAGE_MAX_FILES);
    if (!mb__grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) ||
        !(s->v[s->n] = mb__strdup(name)))
        return mb__fail(err, MB_ENOMEM, "out of memory listing images");
    s->n++;
    return MB_OK;
}

static mb_status read_dir(const char *dir, names *dirs, names *files,
                          mb_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return mb__fail(err, MB_EIO, "cannot read image folder %s: %s", dir,
                        strerror(errno));
    struct dirent *e;
    mb_status st = MB_OK;
    while (!st && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *full = join(dir, e->d_name);
        struct stat sb;
        if (!full) {
            st = mb__fail(err, MB_ENOMEM, "out of memory listing images");
            break;
        }
        if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode))
            st = dirs ? names_add(dirs, e->d_name, err) : MB_OK;
        else if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode))
            st = names_add(files, e->d_name, err);
        free(full);
    }
    closedir(d);
    if (dirs && dirs->n)
        qsort(dirs->v, dirs->n, sizeof *dirs->v, cmp_str);
    if (files->n)
        qsort(files->v, files->n, sizeof *files->v, cmp_str);
    return st;
}

/* Appends the images of dir and of its subfolders (depth < 32) to out,
 * as Python's sorted(os.walk(dir)) visits them: a folder's files (sorted)
 * before those of folders whose path sorts after its own.  Image types
 * mbench cannot read are an error naming the file. */
/* The folders from the top down to the one being walked, by device and
 * inode: a symbolic link back to one of them is a cycle. */
typedef struct path_ids {
    dev_t dev[32];
    ino_t ino[32];
    int n;
} path_ids;

static mb_status walk(const char *dir, int depth, names *out, path_ids *up,
                      mb_err *err)
{
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        for (int i = 0; i < up->n; i++)
            if (up->dev[i] == sb.st_dev && up->ino[i] == sb.st_ino)
                return mb__fail(err, MB_EDATA,
                                "image folder %s links back to a folder "
                                "above it (a cycle); remove the link",
                                dir);
    }
    int pushed = up->n < 32;
    if (pushed) {
        up->dev[up->n] = sb.st_dev;
        up->ino[up->n++] = sb.st_ino;
    }
    names dirs = {0}, files = {0};
    mb_status st = read_dir(dir, depth < 32 ? &dirs : NULL, &files, err);
    for (size_t i = 0; !st && i < files.n; i++) {
        char *full = join(dir, files.v[i]);
        if (!full)
            st = mb__fail(err, MB_ENOMEM, "out of memory listing images");
        else if (mb__image_other_name(files.v[i]))
            st = mb__fail(err, MB_EDATA,
                          "%s: mbench reads PNG and JPEG images only; "
                          "convert it (or move it out of the folder)",
                          full);
        else if (mb__image_name(files.v[i]))
            st = names_add(out, full, err);
        free(full);
    }
    for (size_t i = 0; !st && i < dirs.n; i++) {
        char *full = join(dir, dirs.v[i]);
        st = full ? walk(full, depth + 1, out, up, err)
                  : mb__fail(err, MB_ENOMEM, "out of memory listing images");
        free(full);
    }
    names_free(&dirs);
    names_free(&files);
    up->n -= pushed;
    return st;
}

/* Moves the names of s into l's paths with label `label` (-1: none). */
static mb_status take(mb__image_list *l, names *s, int64_t label, size_t *cap,
                      mb_err *err)
{
    size_t need = l->n + s->n;
    if (need > MB_IMAGE_MAX_FILES)
        return mb__fail(err, MB_EDATA,
                        "more than %d images in the folder; give a smaller "
                        "one",
                        MB_IMAGE_MAX_FILES);
    if (need > *cap) {
        char **p = mb__realloc_array(l->paths, need, sizeof *p);
        int64_t *lb = p ? mb__realloc_array(l->labels, need, sizeof *lb) : NULL;
        if (p)
            l->paths = p;
        if (!lb)
            return mb__fail(err, MB_ENOMEM, "out of memory listing images");
        l->labels = lb;
        *cap = need;
    }
    for (size_t i = 0; i < s->n; i++) {
        l->paths[l->n] = s->v[i];
        l->labels[l->n++] = label;
    }
    free(s->v);
    memset(s, 0, sizeof *s);
    return MB_OK;
}

/* The images directly in dir (top, sorted), as a list without labels. */
static mb_status flat_list(const char *dir, const names *top,
                           mb__image_list *out, size_t *cap, mb_err *err)
{
    names imgs = {0};
    mb_status st = MB_OK;
    for (size_t i = 0; !st && i < top->n; i++)
        if (mb__image_name(top->v[i])) {
            char *full = join(dir, top->v[i]);
            st = full ? names_add(&imgs, full, err)
                      : mb__fail(err, MB_ENOMEM, "out of memory");
            free(full);
        }
    if (!st)
        st = take(out, &imgs, -1, cap, err);
    names_free(&imgs);
    free(out->labels);
    out->labels = NULL;
    return st;
}

mb_status mb__image_dir_list(const char *dir, mb__image_list *out, mb_err *err)
{
    memset(out, 0, sizeof *out);
    names dirs = {0}, top = {0};
    size_t cap = 0, empty = 0, with = 0;
    int top_images = 0;
    mb_status st = read_dir(dir, &dirs, &top, err);
    for (size_t i = 0; !st && i < top.n; i++) {
        if (mb__image_other_name(top.v[i]))
            st = mb__fail(err, MB_EDATA,
                          "%s/%s: mbench reads PNG and JPEG images only; "
                          "convert it (or move it out of the folder)",
                          dir, top.v[i]);
        top_images |= mb__image_name(top.v[i]);
    }
    /* every subfolder is a class, numbered in sorted order */
    for (size_t i = 0; !st && i < dirs.n; i++) {
        names imgs = {0};
        char *full = join(dir, dirs.v[i]);
        path_ids up = {.n = 0};
        struct stat top_sb;
        if (stat(dir, &top_sb) == 0) {
            up.dev[0] = top_sb.st_dev;
            up.ino[0] = top_sb.st_ino;
            up.n = 1;
        }
        st = full ? walk(full, 1, &imgs, &up, err)
                  : mb__fail(err, MB_ENOMEM, "out of memory listing images");
        if (!st && !imgs.n && !empty)
            empty = i + 1;
        with += imgs.n > 0;
        if (!st)
            st = take(out, &imgs, (int64_t)i, &cap, err);
        names_free(&imgs);
        free(full);
    }
    if (!st && with && empty)
        st = mb__fail(err, MB_EDATA,
                      "class folder %s/%s holds no PNG or JPEG image; "
                      "remove it or add its images (class ids follow the "
                      "sorted folder names)",
                      dir, dirs.v[empty - 1]);
    else if (!st && with && top_images)
        st = mb__fail(err, MB_EDATA,
                      "%s holds images both in class folders and beside "
                      "them; put every image in its class folder",
                      dir);
    else if (!st && with) {
        out->classes = dirs.v;
        out->n_classes = dirs.n;
        memset(&dirs, 0, sizeof dirs);
    } else if (!st && top_images) {
        st = flat_list(dir, &top, out, &cap, err);
    }
    names_free(&dirs);
    names_free(&top);
    if (st)
        mb__image_list_free(out);
    return st;
}

mb_status mb__image_list_tensor(const mb__image_list *l, const char *input,
                                int rank, const int64_t *dims, mb_dtype dtype,
                                const mb__image_prep *prep,
                                const mb__tlimit *lim, mb_tensor *out,
                                mb_err *err)
{
    memset(out, 0, sizeof *out);
    mb__image_geometry g;
    mb_status st = mb__image_geom(input, rank, dims, dtype, prep, &g, err);
    mb__image im = {0};
    for (size_t i = 0; !st && i < l->n; i++) {
        if ((st = mb__image_read_lim(l->paths[i], lim, &im, err)))
            break;
        if (i == 0) { /* symbolic sizes: the first image's, prepared */
            if (g.h < 0 || g.w < 0) {
                mb__image_geometry any = g;
                any.h = any.w = 0;
                mb__image_out_size(&im, prep, &any);
                g.h = g.h < 0 ? any.h : g.h;
                g.w = g.w < 0 ? any.w : g.w;
            }
            size_t per =
                (size_t)g.c * (size_t)g.h * (size_t)g.w * mb_dtype_size(dtype);
            if (per && l->n > MB_IMAGE_MAX_BYTES / per) {
                st = mb__fail(err, MB_EUNSUPPORTED,
                              "%zu images of %lldx%lld make %.1f GiB of "
                              "input, beyond mbench's %zu GiB for a data "
                              "set held in memory; use a subset",
                              l->n, (long long)g.h, (long long)g.w,
                              (double)per * (double)l->n / 1073741824.0,
                              MB_IMAGE_MAX_BYTES >> 30);
                break;
            }
            int64_t d[MB_MAX_RANK] = {(int64_t)l->n};
            int64_t s[3] = {g.nhwc ? g.h : g.c, g.nhwc ? g.w : g.h,
                            g.nhwc ? g.c : g.w};
            memcpy(d + 1, s, sizeof s);
            if ((st = mb_tensor_alloc(out, dtype, 4, d, input, err)))
                break;
        }
        size_t per = out->nbytes / l->n;
        st = mb__image_prepare(&im, l->paths[i], prep, &g,
                               (uint8_t *)out->data + i * per, err);
        mb__image_free(&im);
    }
    mb__image_free(&im);
    if (st)
        mb_tensor_clear(out);
    (void)rank;
    return st;
}

mb_status mb__image_dir_labels(const char *data_path, int64_t **labels,
                               size_t *n, size_t *n_classes, mb_err *err)
{
    *labels = NULL;
    *n = *n_classes = 0;
    struct stat sb;
    if (!data_path || stat(data_path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return MB_OK;
    mb__image_list l;
    mb_status st = mb__image_dir_list(data_path, &l, err);
    if (st || !l.labels) {
        mb__image_list_free(&l);
        return st;
    }
    *labels = l.labels;
    *n = l.n;
    *n_classes = l.n_classes;
    l.labels = NULL;
    mb__image_list_free(&l);
    return MB_OK;
}
