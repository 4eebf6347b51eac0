/* GFLOP/s of the evaluator's SGEMM and float Conv at each CPU level this machine has:
 *     build/tools/eval_linalg [RUNS]
 * MatMul 1024^3, 256^3, 4096x4096x64 (M x N x K), a 3x3 64->64 Conv on 1x64x56x56
 * with pads 1, and the first convolutions of CNNs on 1x3x224x224 (3x3 stride 2 to 64
 * channels, squeezenet's; 7x7 stride 2 pads 3, resnet's and inception's), counted as
 * 2*Cout*Cin*KH*KW*OH*OW flops. Each figure is the best of RUNS (10) runs, since the
 * machine may be shared: by the wall clock, and by the thread's CPU time (which leaves
 * out the time other processes held the core, not their cache traffic). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/ops/conv.h"
#include "eval/simd/cpu.h"
#include "eval/simd/gemm.h"

typedef struct best {
	double wall, cpu;
} best;

static double clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void start(best *b, double *t0)
{
	t0[0] = clock_s(CLOCK_MONOTONIC);
	t0[1] = clock_s(CLOCK_THREAD_CPUTIME_ID);
	(void)b;
}

static void stop(best *b, const double *t0)
{
	double w = clock_s(CLOCK_MONOTONIC) - t0[0], c = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0[1];
	b->wall = w < b->wall ? w : b->wall;
	b->cpu = c < b->cpu ? c : b->cpu;
}

static float *filled(size_t n)
{
	float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64); /* as tensor data is */
	if (!p) {
		fprintf(stderr, "eval_linalg: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		p[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	return p;
}

/* Best seconds of runs calls of one MatMul (M x K times K x N) at level. */
static best time_gemm(int level, int64_t m, int64_t n, int64_t k, int runs)
{
	float *a = filled((size_t)(m * k)), *b = filled((size_t)(k * n)), *c = filled((size_t)(m * n));
	ox_gemm_src sa = ox_gemm_a(a, k, false), sb = ox_gemm_b(b, n, false);
	best bt = {1e30, 1e30};
	double t0[2];
	for (int r = 0; r < runs; r++) {
		start(&bt, t0);
		if (ox_sgemm_src(level, m, n, k, 1, &sa, &sb, 0, c, n) < 0) {
			fprintf(stderr, "eval_linalg: sgemm failed\n");
			exit(1);
		}
		stop(&bt, t0);
	}
	free(a);
	free(b);
	free(c);
	return bt;
}

/* Best seconds of runs calls of the float Conv g at level (batch 1, one group, bias). */
static best time_conv(int level, const ox_conv_geom *g, int runs)
{
	size_t xs = (size_t)(g->cin * g->in[0] * g->in[1]), ys = (size_t)(g->cout * g->out[0] * g->out[1]);
	size_t ws = (size_t)(g->cout * g->cin * g->kernel[0] * g->kernel[1]);
	float *x = filled(xs), *w = filled(ws), *b = filled((size_t)g->cout), *y = filled(ys);
	best bt = {1e30, 1e30};
	double t0[2];
	for (int r = 0; r < runs; r++) {
		start(&bt, t0);
		if (ox_conv_f32(level, g, x, w, b, y) < 0) {
			fprintf(stderr, "eval_linalg: conv failed\n");
			exit(1);
		}
		stop(&bt, t0);
	}
	free(x);
	free(w);
	free(b);
	free(y);
	return bt;
}

static void report(int level, const char *name, best b, double flops)
{
	printf("%-8s %-24s %10.3f %10.1f %10.3f %10.1f\n", ox_cpu_level_name(level), name, b.wall * 1e3,
	       flops / b.wall * 1e-9, b.cpu * 1e3, flops / b.cpu * 1e-9);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 10;
	if (runs < 1)
		runs = 1;
	static const int64_t mm[][3] = {{1024, 1024, 1024}, {256, 256, 256}, {4096, 4096, 64}};
	printf("%-8s %-24s %10s %10s %10s %10s\n", "level", "case", "wall ms", "GFLOP/s", "cpu ms", "GFLOP/s");
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++) {
		for (int i = 0; i < 3; i++) {
			int64_t m = mm[i][0], n = mm[i][1], k = mm[i][2];
			best b = time_gemm(level, m, n, k, level == OX_CPU_SCALAR && i != 1 ? 2 : runs);
			char name[64];
			snprintf(name, sizeof name, "MatMul %lldx%lldx%lld", (long long)m, (long long)n, (long long)k);
			report(level, name, b, 2.0 * (double)(m * n * k));
		}
		/* a ResNet 3x3, then the first convolutions of squeezenet and of the 7x7 stems */
		static const ox_conv_geom convs[] = {
			{2, 1, 64, 64, 1, {56, 56}, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
			{2, 1, 3, 64, 1, {224, 224}, {111, 111}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 0}},
			{2, 1, 3, 64, 1, {224, 224}, {112, 112}, {7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}},
		};
		static const char *names[] = {"Conv 3x3 64->64 56x56", "Conv 3x3 s2 3->64 224", "Conv 7x7 s2 3->64 224"};
		for (int i = 0; i < 3; i++) {
			const ox_conv_geom *g = &convs[i];
			report(level, names[i], time_conv(level, g, level == OX_CPU_SCALAR ? 2 : runs),
			       2.0 * (double)(g->cout * g->cin * g->kernel[0] * g->kernel[1] * g->out[0] * g->out[1]));
		}
	}
	return 0;
}
