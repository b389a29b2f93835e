/* sysinfo.h - the environment recorded with every result: CPU, cores,
 * governor, memory, kernel, libc, compiler, host, time, and the process's
 * resident memory (current and peak) read from /proc. */
#ifndef MB_CORE_SYSINFO_H
#define MB_CORE_SYSINFO_H

#include <stdbool.h>
#include <jansson.h>
#include <stdint.h>

/* A new JSON object with the machine facts (caller json_decref). */
json_t *mb__sysinfo_json(void);

/* Current resident set size in bytes (VmRSS), or -1. */
int64_t mb__rss_bytes(void);
/* Peak resident set size (VmHWM) in bytes, or -1. */
int64_t mb__rss_peak_bytes(void);
/* Resets VmHWM to the current RSS through /proc/self/clear_refs ("5").
 * Returns 1 when the kernel allowed it, 0 otherwise. */
bool mb__rss_peak_reset(void);

/* The machine's CPU time so far from /proc/stat (all CPUs, in clock
 * ticks): *busy (user, nice, system, irq, softirq, steal) and *total
 * (those plus idle and iowait).  Returns false when /proc/stat cannot be
 * read.  Two readings give the share of the machine busy in between. */
bool mb__cpu_times(uint64_t *busy, uint64_t *total);

/* Processes runnable right now (procs_running of /proc/stat, this one
 * included), or -1. */
int mb__procs_running(void);

/* Logical CPUs online, physical cores (distinct core ids), or -1. */
int mb__cpu_logical(void);
int mb__cpu_physical(void);

#endif
