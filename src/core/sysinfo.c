/* sysinfo.c - machine facts from /proc, /sys, uname and glibc. */
#include "sysinfo.h"

#include "build_info.h"
#include "mbench.h"
#include "clock.h"

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static int64_t status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    int64_t v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            v = strtoll(line + kl + 1, NULL, 10) * 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

int64_t mb__rss_bytes(void)
{
    return status_kb("VmRSS");
}
int64_t mb__rss_peak_bytes(void)
{
    return status_kb("VmHWM");
}

bool mb__rss_peak_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t w = write(fd, "5", 1);
    close(fd);
    return w == 1;
}

int mb__cpu_logical(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : -1;
}

int mb__cpu_physical(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return -1;
    char line[512];
    int phys = -1, core = -1, count = 0;
    long seen[1024];
    int nseen = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "physical id", 11) == 0)
            phys = atoi(strchr(line, ':') + 1);
        else if (strncmp(line, "core id", 7) == 0)
            core = atoi(strchr(line, ':') + 1);
        else if (line[0] == '\n' && core >= 0) {
            long key = (long)phys * 100000 + core;
            int dup = 0;
            for (int i = 0; i < nseen; i++)
                dup |= seen[i] == key;
            if (!dup && nseen < 1024) {
                seen[nseen++] = key;
                count++;
            }
            core = -1;
        }
    }
    fclose(f);
    return count > 0 ? count : mb__cpu_logical();
}

static void read_first_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static void cpu_model(char *buf, size_t len, double *mhz)
{
    buf[0] = '\0';
    *mhz = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (!c)
            continue;
        if (!buf[0] && strncmp(line, "model name", 10) == 0) {
            c++;
            while (*c == ' ')
                c++;
            snprintf(buf, len, "%s", c);
            buf[strcspn(buf, "\n")] = '\0';
        } else if (*mhz == 0 && strncmp(line, "cpu MHz", 7) == 0) {
            *mhz = atof(c + 1);
        }
    }
    fclose(f);
}

json_t *mb__sysinfo_json(void)
{
    json_t *o = json_object();
    char buf[512];
    double mhz;
    cpu_model(buf, sizeof buf, &mhz);
    json_object_set_new(o, "cpu_model", json_string(buf[0] ? buf : "unknown"));
    json_object_set_new(o, "cpu_mhz", json_real(mhz));
    json_object_set_new(o, "logical_cores", json_integer(mb__cpu_logical()));
    /* How busy the machine was when the measurement started: two runs
     * measured under different loads differ by more than their CIs say. */
    double la[1];
    if (getloadavg(la, 1) == 1)
        json_object_set_new(o, "loadavg_1m", json_real(la[0]));
    json_object_set_new(o, "physical_cores", json_integer(mb__cpu_physical()));
    read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                    buf, sizeof buf);
    json_object_set_new(o, "governor",
                        json_string(buf[0] ? buf : "unavailable"));
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    json_object_set_new(o, "memory_bytes",
                        json_integer((json_int_t)pages * psize));
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(buf, sizeof buf, "%s %s", u.sysname, u.release);
        json_object_set_new(o, "kernel", json_string(buf));
        json_object_set_new(o, "arch", json_string(u.machine));
        json_object_set_new(o, "hostname", json_string(u.nodename));
    }
    snprintf(buf, sizeof buf, "glibc %s", gnu_get_libc_version());
    json_object_set_new(o, "libc", json_string(buf));
    json_object_set_new(o, "compiler", json_string(MB_BUILD_CC));
    json_object_set_new(o, "mbench_version", json_string(mb_version()));
    json_object_set_new(o, "mbench_commit", json_string(mb_build_commit()));
    mb__utc_iso8601(buf, sizeof buf);
    json_object_set_new(o, "timestamp_utc", json_string(buf));
    return o;
}

bool mb__cpu_times(uint64_t *busy, uint64_t *total)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return false;
    unsigned long long v[8] = {0};
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                     &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (got < 5)
        return false;
    uint64_t idle = v[3] + v[4], all = 0;
    for (int i = 0; i < 8; i++)
        all += v[i];
    *busy = all - idle;
    *total = all;
    return true;
}

int mb__procs_running(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    char line[256];
    int n = -1;
    while (n < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "procs_running %d", &n) != 1)
            n = -1;
    fclose(f);
    return n;
}
