/* par.c - parallel-for over work items with an atomic counter. */
#include "accuracy/par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define MB_PAR_MAX_THREADS 256

typedef struct par_job {
    atomic_size_t next;
    size_t n;
    mb_par_fn fn;
    void *user;
} par_job;

typedef struct par_arg {
    par_job *job;
    int worker;
} par_arg;

int mb__par_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    if (n > MB_PAR_MAX_THREADS)
        return MB_PAR_MAX_THREADS;
    return (int)n;
}

static void *par_main(void *p)
{
    par_arg *a = p;
    par_job *job = a->job;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->n)
            break;
        job->fn(job->user, i, a->worker);
    }
    return NULL;
}

void mb__par_for(size_t n_items, int threads, mb_par_fn fn, void *user)
{
    if (n_items == 0)
        return;
    if (threads <= 0)
        threads = mb__par_cpus();
    if (threads > MB_PAR_MAX_THREADS)
        threads = MB_PAR_MAX_THREADS;
    if ((size_t)threads > n_items)
        threads = (int)n_items;
    par_job job;
    atomic_init(&job.next, 0);
    job.n = n_items;
    job.fn = fn;
    job.user = user;
    pthread_t tid[MB_PAR_MAX_THREADS];
    par_arg args[MB_PAR_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        args[t].job = &job;
        args[t].worker = t;
        if (pthread_create(&tid[t], NULL, par_main, &args[t]) != 0)
            break;
        started = t;
    }
    args[0].job = &job;
    args[0].worker = 0;
    par_main(&args[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
}
