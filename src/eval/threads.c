/* A small pthread pool: the caller and n - 1 workers take task numbers from atomic
 * counters, each thread first from a contiguous share of its own, then from what the
 * others have left. A thread's tasks are so neighbours in the data: handed out in turn
 * from one counter, the 16 tasks of a convolution had both threads write into every part
 * of the output and read every part of the input (2 threads, run medians interleaved
 * with onnxruntime's: inception_v2 10.02 -> 9.51 ms, squeezenet 1.79 -> 1.76 ms).
 * One job runs at a time per pool (a session runs one graph at a time); the workers
 * start with the first job, so sessions that never need them cost nothing.
 * Waking a sleeping thread costs ~25 µs per parallel region, as much as a small layer's
 * work, so between jobs the workers watch the pool's state word for a bounded time
 * (SPIN_NS) before they sleep on it (a futex). A worker joins a job only while it is open:
 * the caller closes it when it has run out of tasks, and then waits only for the workers
 * that joined, so a worker that is slow to wake (a loaded machine) never delays a region
 * whose tasks the caller has already done. */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "threads.h"

/* How long a thread watches for work (or for the end of a job) before sleeping: longer
 * than the serial gap between the kernels of consecutive nodes, short enough not to hold
 * a shared core through a long serial op. */
#define SPIN_NS 50000
#define YIELD_AFTER 256 /* pauses (a few µs) before the watching thread yields between looks */

/* The state word: the job's generation (high 16 bits: a worker only compares it with the
 * one it last saw), CLOSED once the caller has taken the last task, and the number of
 * workers in the job (low bits). */
#define GEN_ONE (1u << 16)
#define CLOSED (1u << 15)
#define ACTIVE(s) ((s) & (CLOSED - 1))

/* A thread's share of a job: tasks [next, end), each on a line of its own. */
typedef struct share {
	_Alignas(64) _Atomic int64_t next;
	int64_t end;
} share;

struct ox_pool {
	int n;
	int started;           /* workers running: they start at the first job that needs them */
	pthread_t *th;
	_Atomic unsigned state; /* futex word of the idle workers and of the caller */
	_Atomic int sleepers;  /* workers asleep (or about to be) on state */
	_Atomic int waiting;   /* the caller asleep (or about to be) on state */
	_Atomic bool stop;
	ox_task_fn fn;
	void *ctx;
	share *shares; /* n of them: the caller's first, then one per worker in the job */
};

static _Thread_local ox_pool *current;
static _Thread_local bool in_task;

static void futex_wait(_Atomic unsigned *word, unsigned seen)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(_Atomic unsigned *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Watches the state for at most SPIN_NS until done(state, arg); returns the last state
 * seen (done or not). After the first few µs it yields between looks: a thread sharing
 * its core with the one it waits for (more threads than cores) then lets it run rather
 * than holding the core for the whole spell. */
static unsigned spin_until(ox_pool *p, bool (*done)(unsigned, unsigned), unsigned arg)
{
	int64_t end = 0;
	for (unsigned k = 1;; k++) {
		unsigned s = atomic_load_explicit(&p->state, memory_order_acquire);
		if (done(s, arg))
			return s;
		if (k < YIELD_AFTER)
			cpu_relax();
		else
			sched_yield();
		if (k % 64 == 0) { /* the clock now and then: it costs more than a pause */
			int64_t t = now_ns();
			if (!end)
				end = t + SPIN_NS;
			else if (t >= end)
				return s;
		}
	}
}

static bool new_gen(unsigned s, unsigned seen_gen)
{
	return s / GEN_ONE != seen_gen;
}

static bool no_workers(unsigned s, unsigned unused)
{
	(void)unused;
	return ACTIVE(s) == 0;
}

/* Share `first` to its end, then what the others have left, in turn. */
static void take_tasks(ox_pool *p, int first)
{
	for (int k = 0; k < p->n; k++) {
		share *sh = &p->shares[(first + k) % p->n];
		for (int64_t i; (i = atomic_fetch_add_explicit(&sh->next, 1, memory_order_relaxed)) < sh->end;)
			p->fn(p->ctx, i);
	}
}

/* Waits for a job of another generation than *gen (true) or the pool's end (false). The
 * seq_cst increment of sleepers before futex_wait pairs with the caller's store of the
 * state before it reads sleepers: either the caller wakes the sleeper, or the futex sees
 * the new state. */
static bool next_gen(ox_pool *p, unsigned *gen)
{
	unsigned s = spin_until(p, new_gen, *gen);
	while (!new_gen(s, *gen) && !atomic_load(&p->stop)) {
		atomic_fetch_add(&p->sleepers, 1);
		futex_wait(&p->state, s);
		atomic_fetch_sub(&p->sleepers, 1);
		s = atomic_load(&p->state);
	}
	*gen = s / GEN_ONE;
	return !atomic_load(&p->stop);
}

/* Joins the job of generation gen unless the caller has closed it (or moved on); the
 * share to start from (0 when not joined). The k-th worker in takes share k: one that
 * joins after another has left finds that one's share taken, as every share is by then. */
static int join(ox_pool *p, unsigned gen)
{
	unsigned s = atomic_load(&p->state);
	while (s / GEN_ONE == gen && !(s & CLOSED))
		if (atomic_compare_exchange_weak(&p->state, &s, s + 1))
			return (int)ACTIVE(s) + 1;
	return 0;
}

static void *worker(void *arg)
{
	ox_pool *p = arg;
	unsigned gen = 0;
	in_task = true; /* kernels called from a task run on this thread alone */
	while (next_gen(p, &gen)) {
		int first = join(p, gen);
		if (!first)
			continue;
		take_tasks(p, first);
		unsigned s = atomic_fetch_sub(&p->state, 1);
		if ((s & CLOSED) && ACTIVE(s) == 1 && atomic_load(&p->waiting))
			futex_wake(&p->state, INT_MAX); /* idle workers sleep on the word too */
	}
	return NULL;
}

static void stop_workers(ox_pool *p)
{
	atomic_store(&p->stop, true);
	atomic_fetch_add(&p->state, GEN_ONE);
	futex_wake(&p->state, INT_MAX);
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
	p->n = n < 1 ? 1 : n > 256 ? 256 : n;
	if (!(p->shares = aligned_alloc(64, (size_t)p->n * sizeof *p->shares))) {
		free(p);
		return NULL;
	}
	atomic_store(&p->state, CLOSED); /* generation 0: no job */
	return p;
}

void ox_pool_free(ox_pool *p)
{
	if (!p)
		return;
	stop_workers(p);
	free(p->th);
	free(p->shares);
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

/* Closes the job and waits for the workers that joined it: a spell of watching, then
 * the futex. */
static void close_job(ox_pool *p)
{
	unsigned s = atomic_fetch_or(&p->state, CLOSED) | CLOSED;
	if (ACTIVE(s) && ACTIVE(s = spin_until(p, no_workers, 0))) {
		atomic_store(&p->waiting, 1);
		while (ACTIVE(s = atomic_load(&p->state)))
			futex_wait(&p->state, s);
		atomic_store(&p->waiting, 0);
	}
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
	p->fn = fn;
	p->ctx = ctx;
	for (int k = 0; k < p->n; k++) {
		atomic_store_explicit(&p->shares[k].next, n * k / p->n, memory_order_relaxed);
		p->shares[k].end = n * (k + 1) / p->n;
	}
	/* the next generation, open, no worker in it; seq_cst: the job is published before
	 * sleepers is read */
	atomic_store(&p->state, (atomic_load(&p->state) & ~(GEN_ONE - 1)) + GEN_ONE);
	if (atomic_load(&p->sleepers))
		futex_wake(&p->state, INT_MAX);
	in_task = true;
	take_tasks(p, 0);
	in_task = false;
	close_job(p);
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
