/* api_site.c - the benchmark site of a results store through the public
 * API (mb_site, include/mbench.h): the same pages as `mbench site`.
 *
 *   cc -std=c11 api_site.c -lmbench -o api_site
 *   ./api_site results.db site 'https://github.com/ORG/REPO/commit/{sha}'
 *
 * Prints how many files were written (0 when the store did not change)
 * and exits 0, or prints the error and exits 1. */
#include <mbench.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s DB OUT_DIR [COMMIT_URL_TEMPLATE]\n",
                argv[0]);
        return 2;
    }
    char url[1024];
    const char *opts[1];
    size_t n = 0, written = 0;
    if (argc == 4) {
        snprintf(url, sizeof url, "commit-url=%s", argv[3]);
        opts[n++] = url;
    }
    mb_err err = {0};
    if (mb_site(argv[1], argv[2], opts, n, &written, &err) != MB_OK) {
        fprintf(stderr, "api_site: %s\n", err.msg);
        return 1;
    }
    printf("wrote %zu files into %s\n", written, argv[2]);
    return 0;
}
