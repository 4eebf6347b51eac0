/* bench_eval: evaluator timings through the public API.
 *
 *   bench_eval snippet FILE N   FILE is a small text model with "#@ input" lines: N times,
 *                               parse + session + bind + run + free, all in process
 *   bench_eval model FILE DIR N [THREADS [PLAIN]]
 *                               FILE is a model (text or binary), DIR a test_data_set
 *                               folder: read+parse and session creation once, then N runs
 *                               with the inputs of DIR bound; THREADS as the session
 *                               option (default 0: one per processor), PLAIN 1 turns the
 *                               session-time optimizations off
 *
 * Prints "key=value" lines: times in seconds (best and median), wall clock and, as
 * *_cpu, the process's CPU time (all threads), which leaves out time the machine gave
 * to other processes. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <onnxtxt/onnxtxt.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		b[n] = '\0';
	*len = (size_t)n;
	return b;
}

static void die(const char *what, const OnnxError *err)
{
	fprintf(stderr, "bench_eval: %s: %s\n", what, err ? err->message : "failed");
	exit(1);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *key, double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, by_value);
	printf("%s_best=%.9f\n%s_median=%.9f\n", key, t[0], key, t[n / 2]);
}

static void snippet_once(const char *text, size_t len)
{
	Onnx__ModelProto *m;
	OnnxCaseItem *items;
	size_t n;
	OnnxSession *s;
	OnnxError err;
	if (OnnxParser_Parse(text, len, &m, &err) || OnnxCase_Parse(text, len, &items, &n, &err) ||
	    OnnxSession_New(m, &s, &err))
		die("snippet", &err);
	for (size_t i = 0; i < n; i++)
		if (!items[i].expect && OnnxSession_SetInput(s, items[i].name, items[i].value, &err))
			die("input", &err);
	if (OnnxSession_Run(s, &err))
		die("run", &err);
	OnnxSession_Free(s);
	OnnxCase_Free(items, n);
	OnnxProto_Free(m);
}

static int snippet(const char *path, int runs)
{
	size_t len;
	char *text = slurp(path, &len);
	if (!text)
		die(path, NULL);
	double *t = malloc((size_t)runs * sizeof *t);
	snippet_once(text, len); /* warm up the caches and the op table */
	for (int i = 0; i < runs; i++) {
		double t0 = now();
		snippet_once(text, len);
		t[i] = now() - t0;
	}
	report("snippet", t, runs);
	free(t);
	free(text);
	return 0;
}

static int model(const char *path, const char *dir, int runs, const OnnxSessionOptions *opts)
{
	size_t len;
	OnnxError err;
	Onnx__ModelProto *m;
	double t0 = now();
	char *data = slurp(path, &len);
	if (!data)
		die(path, NULL);
	/* binary fails on its first bytes as text */
	if (OnnxParser_Parse(data, len, &m, &err) && OnnxBinary_Read(data, len, &m, &err))
		die("model", &err);
	double t1 = now(), c1 = cpu();
	OnnxSession *s;
	if (OnnxSession_NewWithOptions(m, opts, &s, &err))
		die("session", &err);
	double t2 = now(), c2 = cpu();
	printf("load=%.9f\nsession=%.9f\nsession_cpu=%.9f\n", t1 - t0, t2 - t1, c2 - c1);
	for (size_t k = 0, i = 0; i < OnnxSession_InputCount(s); i++) {
		int optional;
		const Onnx__ValueInfoProto *vi = OnnxSession_Input(s, i, &optional);
		if (optional)
			continue;
		char file[4096];
		snprintf(file, sizeof file, "%s/input_%zu.pb", dir, k++);
		OnnxValue *v;
		if (OnnxValue_ReadFile(file, OnnxSession_InputKind(s, i), &v, &err) ||
		    OnnxSession_SetInput(s, vi->name, v, &err))
			die(file, &err);
		OnnxValue_Free(v);
	}
	double *t = malloc(2 * (size_t)runs * sizeof *t), *c = t + runs;
	for (int i = 0; i < runs; i++) {
		double r0 = now(), q0 = cpu();
		if (OnnxSession_Run(s, &err))
			die("run", &err);
		t[i] = now() - r0;
		c[i] = cpu() - q0;
	}
	printf("first_run=%.9f\n", t[0]);
	report("run", t, runs);
	report("run_cpu", c, runs);
	free(t);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "snippet") == 0)
		return snippet(argv[2], atoi(argv[3]));
	if (argc >= 5 && argc <= 7 && strcmp(argv[1], "model") == 0) {
		OnnxSessionOptions o = {argc > 5 ? atoi(argv[5]) : 0, argc > 6 ? atoi(argv[6]) : 0};
		return model(argv[2], argv[3], atoi(argv[4]), &o);
	}
	fprintf(stderr, "usage: bench_eval snippet FILE N | bench_eval model FILE DIR N [THREADS [PLAIN]]\n");
	return 2;
}
