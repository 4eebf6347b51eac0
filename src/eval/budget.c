/* Budgets of a session's runs (see budget.h): live tensor bytes counted at allocation and
 * release, a monotonic deadline, and the message of the limit a run hit. */
#define _GNU_SOURCE /* _SC_PHYS_PAGES */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"

struct ox_budget {
	atomic_size_t live; /* bytes of the tensors charged and not yet freed */
	atomic_uint refs;   /* the session's, and one per charged tensor */
	uint64_t max;       /* 0: no limit */
	double timeout;     /* seconds; 0: none */
	int64_t deadline;   /* of the current run, in CLOCK_MONOTONIC nanoseconds; 0: none */
	char tripped[200];  /* what the current run hit, "" when nothing */
};

/* The budget of the run this thread is doing. Tensors made outside a run (inputs,
 * initializers) are charged to nothing. */
static _Thread_local ox_budget *current;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Half of physical memory: a run that needs more would push the machine into swap or the
 * OOM killer, which ends the process instead of failing the run. */
static uint64_t default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 0;
}

ox_budget *ox_budget_new(void)
{
	ox_budget *b = calloc(1, sizeof *b);
	if (b) {
		atomic_init(&b->live, 0);
		atomic_init(&b->refs, 1);
		b->max = default_limit();
	}
	return b;
}

void ox_budget_release(ox_budget *b)
{
	if (b && atomic_fetch_sub(&b->refs, 1) == 1)
		free(b);
}

void ox_budget_set_memory(ox_budget *b, uint64_t bytes)
{
	b->max = bytes;
}

void ox_budget_set_timeout(ox_budget *b, double seconds)
{
	b->timeout = seconds;
}

ox_budget *ox_budget_enter(ox_budget *b)
{
	ox_budget *prev = current;
	b->tripped[0] = '\0';
	/* beyond 30 years is no deadline, and would overflow the nanoseconds */
	b->deadline = b->timeout > 0 && b->timeout < 1e9 ? now_ns() + (int64_t)(b->timeout * 1e9) : 0;
	current = b;
	return prev;
}

void ox_budget_leave(ox_budget *prev)
{
	current = prev;
}

/* "1 GiB", "64 KiB", "1000 bytes": the unit that shows the number exactly. */
static const char *bytes_text(uint64_t n, char *buf, size_t size)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (u < 4 && n && n % 1024 == 0)
		n /= 1024, u++;
	snprintf(buf, size, "%llu %s", (unsigned long long)n, units[u]);
	return buf;
}

int ox_budget_check_time(const char **why)
{
	ox_budget *b = current;
	if (!b || !b->deadline || now_ns() < b->deadline)
		return 0;
	snprintf(b->tripped, sizeof b->tripped, "time limit of %g s reached", b->timeout);
	*why = b->tripped;
	return -1;
}

int ox_budget_charge(size_t bytes, ox_budget **owner, const char **why)
{
	ox_budget *b = current;
	*owner = NULL;
	if (!b)
		return 0;
	if (ox_budget_check_time(why) < 0)
		return -1;
	size_t live = atomic_fetch_add(&b->live, bytes);
	if (b->max && (bytes > b->max || live > b->max - bytes)) {
		atomic_fetch_sub(&b->live, bytes);
		char limit[32];
		snprintf(b->tripped, sizeof b->tripped,
			 "memory budget of %s exceeded (a new tensor of %zu bytes, %zu bytes in use)",
			 bytes_text(b->max, limit, sizeof limit), bytes, live);
		*why = b->tripped;
		return -1;
	}
	atomic_fetch_add(&b->refs, 1);
	*owner = b;
	return 0;
}

void ox_budget_credit(ox_budget *owner, size_t bytes)
{
	if (!owner)
		return;
	atomic_fetch_sub(&owner->live, bytes);
	ox_budget_release(owner);
}

const char *ox_budget_tripped(void)
{
	return current && current->tripped[0] ? current->tripped : NULL;
}
