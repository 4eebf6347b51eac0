/* eval_elementwise: throughput of the float32 elementwise kernels on 16M-element tensors.
 *
 *   eval_elementwise [REPEATS]
 *
 * Add of two 16M-float tensors counts 3 x 64 MB moved (two reads, one write), Relu and
 * Sigmoid 2 x 64 MB. "loop" times the inner loop on buffers allocated once, at every CPU
 * level this machine runs; "op" times ox_op_Add_7, which allocates its output each run,
 * first as glibc does by default (a fresh mmap, so the page faults are part of the time),
 * then with malloc told to keep freed memory, as an arena allocator would. Best of
 * REPEATS (default 10). Not run by the tests. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/simd/cpu.h"
#include "eval/ops/elementwise.h"
#include "eval/kernel.h"

#define N ((size_t)16 << 20)
#define MB ((double)N * sizeof(float) / 1e6)

static int repeats = 10;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float *buffer(float scale)
{
	float *p = aligned_alloc(64, N * sizeof *p);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < N; i++)
		p[i] = scale * (float)((int)(i % 2001) - 1000) / 100.0f; /* [-10, 10] */
	return p;
}

static void report(const char *what, double best, double moved_mb)
{
	printf("%-44s %7.2f ms  %6.1f GB/s\n", what, best * 1e3, moved_mb / best / 1e3);
}

static double time_binary(ox_f32_binary f, float *y, const float *a, const float *b)
{
	double best = 1e30;
	for (int r = 0; r < repeats; r++) {
		double t = now();
		f(y, a, b, N, 1, 1);
		t = now() - t;
		best = t < best ? t : best;
	}
	return best;
}

static double time_unary(ox_f32_unary f, float *y, const float *x)
{
	double best = 1e30;
	for (int r = 0; r < repeats; r++) {
		double t = now();
		f(y, x, N, NULL);
		t = now() - t;
		best = t < best ? t : best;
	}
	return best;
}

/* ox_op_Add_7 as the executor calls it, the output allocated by the kernel each run */
static double time_op_add(ox_val *a, ox_val *b)
{
	Onnx__NodeProto *node = NULL;
	OnnxError err;
	if (OnnxParser_ParseNode("y = Add(a, b)", 13, &node, &err) != ONNXTXT_OK)
		exit(1);
	double best = 1e30;
	char msg[OX_MSG];
	for (int r = 0; r < repeats; r++) {
		ox_val *in[2] = {a, b}, *out = NULL;
		ox_k k = {.proto = node, .version = 17, .in = in, .nin = 2, .out = &out, .nout = 1, .msg = msg};
		double t = now();
		if (ox_op_Add_7(&k) < 0) {
			fprintf(stderr, "Add: %s\n", msg);
			exit(1);
		}
		t = now() - t;
		best = t < best ? t : best;
		ox_val_unref(out);
	}
	OnnxProto_Free(node);
	return best;
}

static void levels(const char *name, size_t off, bool binary, float *y, const float *a, const float *b)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++) {
		const ox_f32_loops *l = ox_f32_loops_at(level);
		char what[80];
		snprintf(what, sizeof what, "%s, loop, %s", name, ox_cpu_level_name(level));
		if (binary) {
			ox_f32_binary f;
			memcpy(&f, (const char *)l + off, sizeof f);
			report(what, time_binary(f, y, a, b), 3 * MB);
		} else {
			ox_f32_unary f;
			memcpy(&f, (const char *)l + off, sizeof f);
			report(what, time_unary(f, y, a), 2 * MB);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		repeats = atoi(argv[1]) > 0 ? atoi(argv[1]) : repeats;
	printf("cpu level: %s (ONNXTXT_CPU lowers it)\n", ox_cpu_level_name(ox_cpu_level()));
	printf("tensors: %zu floats (%zu MiB each); GB/s is 10^9 bytes moved per second; best of %d\n", N,
	       N * sizeof(float) >> 20, repeats);
	float *a = buffer(1.0f), *b = buffer(-0.5f), *y = buffer(0.0f);
	levels("Add", offsetof(ox_f32_loops, add), true, y, a, b);
	levels("Relu", offsetof(ox_f32_loops, relu), false, y, a, NULL);
	levels("Sigmoid", offsetof(ox_f32_loops, sigmoid), false, y, a, NULL);

	int64_t dims[1] = {(int64_t)N};
	ox_val *ta = ox_tensor_new(OX_FLOAT, 1, dims, NULL), *tb = ox_tensor_new(OX_FLOAT, 1, dims, NULL);
	memcpy(ta->data, a, N * sizeof *a);
	memcpy(tb->data, b, N * sizeof *b);
	report("Add, ox_op_Add_7, fresh output (page faults)", time_op_add(ta, tb), 3 * MB);
	/* keep freed blocks mapped and in the heap, so the next output reuses their pages */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	report("Add, ox_op_Add_7, output memory reused", time_op_add(ta, tb), 3 * MB);
	ox_val_unref(ta);
	ox_val_unref(tb);
	free(a);
	free(b);
	free(y);
	return 0;
}
