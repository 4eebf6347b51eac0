/* onnxtxt: command-line front end. A thin client of the public API in <onnxtxt/onnxtxt.h>. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <onnxtxt/onnxtxt.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_INPUT = 1, /* the model is invalid: syntax, values, malformed binary, limits */
	EXIT_USAGE = 2, /* bad command line */
	EXIT_IO = 3     /* a file could not be read or written */
};

static const char *prog = "onnxtxt";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return EXIT_USAGE;
}

static int exit_for(OnnxStatus st)
{
	switch (st) {
	case ONNXTXT_OK: return EXIT_OK;
	case ONNXTXT_ERR_IO: return EXIT_IO;
	case ONNXTXT_ERR_ARG: return EXIT_USAGE;
	default: return EXIT_INPUT;
	}
}

/* Prints err as "FILE:LINE:COL: error: ..." with the source line and a caret. */
static void report(const OnnxError *err, const char *file, const char *text, size_t len)
{
	char buf[2048];
	size_t n = OnnxError_Format(err, file, text, len, buf, sizeof buf);
	fputs(buf, stderr);
	if (n >= sizeof buf)
		fputc('\n', stderr);
}

/* Reads a whole file, or standard input for "-". */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f) || feof(f))
			break;
		char *more = realloc(buf, cap * 2);
		if (!more) {
			free(buf);
			buf = NULL;
		}
		buf = more;
		cap *= 2;
	}
	int failed = !buf || ferror(f);
	if (failed)
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, path, buf ? strerror(errno) : "out of memory");
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

static const char *display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* Writes bytes to standard output, or atomically to a file. */
static int write_binary(const Onnx__ModelProto *m, const char *out)
{
	OnnxError err;
	if (out && strcmp(out, "-") != 0) {
		if (OnnxBinary_WriteFile(m, out, &err) != ONNXTXT_OK) {
			fprintf(stderr, "%s: %s\n", prog, err.message);
			return exit_for(err.code);
		}
		return EXIT_OK;
	}
	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: refusing to write binary data to a terminal; use -o FILE or a redirection\n",
			prog);
		return EXIT_USAGE;
	}
	void *data;
	size_t len;
	if (OnnxBinary_Write(m, &data, &len, &err) != ONNXTXT_OK) {
		fprintf(stderr, "%s: %s\n", prog, err.message);
		return exit_for(err.code);
	}
	int ok = fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0;
	free(data);
	if (!ok) {
		fprintf(stderr, "%s: cannot write to standard output: %s\n", prog, strerror(errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

static const char to_binary_help[] =
	"Usage: onnxtxt to-binary [-o OUT] IN\n"
	"Convert a model in the ONNX textual syntax to a binary .onnx file.\n"
	"\n"
	"  IN            input text file, or - for standard input\n"
	"  -o, --output  output file (default: standard output, which must not be a terminal);\n"
	"                written atomically, so it is never left truncated\n"
	"  -h, --help    show this help\n";

static int cmd_to_binary(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *out = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'h')
			return fputs(to_binary_help, stdout), EXIT_OK;
		else
			return usage_error("to-binary: invalid option%s", "");
	}
	if (optind != argc - 1)
		return usage_error("to-binary: expected exactly one input file%s", "");
	const char *in = argv[optind];
	size_t len;
	char *text = slurp(in, &len);
	if (!text)
		return EXIT_IO;
	Onnx__ModelProto *m;
	OnnxError err;
	int rc = EXIT_OK;
	if (OnnxParser_Parse(text, len, &m, &err) != ONNXTXT_OK) {
		report(&err, display_name(in), text, len);
		rc = exit_for(err.code);
	} else {
		rc = write_binary(m, out);
		OnnxProto_Free(m);
	}
	free(text);
	return rc;
}

static const char main_help[] =
	"Usage: onnxtxt COMMAND [OPTIONS] [ARGS]\n"
	"Read, write and convert ONNX models in the ONNX textual syntax.\n"
	"\n"
	"Commands:\n"
	"  to-binary IN [-o OUT]   convert text to a binary .onnx model\n"
	"\n"
	"Options:\n"
	"  -h, --help      show this help (COMMAND --help for a command's own)\n"
	"  -V, --version   show the version\n"
	"\n"
	"Exit status: 0 success, 1 invalid input model, 2 usage error, 3 file error.\n";

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("missing command%s", "");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		return fputs(main_help, stdout), EXIT_OK;
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version"))
		return printf("onnxtxt %s\n", OnnxTxt_Version()), EXIT_OK;
	optind = 1;
	if (!strcmp(cmd, "to-binary"))
		return cmd_to_binary(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", cmd);
}
