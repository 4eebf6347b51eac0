/* The thread pool's own cost: the wall time of an empty parallel region (2 tasks that do
 * nothing), of one whose tasks spin for a given time, and of back-to-back regions with a
 * serial gap between them, as a model's nodes make them:
 *     build/tools/eval_pool [THREADS] [REGIONS]
 * Each figure is per region: the median of 9 batches of REGIONS (2000) regions, with the
 * CPU time of the whole process per region beside it (what idle watching costs). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "eval/threads.h"

static double clock_us(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void busy_us(double us)
{
	double end = clock_us(CLOCK_MONOTONIC) + us;
	while (clock_us(CLOCK_MONOTONIC) < end)
		;
}

static void task(void *ctx, int64_t i)
{
	(void)i;
	busy_us(*(const double *)ctx);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One row: regions of ntasks tasks of work_us each, with gap_us of serial work between. */
static void row(const char *what, int regions, int64_t ntasks, double work_us, double gap_us)
{
	double wall[9], cpu[9];
	for (int b = 0; b < 9; b++) {
		double w0 = clock_us(CLOCK_MONOTONIC), c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
		for (int r = 0; r < regions; r++) {
			ox_parallel_for(ntasks, task, &work_us);
			if (gap_us > 0)
				busy_us(gap_us);
		}
		wall[b] = (clock_us(CLOCK_MONOTONIC) - w0) / regions;
		cpu[b] = (clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0) / regions;
	}
	qsort(wall, 9, sizeof *wall, cmp);
	qsort(cpu, 9, sizeof *cpu, cmp);
	printf("%-34s %9.2f µs wall %9.2f µs cpu\n", what, wall[4], cpu[4]);
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	int regions = argc > 2 ? atoi(argv[2]) : 2000;
	ox_pool *pool = ox_pool_new(threads), *old = ox_pool_enter(pool);
	printf("%d threads, %d regions per batch\n", threads, regions);
	row("empty region (2 tasks)", regions, 2, 0, 0);
	row("2 tasks of 10 µs", regions, 2, 10, 0);
	row("2 tasks of 10 µs, 20 µs gap", regions, 2, 10, 20);
	row("2 tasks of 10 µs, 200 µs gap", regions / 4, 2, 10, 200);
	row("16 tasks of 5 µs", regions, 16, 5, 0);
	ox_pool_enter(old);
	ox_pool_free(pool);
	return 0;
}
