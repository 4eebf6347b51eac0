/* bench_parse: parse- and print-throughput and peak-RSS measurements of libonnxtxt (public
 * API only), plus a process runner that times whole commands such as `onnxtxt to-binary`.
 *
 *   bench_parse cold FILE        one parse in this fresh process (the CLI's situation)
 *   bench_parse warm FILE N      N parses in one process; best and median
 *   bench_parse print FILE       FILE is a binary .onnx: one OnnxPrinter_Print of it (to
 *                                memory, default flags) in this fresh process
 *   bench_parse print-warm FILE N  N prints in one process; best and median
 *   bench_parse strip IN OUT     writes the binary model IN without its initializers (every
 *                                graph's, nested ones included) to OUT
 *   bench_parse spawn K [--in F] [--out F] -- CMD…
 *                                runs CMD K times (fork/exec + wait4); wall time and the
 *                                child's peak RSS per run, then median and best. Standard
 *                                input comes from --in F (default: inherited), standard
 *                                output goes to --out F (truncated; fsync'd before the clock
 *                                stops, like onnxtxt's own writes) or else to /dev/null
 *
 * Every mode prints "key=value" lines for tools/bench/run.sh and print.sh; times in seconds,
 * sizes in bytes, RSS in KiB (ru_maxrss). Only the OnnxParser_Parse or OnnxPrinter_Print
 * call is timed: reading the file (and, for print, OnnxBinary_Read), freeing the model and
 * the text are not. A failed parse, print or command exits non-zero with a message. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <onnxtxt/onnxtxt.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "bench_parse: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

/* Reads FILE whole, with a terminating NUL (not counted in *len), like the CLI does. */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		die(path, strerror(errno));
	size_t n = (size_t)st.st_size, got = 0;
	char *buf = malloc(n + 1);
	if (!buf)
		die("out of memory reading", path);
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			die(path, r < 0 ? strerror(errno) : "short read");
		got += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* One timed parse; exits with the library's message if it fails. */
static double parse_once(const char *path, const char *text, size_t len, size_t *nodes)
{
	Onnx__ModelProto *m = NULL;
	OnnxError err;
	double t0 = now();
	OnnxStatus st = OnnxParser_Parse(text, len, &m, &err);
	double t = now() - t0;
	if (st != ONNXTXT_OK) {
		char buf[2048];
		OnnxError_Format(&err, path, text, len, buf, sizeof buf);
		fprintf(stderr, "%s", buf);
		die("parse failed", path);
	}
	*nodes = m->graph ? m->graph->n_node : 0;
	OnnxProto_Free(m);
	return t;
}

static long baseline_kb; /* peak RSS before the input was read */

static void print_rusage(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("baseline_kb=%ld\nmaxrss_kb=%ld\nminflt=%ld\nmajflt=%ld\n", baseline_kb, ru.ru_maxrss, ru.ru_minflt,
	       ru.ru_majflt);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmd_cold(const char *path)
{
	size_t len, nodes;
	char *text = slurp(path, &len);
	double t = parse_once(path, text, len, &nodes);
	printf("bytes=%zu\nnodes=%zu\nparse_s=%.9f\n", len, nodes, t);
	print_rusage();
	free(text);
	return 0;
}

static int cmd_warm(const char *path, int n)
{
	size_t len, nodes;
	char *text = slurp(path, &len);
	double *t = malloc(sizeof *t * (size_t)n);
	if (!t)
		die("out of memory", NULL);
	for (int i = 0; i < n; i++)
		t[i] = parse_once(path, text, len, &nodes);
	double med = median(t, n);
	printf("bytes=%zu\nnodes=%zu\nruns=%d\nbest_s=%.9f\nmedian_s=%.9f\n", len, nodes, n, t[0], med);
	print_rusage();
	free(t);
	free(text);
	return 0;
}

/* Reads the binary model at path; exits with the library's message if it fails. The file's
 * size goes to *len. */
static Onnx__ModelProto *read_binary(const char *path, size_t *len)
{
	char *data = slurp(path, len);
	Onnx__ModelProto *m = NULL;
	OnnxError err;
	if (OnnxBinary_Read(data, *len, &m, &err) != ONNXTXT_OK)
		die(path, err.message);
	free(data);
	return m;
}

/* One timed print to memory; the text's length goes to *out_len. */
static double print_once(const char *path, const Onnx__ModelProto *m, size_t *out_len)
{
	char *text = NULL;
	OnnxError err;
	double t0 = now();
	OnnxStatus st = OnnxPrinter_Print(m, 0, &text, out_len, &err);
	double t = now() - t0;
	if (st != ONNXTXT_OK) {
		fprintf(stderr, "bench_parse: %s: %s\n", path, err.message);
		die("print failed", path);
	}
	free(text);
	return t;
}

static size_t count_initializers(const Onnx__ModelProto *m)
{
	return m->graph ? m->graph->n_initializer : 0;
}

static int cmd_print(const char *path)
{
	size_t in_len, len;
	Onnx__ModelProto *m = read_binary(path, &in_len);
	double t = print_once(path, m, &len);
	printf("in_bytes=%zu\nbytes=%zu\nnodes=%zu\ninitializers=%zu\nprint_s=%.9f\n", in_len, len,
	       m->graph ? m->graph->n_node : 0, count_initializers(m), t);
	print_rusage();
	OnnxProto_Free(m);
	return 0;
}

static int cmd_print_warm(const char *path, int n)
{
	size_t in_len, len = 0;
	Onnx__ModelProto *m = read_binary(path, &in_len);
	double *t = malloc(sizeof *t * (size_t)n);
	if (!t)
		die("out of memory", NULL);
	for (int i = 0; i < n; i++)
		t[i] = print_once(path, m, &len);
	double med = median(t, n);
	printf("in_bytes=%zu\nbytes=%zu\nnodes=%zu\nruns=%d\nbest_s=%.9f\nmedian_s=%.9f\n", in_len, len,
	       m->graph ? m->graph->n_node : 0, n, t[0], med);
	print_rusage();
	free(t);
	OnnxProto_Free(m);
	return 0;
}

/* Drops the initializers of g and of the graphs in its nodes' attributes; returns how many. */
static size_t strip_graph(Onnx__GraphProto *g)
{
	if (!g)
		return 0;
	size_t n = g->n_initializer;
	g->n_initializer = 0; /* the arrays stay in the model's arena, freed with it */
	for (size_t i = 0; i < g->n_node; i++) {
		Onnx__NodeProto *node = g->node[i];
		for (size_t j = 0; j < node->n_attribute; j++) {
			Onnx__AttributeProto *a = node->attribute[j];
			n += strip_graph(a->g);
			for (size_t k = 0; k < a->n_graphs; k++)
				n += strip_graph(a->graphs[k]);
		}
	}
	return n;
}

static int cmd_strip(const char *in, const char *out)
{
	size_t len;
	Onnx__ModelProto *m = read_binary(in, &len);
	size_t n = strip_graph(m->graph);
	OnnxError err;
	if (OnnxBinary_WriteFile(m, out, &err) != ONNXTXT_OK)
		die(out, err.message);
	printf("initializers_removed=%zu\n", n);
	OnnxProto_Free(m);
	return 0;
}

/* Runs argv once; returns wall seconds and fills *rss_kb with the child's peak RSS. */
static double spawn_once(char **argv, const char *in, const char *out, long *rss_kb)
{
	double t0 = now();
	int out_fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
	if (out && out_fd < 0)
		die(out, strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (pid == 0) {
		int fd = out ? out_fd : open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		if (in) {
			int in_fd = open(in, O_RDONLY);
			if (in_fd < 0 || dup2(in_fd, STDIN_FILENO) < 0) {
				fprintf(stderr, "bench_parse: %s: %s\n", in, strerror(errno));
				_exit(127);
			}
		}
		execvp(argv[0], argv);
		fprintf(stderr, "bench_parse: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4", strerror(errno));
	if (out_fd >= 0 && (fsync(out_fd) != 0 || close(out_fd) != 0))
		die(out, strerror(errno));
	double t = now() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_parse: %s failed (%s %d)\n", argv[0],
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		exit(1);
	}
	*rss_kb = ru.ru_maxrss;
	return t;
}

static int cmd_spawn(int k, const char *in, const char *out, char **argv)
{
	double *t = malloc(sizeof *t * (size_t)k), *rss = malloc(sizeof *rss * (size_t)k);
	if (!t || !rss)
		die("out of memory", NULL);
	for (int i = 0; i < k; i++) {
		long kb;
		t[i] = spawn_once(argv, in, out, &kb);
		rss[i] = (double)kb;
		printf("run%d_s=%.9f\nrun%d_maxrss_kb=%ld\n", i, t[i], i, kb);
	}
	double med = median(t, k), best = t[0];
	double rss_med = median(rss, k);
	printf("runs=%d\nmedian_s=%.9f\nbest_s=%.9f\nmaxrss_kb=%.0f\nmaxrss_max_kb=%.0f\n", k, med, best, rss_med,
	       rss[k - 1]);
	free(t);
	free(rss);
	return 0;
}

static int count_arg(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);
	if (*end || n < 1 || n > 100000)
		die("expected a positive count, got", s);
	return (int)n;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	baseline_kb = ru.ru_maxrss;
	if (argc == 3 && !strcmp(argv[1], "cold"))
		return cmd_cold(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "warm"))
		return cmd_warm(argv[2], count_arg(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "print"))
		return cmd_print(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "print-warm"))
		return cmd_print_warm(argv[2], count_arg(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "strip"))
		return cmd_strip(argv[2], argv[3]);
	if (argc >= 5 && !strcmp(argv[1], "spawn")) {
		const char *in = NULL, *out = NULL;
		int i = 3;
		for (; i + 1 < argc && strcmp(argv[i], "--"); i += 2) {
			if (!strcmp(argv[i], "--in"))
				in = argv[i + 1];
			else if (!strcmp(argv[i], "--out"))
				out = argv[i + 1];
			else
				break;
		}
		if (i + 1 < argc && !strcmp(argv[i], "--"))
			return cmd_spawn(count_arg(argv[2]), in, out, argv + i + 1);
	}
	fprintf(stderr, "usage: bench_parse cold FILE | warm FILE N | print FILE | print-warm FILE N |\n"
			"       strip IN OUT | spawn K [--in FILE] [--out FILE] -- CMD [ARGS...]\n"
			"library: onnxtxt %s\n", OnnxLibrary_Version());
	return 2;
}
