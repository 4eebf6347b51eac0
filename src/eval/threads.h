/* The worker threads of a session, used inside the big kernels. A session owns a pool and
 * makes it current on the thread that runs it; kernels split their work into tasks whose
 * results do not depend on which thread runs them, so any thread count gives the same bits. */
#ifndef OX_EVAL_THREADS_H
#define OX_EVAL_THREADS_H

#include <stdint.h>

typedef struct ox_pool ox_pool;

/* A pool of n threads in all, the caller included (n - 1 workers); n <= 1 makes none.
 * NULL when threads cannot be started. */
ox_pool *ox_pool_new(int n);
void ox_pool_free(ox_pool *p);

/* Makes p current for the calling thread (NULL: run everything on the caller); returns
 * the pool that was current, to be restored. */
ox_pool *ox_pool_enter(ox_pool *p);

/* Threads available to a kernel on the calling thread: the current pool's size, or 1
 * (also inside a task, where kernels run single-threaded). */
int ox_threads(void);

/* Calls fn(ctx, i) for every i < n, spread over the current pool's threads; returns when
 * all are done. Tasks must not depend on one another's order. */
typedef void (*ox_task_fn)(void *ctx, int64_t i);
void ox_parallel_for(int64_t n, ox_task_fn fn, void *ctx);

/* The number of processors online, at least 1: the default thread count. */
int ox_cpu_count(void);

#endif
