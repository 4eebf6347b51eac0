/* The command line's shared plumbing: common options, exit statuses and messages, with
 * colour on terminals (--color, NO_COLOR: https://no-color.org). */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
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

int cli_color_stdout(void)
{
	static int decided = -1;
	if (color_mode != COLOR_AUTO)
		return color_mode == COLOR_ALWAYS;
	if (decided < 0) {
		const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
		decided = (!no || !*no) && isatty(STDOUT_FILENO) && !(term && !strcmp(term, "dumb"));
	}
	return decided;
}

int print_code(const char *text, size_t len)
{
	char *painted = NULL;
	size_t n = len;
	if (cli_color_stdout() && OnnxPrinter_Highlight(text, len, &painted, &n, NULL) == ONNXTXT_OK)
		text = painted;
	else
		n = len; /* out of memory: the text without colour */
	int ok = fwrite(text, 1, n, stdout) == n;
	free(painted);
	return ok ? 0 : -1;
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
	if (c == CLI_OPT_DIAGNOSTICS) {
		static const char *const names[] = {"text", "json", "sarif"};
		for (int i = 0; i < 3; i++)
			if (!strcmp(arg, names[i]))
				return cli_diag_format = i, 1;
		return usage_error("--diagnostics-format takes text, json or sarif, not '%s'", arg), -1;
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

/* A message for --diagnostics-format json or sarif; 0 for text. */
static int diag_vmessage(const char *file, const char *fmt, va_list ap)
{
	if (cli_diag_format == DIAG_TEXT)
		return 0;
	char msg[2048];
	vsnprintf(msg, sizeof msg, fmt, ap);
	diag_message(diag_rule(ONNXTXT_OK), "error", file, 0, 0, msg);
	return 1;
}

void cli_put_text(FILE *f, const char *s)
{
	for (size_t i = 0, n = strlen(s), k; i < n; i += k) {
		k = cli_utf8_len((const unsigned char *)s + i, n - i);
		if (k)
			fwrite(s + i, 1, k, f);
		else
			fputs("\xef\xbf\xbd", f), k = 1;
	}
}

/* A message's text on standard error, through cli_put_text: it may quote a name of a
 * binary model, which may hold any bytes. */
static void put_vmessage(const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	char small[1024], *msg = small;
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)))
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	va_end(again);
	cli_put_text(stderr, msg ? msg : small);
	if (msg != small)
		free(msg);
}

void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int done = diag_vmessage(NULL, fmt, ap);
	va_end(ap);
	if (done)
		return;
	fprintf(stderr, "%s%s:%s %serror:%s ", paint(BOLD), prog, paint(RESET), paint(RED), paint(RESET));
	va_start(ap, fmt);
	put_vmessage(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fail_at(const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int done = diag_vmessage(where, fmt, ap);
	va_end(ap);
	if (done)
		return;
	fprintf(stderr, "%s%s:%s %serror:%s ", paint(BOLD), where, paint(RESET), paint(RED), paint(RESET));
	va_start(ap, fmt);
	put_vmessage(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *cli_command;

int usage_error(const char *fmt, ...)
{
	fprintf(stderr, "%s%s:%s %serror:%s ", paint(BOLD), prog, paint(RESET), paint(RED), paint(RESET));
	va_list ap;
	va_start(ap, fmt);
	put_vmessage(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s%s%s --help' for more information.\n", prog, cli_command ? " " : "",
		cli_command ? cli_command : "");
	return EXIT_USAGE;
}

/* Levenshtein distance, for the suggestions of misspelt commands and options. */
static size_t distance(const char *a, const char *b)
{
	size_t n = strlen(b), row[64];
	if (strlen(a) >= 64 || n >= 64)
		return (size_t)-1;
	for (size_t j = 0; j <= n; j++)
		row[j] = j;
	for (size_t i = 1; a[i - 1]; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= n; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n];
}

const char *cli_closest(const char *word, size_t len, const char *const *names, size_t n)
{
	char w[64];
	if (len >= sizeof w)
		return NULL;
	memcpy(w, word, len);
	w[len] = '\0';
	const char *best = NULL;
	size_t best_d = 3; /* at most two edits, and fewer than the word has letters */
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(w, names[i]);
		if (d < best_d && d < len)
			best = names[i], best_d = d;
	}
	return best;
}

/* " (did you mean '--NAME'?)" for a misspelt long option opt, or "". */
static const char *option_hint(const char *opt, const struct option *opts, char *buf, size_t size)
{
	const char *names[64];
	size_t n = 0;
	for (; opts && opts->name && n < 64; opts++)
		names[n++] = opts->name;
	const char *word = opt + 2, *best = cli_closest(word, strcspn(word, "="), names, n);
	if (!best)
		return "";
	snprintf(buf, size, " (did you mean '--%s'?)", best);
	return buf;
}

int cli_bad_option(const char *cmd, int c, char **argv, const struct option *opts)
{
	const char *opt = argv[optind - 1], *colon = cmd ? ": " : "";
	char hint[96];
	cmd = cmd ? cmd : "";
	if (c == ':')
		return usage_error("%s%soption '%s' needs an argument", cmd, colon, opt);
	if (optopt && strncmp(opt, "--", 2) != 0)
		return usage_error("%s%sunknown option '-%c'", cmd, colon, optopt);
	return usage_error("%s%sunknown option '%s'%s", cmd, colon, opt, option_hint(opt, opts, hint, sizeof hint));
}

static int stdout_reported;

int cli_stdout_error(int errnum)
{
	if (!stdout_reported)
		fail("cannot write standard output: %s", strerror(errnum ? errnum : EIO));
	stdout_reported = 1;
	return EXIT_IO;
}

int cli_output_error(const OnnxError *err, int to_stdout)
{
	if (to_stdout && err->code == ONNXTXT_ERR_IO)
		return cli_stdout_error(err->sys_errno);
	fail("%s", err->message);
	return exit_for(err->code);
}

int cli_close_stdout(int rc)
{
	/* what is still buffered goes out now; a write that failed earlier left the stream's
	 * error flag, and usually its bytes in the buffer, so the flush says why */
	errno = 0;
	int failed = fflush(stdout) != 0 || ferror(stdout), e = errno;
	if (fclose(stdout) != 0 && !failed)
		failed = 1, e = errno;
	if (failed)
		cli_stdout_error(e);
	if (stdout_reported)
		return EXIT_IO;
	/* nothing can report a failed standard error, but the exit status */
	return rc == EXIT_OK && (fflush(stderr) != 0 || ferror(stderr)) ? EXIT_IO : rc;
}

/* Removes the temporary file of an -o write in progress, then dies of the signal as if
 * it had not been caught (the shell sees the signal in the exit status). */
static void on_fatal_signal(int sig)
{
	OnnxLibrary_RemoveTempFiles();
	raise(sig); /* the disposition is the default again (SA_RESETHAND) */
}

void cli_clean_up_on_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		/* a signal ignored by whoever started us (nohup) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
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
	if (cli_diag_format != DIAG_TEXT) {
		diag_report(err, file, text, len);
		return;
	}
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

size_t cli_utf8_len(const unsigned char *s, size_t n)
{
	size_t k = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
		 : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
	if (k == 0 || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((k == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (k == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (k == 4 && s[0] == 0xf4 && s[1] >= 0x90) || (k == 3 && s[0] == 0xed && s[1] >= 0xa0))
		return 0; /* overlong, beyond U+10FFFF, surrogates */
	return k;
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
