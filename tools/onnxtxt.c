/* onnxtxt: command-line front end. A thin client of the public API in <onnxtxt/onnxtxt.h>. */
#define _XOPEN_SOURCE 700 /* POSIX 2008 with realpath */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <onnxtxt/onnxtxt.h>

#include "cli.h"

/* Long options without a short form. */
enum {
	OPT_NO_ANNOTATIONS = 1000, OPT_FLOAT_LITERALS, OPT_CHECK, OPT_EXTERNAL, OPT_THRESHOLD, OPT_EMBED,
	OPT_DROP_COMMENTS, OPT_ANY_PATH, OPT_JSON, OPT_MAX_ERRORS, OPT_NO_INFER, OPT_STRICT, OPT_INFER
};

/* Writes bytes to standard output, or atomically to a file. */
int write_binary(const Onnx__ModelProto *m, const char *out)
{
	OnnxError err;
	if (out && strcmp(out, "-") != 0) {
		if (OnnxBinary_WriteFile(m, out, &err) != ONNXTXT_OK) {
			fail("%s", err.message);
			return exit_for(err.code);
		}
		return EXIT_OK;
	}
	if (isatty(STDOUT_FILENO)) {
		fail("refusing to write binary data to a terminal; use -o FILE or a redirection");
		return EXIT_USAGE;
	}
	void *data;
	size_t len;
	if (OnnxBinary_Write(m, &data, &len, &err) != ONNXTXT_OK) {
		fail("%s", err.message);
		return exit_for(err.code);
	}
	int ok = fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0, e = errno;
	free(data);
	return ok ? EXIT_OK : cli_stdout_error(e);
}

/* Decodes text (or bytes) read from path as a model in either format: the one the bytes
 * suggest, else the other; when both fail, reports the first error and returns an exit
 * code. *m is NULL unless it succeeded. */
int decode_model(const char *path, const char *text, size_t len, Onnx__ModelProto **m)
{
	*m = NULL;
	OnnxError err;
	int binary = looks_binary(text, len);
	OnnxStatus st = binary ? OnnxBinary_Read(text, len, m, &err) : OnnxParser_Parse(text, len, m, &err);
	if (st != ONNXTXT_OK && st != ONNXTXT_ERR_NOMEM) {
		OnnxStatus other = binary ? OnnxParser_Parse(text, len, m, NULL) : OnnxBinary_Read(text, len, m, NULL);
		if (other == ONNXTXT_OK && (binary || (*m)->graph))
			return EXIT_OK;
		if (other == ONNXTXT_OK)
			OnnxProto_Free(*m);
		*m = NULL;
	}
	if (st != ONNXTXT_OK) {
		report(&err, display_name(path), binary ? NULL : text, len);
		return exit_for(st);
	}
	return EXIT_OK;
}

/* Reads and decodes a model; *text holds the input either way (NULL when it could not
 * be read). */
int load_model(const char *path, Onnx__ModelProto **m, char **text, size_t *len)
{
	*m = NULL;
	*text = slurp(path, len);
	return *text ? decode_model(path, *text, *len, m) : EXIT_IO;
}

/* A value's text ("NAME = VALUE" or "VALUE", what to-text prints for a .pb file) as the
 * bytes of its TensorProto, SequenceProto or OptionalProto; -1 when text is not one, and
 * the model's error, model_err at byte model_at, is the one to report: the one of the two
 * readings that got further is. */
static int value_to_binary(const char *path, const char *text, size_t len, const char *out, size_t model_at)
{
	OnnxValue *v;
	char *name;
	OnnxError err;
	if (OnnxValue_ParseNamed(text, len, &v, &name, &err) != ONNXTXT_OK) {
		if (err.code != ONNXTXT_ERR_NOMEM && err.offset <= model_at)
			return -1;
		report(&err, display_name(path), text, len);
		return exit_for(err.code);
	}
	void *m = NULL;
	int rc = EXIT_OK, to_stdout = !out || strcmp(out, "-") == 0;
	const char *field = *name ? name : NULL; /* no name: no name field, as it was read */
	if (!to_stdout && OnnxValue_WriteFile(v, field, out, &err) != ONNXTXT_OK) {
		rc = cli_output_error(&err, 0);
	} else if (to_stdout && OnnxValue_ToProto(v, field, &m, &err) != ONNXTXT_OK) {
		rc = cli_output_error(&err, 0);
	} else if (to_stdout) {
		size_t n = protobuf_c_message_get_packed_size(m);
		uint8_t *bytes = malloc(n ? n : 1);
		if (!bytes)
			rc = (fail("out of memory"), EXIT_INPUT);
		else if (protobuf_c_message_pack(m, bytes), fwrite(bytes, 1, n, stdout) != n || fflush(stdout) != 0)
			rc = cli_stdout_error(errno);
		free(bytes);
	}
	OnnxProto_Free(m);
	OnnxValue_Free(v);
	free(name);
	return rc;
}

static const char to_binary_help[] =
	"Usage: onnxtxt to-binary [-o OUT] [--embed-external-data [--allow-external-outside]] IN\n"
	"Convert a model in the ONNX textual syntax to a binary .onnx file (a binary input,\n"
	"detected from the content, is rewritten as protobuf-c packs it), or a value as to-text\n"
	"prints it ('NAME = VALUE') to the .pb file it came from.\n"
	"\n"
	"  IN            input file, or - for standard input\n"
	"  -o, --output  output file (default: standard output, which must not be a terminal);\n"
	"                written atomically, so it is never left truncated\n"
	"  --embed-external-data\n"
	"                read tensors kept in external data files (relative to IN) into the\n"
	"                model itself; their locations must stay inside IN's directory\n"
	"  --allow-external-outside\n"
	"                also follow absolute locations, '..' and links leading out of IN's\n"
	"                directory (only for models you trust)\n"
	CLI_COMMON_HELP
	"\n"
	"Exit status: 0 converted, 1 the model is invalid, 2 usage error, 3 file error.\n";

static int cmd_to_binary(int argc, char **argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
					     {"embed-external-data", no_argument, NULL, OPT_EMBED},
					     {"allow-external-outside", no_argument, NULL, OPT_ANY_PATH},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	const char *out = NULL;
	int c, r, embed = 0;
	unsigned embed_flags = 0;
	while ((c = getopt_long(argc, argv, ":o:hq", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == OPT_EMBED)
			embed = 1;
		else if (c == OPT_ANY_PATH)
			embed_flags |= ONNXTXT_EXTERNAL_ANY_PATH;
		else if (c == 'h')
			return fputs(to_binary_help, stdout), EXIT_OK;
		else if ((r = cli_common_option(c, optarg)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
		} else {
			return cli_bad_option("to-binary", c, argv, opts);
		}
	}
	if (optind != argc - 1)
		return usage_error("to-binary: expected exactly one input file");
	if (embed_flags && !embed)
		return usage_error("to-binary: --allow-external-outside needs --embed-external-data");
	const char *in = argv[optind];
	int to_stdout = !out || strcmp(out, "-") == 0;
	if (to_stdout && isatty(STDOUT_FILENO)) {
		fail("refusing to write binary data to a terminal; use -o FILE or a redirection");
		return EXIT_USAGE;
	}
	size_t len;
	char *text = slurp(in, &len);
	if (!text)
		return EXIT_IO;
	int rc;
	OnnxError err;
	if (!embed && !looks_binary(text, len)) {
		/* text streams straight into the output, node by node */
		OnnxStatus st = to_stdout ? OnnxParser_ParseToBinary(text, len, stdout, &err)
					  : OnnxParser_ParseToBinaryFile(text, len, out, &err);
		/* an error in the text is reported by decode_model, which also tries the
		 * input as binary after all */
		if (st == ONNXTXT_OK || err.line == 0) {
			free(text);
			return st == ONNXTXT_OK ? EXIT_OK : cli_output_error(&err, to_stdout);
		}
	}
	if (!embed && !looks_binary(text, len) && (rc = value_to_binary(in, text, len, out, err.offset)) >= 0) {
		free(text);
		return rc;
	}
	Onnx__ModelProto *m;
	rc = decode_model(in, text, len, &m);
	if (rc == EXIT_OK && embed &&
	    OnnxModel_EmbedExternalDataWith(m, strcmp(in, "-") ? in : NULL, embed_flags, &err) != ONNXTXT_OK) {
		fail("%s", err.message);
		rc = exit_for(err.code);
	}
	if (rc == EXIT_OK)
		rc = write_binary(m, out);
	OnnxProto_Free(m);
	free(text);
	return rc;
}

static const char to_text_help[] =
	"Usage: onnxtxt to-text [-o OUT] [--no-annotations] [--float-literals] [--infer]\n"
	"                       [--external-data FILE [--size-threshold N]] IN\n"
	"Print a model (binary .onnx or text, detected from the content) in the canonical\n"
	"textual syntax, or a .pb file of backend test data (a TensorProto, SequenceProto or\n"
	"OptionalProto) as 'NAME = VALUE' in the value syntax of '#@ input' lines.\n"
	"\n"
	"  IN                 input file, or - for standard input\n"
	"  -o, --output       output file (default: standard output); written atomically\n"
	"  --infer            infer the type of every value (as onnxtxt infer does) and print\n"
	"                     them in the graphs' value_info lists; a model with type or\n"
	"                     shape errors is reported, not printed\n"
	"  --external-data FILE\n"
	"                     move the data of large tensors into FILE, a path relative to the\n"
	"                     output's directory (the current one for standard output) that\n"
	"                     stays inside it; the text then refers to FILE\n"
	"  --size-threshold N move tensors of at least N bytes of data (default 1024)\n"
	"  --no-annotations   leave out the '#@' lines that carry what the syntax cannot say\n"
	"                     (doc strings, raw_data, ...): plainer, but converting the text\n"
	"                     back no longer gives the identical model\n"
	"  --float-literals   write float16, bfloat16, float8 and float4 data as numbers\n"
	"                     instead of bit patterns\n"
	CLI_COMMON_HELP
	"\n"
	"Exit status: 0 printed, 1 the model is invalid, 2 usage error, 3 file error.\n";

/* Text for a terminal, with syntax colour: all of it in memory, to be highlighted. */
static OnnxStatus write_colored(const Onnx__ModelProto *m, unsigned flags, OnnxError *err)
{
	char *text;
	size_t len;
	OnnxStatus st = OnnxPrinter_Print(m, flags, &text, &len, err);
	if (st == ONNXTXT_OK && print_code(text, len) != 0) {
		st = err->code = ONNXTXT_ERR_IO;
		err->sys_errno = errno; /* cli_output_error says what went wrong */
	}
	free(text);
	return st;
}

/* The bytes of a TensorProto, SequenceProto or OptionalProto (a backend test's .pb file)
 * as "NAME = VALUE"; -1 when they are a model, or not a value either (the model's error
 * is the one to report then). */
static int value_to_text(const char *path, const char *data, size_t len, const char *file)
{
	OnnxValue *v;
	char *name, *line = NULL;
	size_t n;
	OnnxError err;
	Onnx__ModelProto *m = NULL;
	if (!looks_binary(data, len) || OnnxBinary_Read(data, len, &m, NULL) == ONNXTXT_OK) {
		OnnxProto_Free(m);
		return -1;
	}
	OnnxStatus st = OnnxValue_Read(data, len, 0, &v, &name, &err);
	if (st == ONNXTXT_ERR_BINARY) /* not a value's bytes either */
		return -1;
	if (st != ONNXTXT_OK) /* a value, but not one the evaluator can hold */
		return fail_at(display_name(path), "%s", err.message), exit_for(st);
	int rc = EXIT_OK;
	if (file && OnnxValue_PrintNamedFile(v, name, file, &err) != ONNXTXT_OK)
		rc = cli_output_error(&err, 0);
	else if (!file && OnnxValue_PrintNamed(v, name, &line, &n, &err) != ONNXTXT_OK)
		rc = cli_output_error(&err, 0);
	else if (!file && (fwrite(line, 1, n, stdout) != n || fflush(stdout) != 0))
		rc = cli_stdout_error(errno);
	free(line);
	free(name);
	OnnxValue_Free(v);
	return rc;
}

int write_text(const Onnx__ModelProto *m, unsigned flags, const char *out)
{
	OnnxError err;
	int to_stdout = !out || strcmp(out, "-") == 0;
	OnnxStatus st = !to_stdout	       ? OnnxPrinter_WriteFile(m, flags, out, &err)
			: cli_color_stdout() ? write_colored(m, flags, &err)
					     : OnnxPrinter_Write(m, flags, stdout, &err);
	if (st == ONNXTXT_OK && to_stdout && fflush(stdout) != 0)
		return cli_stdout_error(errno);
	return st == ONNXTXT_OK ? EXIT_OK : cli_output_error(&err, to_stdout);
}


/* Before the data file is written, the text's file must be writable where it is: an
 * error then leaves no data file behind. */
static int check_output(const char *out)
{
	struct stat st;
	const char *slash = strrchr(out, '/');
	char *dir = slash ? strndup(out, slash == out ? 1 : (size_t)(slash - out)) : NULL;
	int err = stat(out, &st) == 0 ? (S_ISDIR(st.st_mode) ? EISDIR : 0)
		  : dir && stat(dir, &st) != 0 ? errno : 0;
	free(dir);
	if (!err)
		return EXIT_OK;
	fail("cannot write %s: %s", out, strerror(err));
	return EXIT_IO;
}

/* Moves large tensors out of a model that will be written to out (NULL: stdout). */
static int externalize(Onnx__ModelProto *m, const char *out, const char *location, size_t threshold)
{
	OnnxError err;
	if (OnnxModel_ExternalizeData(m, out, location, threshold, &err) == ONNXTXT_OK)
		return EXIT_OK;
	fail("%s", err.message);
	return exit_for(err.code);
}

/* A byte count: decimal digits only (strtoull alone would take " -1" and "+5"). */
static int parse_size(const char *s, size_t *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno || (unsigned long long)(size_t)x != x)
		return 0;
	*v = (size_t)x;
	return 1;
}

static int cmd_to_text(int argc, char **argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
					     {"no-annotations", no_argument, NULL, OPT_NO_ANNOTATIONS},
					     {"float-literals", no_argument, NULL, OPT_FLOAT_LITERALS},
					     {"external-data", required_argument, NULL, OPT_EXTERNAL},
					     {"size-threshold", required_argument, NULL, OPT_THRESHOLD},
					     {"infer", no_argument, NULL, OPT_INFER},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	const char *out = NULL, *external = NULL;
	size_t threshold = 1024;
	unsigned flags = 0;
	int c, r, infer = 0;
	while ((c = getopt_long(argc, argv, ":o:hq", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == OPT_EXTERNAL)
			external = optarg;
		else if (c == OPT_THRESHOLD) {
			if (!parse_size(optarg, &threshold))
				return usage_error("to-text: --size-threshold needs a number of bytes, not '%s'", optarg);
		}
		else if (c == OPT_NO_ANNOTATIONS)
			flags |= ONNXTXT_PRINT_NO_ANNOTATIONS;
		else if (c == OPT_FLOAT_LITERALS)
			flags |= ONNXTXT_PRINT_FLOAT_LITERALS;
		else if (c == OPT_INFER)
			infer = 1;
		else if (c == 'h')
			return fputs(to_text_help, stdout), EXIT_OK;
		else if ((r = cli_common_option(c, optarg)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
		} else {
			return cli_bad_option("to-text", c, argv, opts);
		}
	}
	if (optind != argc - 1)
		return usage_error("to-text: expected exactly one input file");
	size_t len;
	char *text = slurp(argv[optind], &len);
	Onnx__ModelProto *m = NULL;
	const char *file = out && strcmp(out, "-") != 0 ? out : NULL;
	int rc = text ? value_to_text(argv[optind], text, len, file) : EXIT_IO;
	if (rc >= 0) {
		free(text);
		return rc;
	}
	rc = infer ? infer_model(argv[optind], text, len, 0, &m) : decode_model(argv[optind], text, len, &m);
	if (rc == EXIT_OK && external && file)
		rc = check_output(file);
	if (rc == EXIT_OK && external)
		rc = externalize(m, file, external, threshold);
	if (rc == EXIT_OK)
		rc = write_text(m, flags, out);
	OnnxProto_Free(m);
	free(text);
	return rc;
}

static const char fmt_help[] =
	"Usage: onnxtxt fmt [-i | --check] [--drop-comments] FILE...\n"
	"Rewrite models in the textual syntax in the canonical layout. Comments are kept, each\n"
	"beside the element it stood before or ended the line of, at the canonical indentation;\n"
	"a test case's '#@ input' and '#@ expect' lines keep their place and text. Annotations\n"
	"(the other '#@' lines) are written as the printer writes them.\n"
	"\n"
	"  FILE             a text model, or - for standard input\n"
	"  -i               rewrite each file in place (atomically) instead of printing it\n"
	"  --check          print nothing but the names of files that are not canonical;\n"
	"                   exit 1 if there are any\n"
	"  --drop-comments  leave the comments out (test case lines included)\n"
	CLI_COMMON_HELP
	"\n"
	"Exit status: 0 done (with --check: every file is canonical), 1 a model is invalid or,\n"
	"with --check, a file is not canonical, 2 usage error, 3 file error.\n";

enum { FMT_PRINT, FMT_IN_PLACE, FMT_CHECK };

/* Reports a text fmt could not format: a binary model, or its error. */
static int fmt_error(const char *name, const char *text, size_t len, const OnnxError *err)
{
	Onnx__ModelProto *b = NULL;
	/* text may hold control bytes (in strings), so only a failed parse says binary */
	if (err->code != ONNXTXT_ERR_NOMEM && looks_binary(text, len) && OnnxBinary_Read(text, len, &b, NULL) == ONNXTXT_OK)
		fail("%s is a binary model; fmt formats text (use to-text)", name);
	else if (err->line)
		report(err, name, text, len);
	else
		fail("%s: %s", name, err->message);
	OnnxProto_Free(b);
	return exit_for(err->code);
}

/* Formats one file; *changed tells whether the canonical text differs from it. */
static int fmt_one(const char *path, int mode, unsigned flags, int *changed)
{
	size_t len, plen;
	char *text = slurp(path, &len), *pretty = NULL;
	if (!text)
		return EXIT_IO;
	int rc = EXIT_OK;
	OnnxError err;
	const char *name = display_name(path);
	if (OnnxPrinter_Format(text, len, flags, &pretty, &plen, &err) != ONNXTXT_OK) {
		rc = fmt_error(name, text, len, &err);
	} else {
		*changed = plen != len || memcmp(pretty, text, len) != 0;
		if (mode == FMT_CHECK) {
			if (*changed)
				printf("%s\n", name);
		} else if (mode == FMT_IN_PLACE) {
			if (*changed && OnnxPrinter_FormatFile(text, len, flags, path, &err) != ONNXTXT_OK) {
				fail("%s", err.message);
				rc = exit_for(err.code);
			}
		} else if (print_code(pretty, plen) != 0) {
			rc = cli_stdout_error(errno);
		}
	}
	free(pretty);
	free(text);
	return rc;
}

static int cmd_fmt(int argc, char **argv)
{
	static const struct option opts[] = {{"check", no_argument, NULL, OPT_CHECK},
					     {"drop-comments", no_argument, NULL, OPT_DROP_COMMENTS},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	int in_place = 0, check = 0, drop_comments = 0, c, r;
	while ((c = getopt_long(argc, argv, ":ihq", opts, NULL)) != -1) {
		if (c == 'i')
			in_place = 1;
		else if (c == OPT_CHECK)
			check = 1;
		else if (c == OPT_DROP_COMMENTS)
			drop_comments = 1;
		else if (c == 'h')
			return fputs(fmt_help, stdout), EXIT_OK;
		else if ((r = cli_common_option(c, optarg)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
		} else {
			return cli_bad_option("fmt", c, argv, opts);
		}
	}
	if (optind == argc)
		return usage_error("fmt: expected at least one file");
	if (in_place && check)
		return usage_error("fmt: -i and --check exclude each other");
	for (int i = optind; in_place && i < argc; i++)
		if (strcmp(argv[i], "-") == 0)
			return usage_error("fmt: -i cannot rewrite standard input");
	int mode = in_place ? FMT_IN_PLACE : check ? FMT_CHECK : FMT_PRINT;
	int rc = EXIT_OK, any_changed = 0;
	for (int i = optind; i < argc; i++) {
		int changed = 0, one = fmt_one(argv[i], mode, drop_comments ? ONNXTXT_FORMAT_DROP_COMMENTS : 0, &changed);
		any_changed |= changed;
		if (one > rc)
			rc = one;
	}
	return rc == EXIT_OK && check && any_changed ? EXIT_INPUT : rc;
}

static const char check_help[] =
	"Usage: onnxtxt check [-q] [--max-errors N] [--no-infer | --strict] MODEL...\n"
	"Check models for structural errors, as the ONNX checker does: names defined once and\n"
	"before they are used (nodes in topological order), an opset import for every domain\n"
	"used, required fields, tensor data, what the model's IR version has, and every\n"
	"operator of the standard domains against its schema at the imported opset (those of\n"
	"onnx 1.23: ai.onnx 1-28, ai.onnx.ml 1-5, ai.onnx.preview, ai.onnx.preview.training):\n"
	"inputs, outputs, attributes, declared types. Then, unless --no-infer, infer the type\n"
	"and shape of every value (as onnxtxt infer does) and report type and shape errors and\n"
	"conflicts between inferred and declared types. Every problem is reported, at\n"
	"FILE:LINE:COL for text; binary models get the path of the element (graph.node[3]).\n"
	"Warnings (an opset newer than known, an opset newer than the IR version) leave a\n"
	"model valid.\n"
	"\n"
	"  MODEL              a model, text or binary (told apart by its content), or - for\n"
	"                     standard input\n"
	"  --max-errors N     report at most N problems per model (default 100; 0: all), then\n"
	"                     say how many more were found\n"
	"  --no-infer         the structural check alone, without type and shape inference\n"
	"  --strict           an operator without an inference rule is an error\n"
	CLI_COMMON_HELP
	"\n"
	"Prints 'MODEL: ok' for each valid model, unless --quiet.\n"
	"Exit status: 0 every model is valid, 1 a model is invalid, 2 usage error, 3 file error.\n";

/* The problems check was given, then how many more it found (the README promises every
 * problem: none is dropped without a word). */
void report_problems(const OnnxError *problems, size_t count, size_t total, const char *name,
			    const char *text, size_t len)
{
	for (size_t i = 0; i < count; i++)
		report(&problems[i], name, text, len);
	if (total > count)
		fprintf(stderr, "%s: note: %zu more problem%s not shown; --max-errors 0 shows all\n", name,
			total - count, total - count == 1 ? "" : "s");
}

/* Checks one model: text with positions, binary without; at most max problems (0: all). */
static int check_one(const char *path, const OnnxCheckOptions *o)
{
	size_t len;
	char *text = slurp(path, &len);
	if (!text)
		return EXIT_IO;
	const char *name = display_name(path);
	OnnxError err, *problems = NULL;
	size_t count = 0, total = 0;
	OnnxStatus st = ONNXTXT_ERR_SYNTAX;
	const char *shown = text;
	if (!looks_binary(text, len))
		st = OnnxModel_CheckTextOpts(text, len, o, &problems, &count, &total, &err);
	int rc = EXIT_OK;
	if (st != ONNXTXT_OK && st != ONNXTXT_ERR_INVALID && st != ONNXTXT_ERR_NOMEM) {
		/* not text after all, or text with an error decode_model reports */
		Onnx__ModelProto *m;
		rc = decode_model(path, text, len, &m);
		if (rc == EXIT_OK)
			st = OnnxModel_CheckOpts(m, o, &problems, &count, &total, &err);
		shown = NULL;
		OnnxProto_Free(m);
	}
	if (rc == EXIT_OK && (st == ONNXTXT_ERR_INVALID || st == ONNXTXT_OK)) /* problems, or warnings alone */
		report_problems(problems, count, total, name, shown, len);
	else if (rc == EXIT_OK && st != ONNXTXT_OK)
		fail("%s: %s", name, err.message);
	if (rc == EXIT_OK && st == ONNXTXT_OK && !cli_quiet)
		printf("%s: ok\n", name);
	free(problems);
	free(text);
	return rc != EXIT_OK ? rc : exit_for(st);
}

static int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"max-errors", required_argument, NULL, OPT_MAX_ERRORS},
					     {"no-infer", no_argument, NULL, OPT_NO_INFER},
					     {"strict", no_argument, NULL, OPT_STRICT},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	OnnxCheckOptions o = {.max_problems = ONNXTXT_MAX_PROBLEMS};
	int c, r;
	while ((c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (c == 'h')
			return fputs(check_help, stdout), EXIT_OK;
		if (c == OPT_NO_INFER || c == OPT_STRICT) {
			*(c == OPT_NO_INFER ? &o.no_infer : &o.strict) = 1;
			continue;
		}
		if (c == OPT_MAX_ERRORS) {
			if (!parse_size(optarg, &o.max_problems))
				return usage_error("check: --max-errors needs a number (0: all), not '%s'", optarg);
			continue;
		}
		if ((r = cli_common_option(c, optarg)) < 0)
			return EXIT_USAGE;
		if (r == 0)
			return cli_bad_option("check", c, argv, opts);
	}
	if (optind == argc)
		return usage_error("check: expected at least one model");
	if (o.no_infer && o.strict)
		return usage_error("check: --no-infer and --strict exclude each other");
	int rc = EXIT_OK;
	for (int i = optind; i < argc; i++) {
		int one = check_one(argv[i], &o);
		if (one > rc)
			rc = one;
	}
	return rc;
}

static const char dot_help[] =
	"Usage: onnxtxt dot [-o OUT] MODEL\n"
	"Draw a model's graph in the Graphviz DOT language: a box per node with its op type,\n"
	"name and attributes, ellipses for the graph's inputs and outputs, edges labelled with\n"
	"the values they carry (name, declared type or else the inferred one, and the input's\n"
	"place: '1: a'), and the\n"
	"graphs of If, Loop and Scan as clusters.\n"
	"Render it with Graphviz:\n"
	"    onnxtxt dot m.onnx | dot -Tsvg > m.svg\n"
	"\n"
	"  MODEL              a model, text or binary, or - for standard input\n"
	"  -o, --output OUT   write to OUT (atomically) instead of standard output\n"
	CLI_COMMON_HELP
	"\n"
	"Exit status: 0 drawn, 1 the model is invalid, 2 usage error, 3 file error.\n";

static int cmd_dot(int argc, char **argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	const char *out = NULL;
	int c, r;
	while ((c = getopt_long(argc, argv, ":o:hq", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'h')
			return fputs(dot_help, stdout), EXIT_OK;
		else if ((r = cli_common_option(c, optarg)) < 0)
			return EXIT_USAGE;
		else if (r == 0)
			return cli_bad_option("dot", c, argv, opts);
	}
	if (optind != argc - 1)
		return usage_error("dot: expected exactly one model");
	size_t len;
	char *text;
	Onnx__ModelProto *m;
	int rc = load_model(argv[optind], &m, &text, &len);
	OnnxError err;
	int to_stdout = !out || strcmp(out, "-") == 0;
	if (rc == EXIT_OK) /* inferred types label the edges none declares; an invalid model keeps its own */
		OnnxModel_Infer(m, NULL, NULL, NULL, NULL, NULL);
	if (rc == EXIT_OK &&
	    (to_stdout ? OnnxPrinter_Dot(m, stdout, &err) : OnnxPrinter_DotFile(m, out, &err)) != ONNXTXT_OK)
		rc = cli_output_error(&err, to_stdout);
	OnnxProto_Free(m);
	free(text);
	return rc;
}

static const char info_help[] =
	"Usage: onnxtxt info [--json] MODEL\n"
	"Summarize a model (text or binary): IR and opset versions, producer, the inputs and\n"
	"outputs with their types, node counts by operator and by domain, functions, sub-graphs,\n"
	"initializers (count, parameters, bytes by element type), external data files and the\n"
	"largest tensors. Tensor values are never read, so it is fast on large models.\n"
	"\n"
	"  MODEL              a model, text or binary, or - for standard input\n"
	"  --json             print the summary as one JSON object\n"
	CLI_COMMON_HELP
	"\n"
	"Exit status: 0 printed, 1 the model is invalid, 2 usage error, 3 file error.\n";

static int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, OPT_JSON},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	unsigned flags = 0;
	int c, r;
	while ((c = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (c == OPT_JSON)
			flags |= ONNXTXT_INFO_JSON;
		else if (c == 'h')
			return fputs(info_help, stdout), EXIT_OK;
		else if ((r = cli_common_option(c, optarg)) < 0)
			return EXIT_USAGE;
		else if (r == 0)
			return cli_bad_option("info", c, argv, opts);
	}
	if (optind != argc - 1)
		return usage_error("info: expected exactly one model");
	size_t len, n;
	char *text, *summary = NULL;
	Onnx__ModelProto *m;
	int rc = load_model(argv[optind], &m, &text, &len);
	OnnxError err;
	if (rc == EXIT_OK && OnnxModel_Info(m, flags, &summary, &n, &err) != ONNXTXT_OK) {
		fail("%s", err.message);
		rc = exit_for(err.code);
	}
	if (rc == EXIT_OK && (fwrite(summary, 1, n, stdout) != n || fflush(stdout) != 0)) {
		fail("cannot write to standard output: %s", strerror(errno));
		rc = EXIT_IO;
	}
	free(summary);
	OnnxProto_Free(m);
	free(text);
	return rc;
}

static const char main_help[] =
	"Usage: onnxtxt [--color[=WHEN]] [-q] COMMAND [OPTIONS] [ARGS]\n"
	"Read, write, check and draw ONNX models in the ONNX textual syntax.\n"
	"\n"
	"Commands:\n"
	"  to-binary IN [-o OUT]   convert a model to a binary .onnx file\n"
	"  to-text IN [-o OUT]     print a model in the textual syntax\n"
	"  fmt [-i|--check] FILE   rewrite text models in the canonical layout\n"
	"  check MODEL...          check models for structural, type and shape errors\n"
	"  infer IN [-o OUT]       write a model with the inferred type of every value\n"
	"  dot MODEL [-o OUT]      draw a model's graph for Graphviz (| dot -Tsvg > m.svg)\n"
	"  info MODEL [--json]     summarize a model: versions, interface, operators, sizes\n"
	"  run MODEL [--input ...] evaluate a model and print its outputs\n"
	"  test PATH...            run self-contained text cases and backend test folders\n"
	"\n"
	"Options (also accepted after COMMAND):\n"
	"  -q, --quiet        print nothing but errors\n"
	"  --color[=WHEN]     colour messages and printed text: auto (on a terminal, unless\n"
	"                     NO_COLOR is set), always or never; --color alone means always\n"
	"  --diagnostics-format=FORMAT\n"
	"                     errors on standard error as text (the default), json (JSON\n"
	"                     Lines: one object per diagnostic) or sarif (SARIF 2.1.0)\n"
	"  -h, --help         show this help (COMMAND --help for a command's own)\n"
	"  -V, --version      show the version\n"
	"\n"
	"Exit status:\n"
	"  0  success\n"
	"  1  an input model is invalid (syntax, values, malformed binary, a limit, a check\n"
	"     problem), fmt --check found a file that is not canonical, run could not\n"
	"     evaluate a model, or test had a failing case\n"
	"  2  usage error\n"
	"  3  a file could not be read or written (standard output too), or test found no case\n"
	"  77 test: every case was skipped (operators the evaluator does not support)\n"
	"\n"
	"Manual: man onnxtxt. Every command has --help (or: onnxtxt help COMMAND).\n";

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{"to-binary", cmd_to_binary},
	{"to-text", cmd_to_text},
	{"fmt", cmd_fmt},
	{"check", cmd_check},
	{"infer", cmd_infer},
	{"dot", cmd_dot},
	{"info", cmd_info},
	{"run", cmd_run},
	{"test", cmd_test},
};

/* The options before the command; returns the index of the command, or -1 after
 * printing help or version (*rc set), or after a usage error. */
static int global_options(int argc, char **argv, int *rc)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	int c, r;
	*rc = EXIT_OK;
	/* '+': stop at the command, whose options are its own */
	while ((c = getopt_long(argc, argv, "+:hVq", opts, NULL)) != -1) {
		if (c == 'h')
			return fputs(main_help, stdout), -1;
		if (c == 'V')
			return printf("onnxtxt %s\n", OnnxLibrary_Version()), -1;
		if ((r = cli_common_option(c, optarg)) == 0)
			r = (cli_bad_option(NULL, c, argv, opts), -1);
		if (r < 0)
			return *rc = EXIT_USAGE, -1;
	}
	if (optind == argc)
		return *rc = usage_error("missing command"), -1;
	return optind;
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* "unknown command", with the closest command's name when one is near. */
static int unknown_command(const char *name)
{
	const char *names[sizeof commands / sizeof commands[0]];
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		names[i] = commands[i].name;
	const char *best = cli_closest(name, strlen(name), names, sizeof names / sizeof names[0]);
	if (best)
		return usage_error("unknown command '%s' (did you mean '%s'?)", name, best);
	return usage_error("unknown command '%s'", name);
}

/* onnxtxt help [COMMAND]: the same as onnxtxt --help or onnxtxt COMMAND --help. */
static int help_command(int argc, char **argv)
{
	if (argc == 1)
		return fputs(main_help, stdout), EXIT_OK;
	const struct command *c = argc == 2 ? find_command(argv[1]) : NULL;
	if (argc > 2)
		return usage_error("help: expected at most one command");
	if (!c)
		return unknown_command(argv[1]);
	char *args[] = {argv[1], "--help", NULL};
	optind = 0;
	cli_command = c->name;
	return c->run(2, args);
}

static int dispatch(int argc, char **argv)
{
	int rc, at = global_options(argc, argv, &rc);
	if (at < 0)
		return rc;
	const char *cmd = argv[at];
	if (!strcmp(cmd, "help"))
		return help_command(argc - at, argv + at);
	const struct command *c = find_command(cmd);
	if (!c)
		return unknown_command(cmd);
	optind = 0; /* glibc: start afresh, argument order rules included */
	cli_command = c->name;
	rc = c->run(argc - at, argv + at);
	diag_finish();
	return rc;
}

int main(int argc, char **argv)
{
	cli_clean_up_on_signals();
	/* every path, --help and --version included, ends with standard output checked */
	return cli_close_stdout(dispatch(argc, argv));
}
