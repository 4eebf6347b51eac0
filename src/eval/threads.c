/* A small pthread pool: the caller and n - 1 workers take task numbers from one atomic
 * counter. One job runs at a time per pool (a session runs one graph at a time); the
 * workers start with the first job, so sessions that never need them cost nothing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "threads.h"

struct ox_pool {
	int n;
	int started;   /* workers running: they start at the first job that needs them */
	pthread_t *th;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned gen;  /* bumped for each job */
	int busy;      /* workers still in the current job */
	bool stop;
	ox_task_fn fn;
	void *ctx;
	int64_t ntasks;
	_Atomic int64_t next;
};

static _Thread_local ox_pool *current;
static _Thread_local bool in_task;

static void take_tasks(ox_pool *p)
{
	for (int64_t i; (i = atomic_fetch_add(&p->next, 1)) < p->ntasks;)
		p->fn(p->ctx, i);
}

static void *worker(void *arg)
{
	ox_pool *p = arg;
	unsigned seen = 0;
	in_task = true; /* kernels called from a task run on this thread alone */
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->gen == seen)
			pthread_cond_wait(&p->go, &p->mu);
		if (p->stop)
			break;
		seen = p->gen;
		pthread_mutex_unlock(&p->mu);
		take_tasks(p);
		pthread_mutex_lock(&p->mu);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void stop_workers(ox_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->th[i], NULL);
	p->started = 0;
}

/* Starts the workers; a pool whose threads cannot all start keeps those that did. */
static void start_workers(ox_pool *p)
{
	if (!p->th && !(p->th = calloc((size_t)p->n - 1, sizeof *p->th))) {
		p->n = 1;
		return;
	}
	while (p->started < p->n - 1 && pthread_create(&p->th[p->started], NULL, worker, p) == 0)
		p->started++;
	p->n = p->started + 1;
}

ox_pool *ox_pool_new(int n)
{
	ox_pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->n = n < 1 ? 1 : n;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	return p;
}

void ox_pool_free(ox_pool *p)
{
	if (!p)
		return;
	stop_workers(p);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p->th);
	free(p);
}

ox_pool *ox_pool_enter(ox_pool *p)
{
	ox_pool *old = current;
	current = p;
	return old;
}

int ox_threads(void)
{
	return current && !in_task ? current->n : 1;
}

void ox_parallel_for(int64_t n, ox_task_fn fn, void *ctx)
{
	ox_pool *p = in_task ? NULL : current;
	if (p && p->n > 1 && n > 1 && p->started < p->n - 1)
		start_workers(p);
	if (!p || p->n <= 1 || n <= 1) {
		for (int64_t i = 0; i < n; i++)
			fn(ctx, i);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->ctx = ctx;
	p->ntasks = n;
	atomic_store(&p->next, 0);
	p->busy = p->n - 1;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	in_task = true;
	take_tasks(p);
	in_task = false;
	pthread_mutex_lock(&p->mu);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* Read once: glibc's sysconf opens a file under /sys each time, a third of the time of a
 * session over a one-node model. */
static int cpus;
static pthread_once_t cpus_once = PTHREAD_ONCE_INIT;

static void count_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpus = n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

int ox_cpu_count(void)
{
	pthread_once(&cpus_once, count_cpus);
	return cpus;
}
