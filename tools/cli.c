/* The command line's shared plumbing: common options, exit statuses and messages, with
 * colour on terminals (--color, NO_COLOR: https://no-color.org). */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *prog = "onnxtxt";
int cli_quiet;

enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };
static int color_mode = COLOR_AUTO;

/* Whether messages on standard error are coloured: asked for, or on a terminal that can
 * show colour when NO_COLOR is unset or empty. */
static int colored(void)
{
	static int decided = -1;
	if (color_mode != COLOR_AUTO)
		return color_mode == COLOR_ALWAYS;
	if (decided < 0) {
		const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
		decided = (!no || !*no) && isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
	}
	return decided;
}

#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define GREEN "\033[1;32m"
#define MAGENTA "\033[1;35m"
#define RESET "\033[0m"

static const char *paint(const char *code)
{
	return colored() ? code : "";
}

int cli_common_option(int c, const char *arg)
{
	if (c == 'q') {
		cli_quiet = 1;
		return 1;
	}
	if (c != CLI_OPT_COLOR)
		return 0;
	if (!arg || !strcmp(arg, "always"))
		color_mode = COLOR_ALWAYS;
	else if (!strcmp(arg, "never"))
		color_mode = COLOR_NEVER;
	else if (!strcmp(arg, "auto"))
		color_mode = COLOR_AUTO;
	else
		return usage_error("--color takes auto, always or never, not '%s'", arg), -1;
	return 1;
}

void fail(const char *fmt, ...)
{
	fprintf(stderr, "%s%s:%s %serror:%s ", paint(BOLD), prog, paint(RESET), paint(RED), paint(RESET));
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fail_at(const char *where, const char *fmt, ...)
{
	fprintf(stderr, "%s%s:%s %serror:%s ", paint(BOLD), where, paint(RESET), paint(RED), paint(RESET));
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	fprintf(stderr, "%s%s:%s %serror:%s ", paint(BOLD), prog, paint(RESET), paint(RED), paint(RESET));
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return EXIT_USAGE;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	const char *opt = argv[optind - 1];
	if (c == ':')
		return usage_error("%s: option '%s' needs an argument", cmd, opt);
	if (optopt && strncmp(opt, "--", 2) != 0)
		return usage_error("%s: unknown option '-%c'", cmd, optopt);
	return usage_error("%s: unknown option '%s'", cmd, opt);
}

int exit_for(OnnxStatus st)
{
	switch (st) {
	case ONNXTXT_OK: return EXIT_OK;
	case ONNXTXT_ERR_IO: return EXIT_IO;
	case ONNXTXT_ERR_ARG: return EXIT_USAGE;
	default: return EXIT_INPUT;
	}
}

/* Writes the first line of a formatted error ("WHERE: error: MESSAGE") in colour. */
static void paint_head(const char *line, size_t n)
{
	const char *tag = strstr(line, ": error: "), *warn = strstr(line, ": warning: ");
	bool warning = warn && (!tag || warn < tag);
	tag = warning ? warn : tag;
	if (!tag || (size_t)(tag - line) > n) {
		fwrite(line, 1, n, stderr);
		return;
	}
	const char *word = warning ? "warning:" : "error:";
	size_t where = (size_t)(tag - line) + 1, rest = where + strlen(word) + 1;
	fprintf(stderr, "%s%.*s%s %s%s%s %s%.*s%s", paint(BOLD), (int)where, line, paint(RESET),
		paint(warning ? MAGENTA : RED), word, paint(RESET), paint(BOLD), (int)(n - rest), line + rest, paint(RESET));
}

void report(const OnnxError *err, const char *file, const char *text, size_t len)
{
	size_t n = OnnxError_Format(err, file, text, len, NULL, 0);
	char *buf = malloc(n + 1);
	if (!buf) {
		fprintf(stderr, "%s: error: %s\n", file, err->message);
		return;
	}
	OnnxError_Format(err, file, text, len, buf, n + 1);
	if (!colored()) {
		fputs(buf, stderr);
		free(buf);
		return;
	}
	/* the file name may hold ": error: " too: search from where it ends */
	size_t skip = file ? strlen(file) : 0, head = strcspn(buf + skip, "\n") + skip;
	paint_head(buf, head);
	char *source = buf + head, *caret = strrchr(buf, '\n');
	while (caret > source && caret[-1] != '\n')
		caret--; /* the caret line, the last one */
	if (caret > source + 1) {
		fwrite(source, 1, (size_t)(caret - source), stderr);
		fprintf(stderr, "%s%.*s%s\n", paint(GREEN), (int)strcspn(caret, "\n"), caret, paint(RESET));
	} else {
		fputs(source, stderr);
	}
	free(buf);
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		fail("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f) || feof(f))
			break;
		char *more = realloc(buf, cap * 2);
		if (!more)
			free(buf);
		buf = more;
		cap *= 2;
	}
	int failed = !buf || ferror(f);
	if (failed)
		fail("cannot read %s: %s", path, buf ? strerror(errno) : "out of memory");
	if (f != stdin)
		fclose(f);
	if (failed) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

const char *display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* Text has no control bytes but whitespace (and NUL inside strings); protobuf bytes
 * nearly always have some (tags 0x08, 0x12, lengths) within their first kilobytes. */
int looks_binary(const char *d, size_t n)
{
	for (size_t i = 0; i < n && i < 4096; i++) {
		unsigned char c = (unsigned char)d[i];
		if ((c && c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') || c == 0x7f)
			return 1;
	}
	return 0;
}
