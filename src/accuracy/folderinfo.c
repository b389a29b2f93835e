/* folderinfo.c - the class map and worst-sample files of an image folder
 * (folderinfo.h). */
#include "accuracy/folderinfo.h"

#include "data/imagedir.h"

#include <string.h>
#include <sys/stat.h>

void mb__folder_worst_files(const json_t *info, json_t *outs)
{
    const json_t *files = json_object_get(info, "files");
    size_t i, n = json_array_size(files);
    json_t *m;
    json_array_foreach(outs, i, m)
    {
        const char *key;
        json_t *w;
        json_object_foreach(json_object_get(m, "worst"), key, w)
        {
            json_int_t s = json_integer_value(json_object_get(w, "sample"));
            const json_t *f = json_array_get(files, (size_t)s);
            if (json_is_integer(json_object_get(w, "sample")) && s >= 0 &&
                (size_t)s < n && json_is_string(f))
                json_object_set(w, "file", (json_t *)f);
        }
    }
}

/* s as a JSON string; null when it is not UTF-8 (a file name may not be). */
static json_t *str(const char *s)
{
    json_t *j = json_string(s);
    return j ? j : json_null();
}

/* The path of an image under the folder dir ("cat/001.png"). */
static const char *under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (!strncmp(path, dir, n) && path[n] == '/')
        return path + n + 1;
    return path;
}

mb_status mb__folder_info(const char *data_path, json_t *outs, json_t **info,
                          mb_err *err)
{
    *info = NULL;
    struct stat sb;
    if (!data_path || stat(data_path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return MB_OK;
    mb__image_list l;
    mb_status st = mb__image_dir_list(data_path, &l, err);
    if (st || l.n == 0) {
        mb__image_list_free(&l);
        return st;
    }
    json_t *classes = json_array(), *files = json_array();
    for (size_t c = 0; c < l.n_classes; c++) {
        size_t k = 0;
        for (size_t i = 0; l.labels && i < l.n; i++)
            k += l.labels[i] == (int64_t)c;
        json_t *o = json_object();
        json_object_set_new(o, "folder", str(l.classes[c]));
        json_object_set_new(o, "id", json_integer((json_int_t)c));
        json_object_set_new(o, "images", json_integer((json_int_t)k));
        json_array_append_new(classes, o);
    }
    for (size_t i = 0; i < l.n; i++)
        json_array_append_new(files, str(under(l.paths[i], data_path)));
    *info = json_object();
    json_object_set_new(*info, "path", str(data_path));
    json_object_set_new(*info, "images", json_integer((json_int_t)l.n));
    json_object_set_new(*info, "classes", classes);
    json_object_set_new(*info, "files", files);
    mb__image_list_free(&l);
    if (outs)
        mb__folder_worst_files(*info, outs);
    return MB_OK;
}
