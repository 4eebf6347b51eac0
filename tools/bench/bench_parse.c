/* bench_parse: parse-throughput and peak-RSS measurements of libonnxtxt (public API only),
 * plus a process runner that times whole commands such as `onnxtxt to-binary`.
 *
 *   bench_parse cold FILE        one parse in this fresh process (the CLI's situation)
 *   bench_parse warm FILE N      N parses in one process; best and median
 *   bench_parse spawn K -- CMD…  runs CMD K times (fork/exec + wait4); wall time and the
 *                                child's peak RSS per run, then median and best
 *
 * Every mode prints "key=value" lines for tools/bench/run.sh; times in seconds, sizes in
 * bytes, RSS in KiB (ru_maxrss). Only the OnnxParser_Parse call is timed: reading the file
 * and OnnxProto_Free are not. A failed parse or command exits non-zero with a message. */
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

/* Runs argv once; returns wall seconds and fills *rss_kb with the child's peak RSS. */
static double spawn_once(char **argv, long *rss_kb)
{
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "bench_parse: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4", strerror(errno));
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

static int cmd_spawn(int k, char **argv)
{
	double *t = malloc(sizeof *t * (size_t)k), *rss = malloc(sizeof *rss * (size_t)k);
	if (!t || !rss)
		die("out of memory", NULL);
	for (int i = 0; i < k; i++) {
		long kb;
		t[i] = spawn_once(argv, &kb);
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
	if (argc >= 5 && !strcmp(argv[1], "spawn") && !strcmp(argv[3], "--"))
		return cmd_spawn(count_arg(argv[2]), argv + 4);
	fprintf(stderr, "usage: bench_parse cold FILE | warm FILE N | spawn K -- CMD [ARGS...]\n"
			"library: onnxtxt %s\n", OnnxTxt_Version());
	return 2;
}
