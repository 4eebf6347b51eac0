/* onnxtxt infer: a model with the inferred type of every value in its value_info lists, and
 * the inference step that to-text --infer shares. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { OPT_STRICT = 1000 };

static const char infer_help[] =
	"Usage: onnxtxt infer [-o OUT] [--strict] IN\n"
	"Infer the element type and shape of every value of a model (over the operator schemas\n"
	"of the standard domains, model-local functions and sub-graphs, with the values of small\n"
	"integer tensors known statically: Shape -> Gather -> Concat -> Reshape gives concrete\n"
	"shapes) and write the model with a value_info entry for every value it could type.\n"
	"Declared types are kept where inference knows less and refined where it knows more.\n"
	"The model is checked first, as by onnxtxt check: any problem is reported and nothing\n"
	"is written.\n"
	"\n"
	"  IN                 a model, text or binary, or - for standard input\n"
	"  -o, --output OUT   write to OUT (atomically): binary when its name ends in .onnx, text\n"
	"                     otherwise; default: text on standard output\n"
	"  --strict           an operator without an inference rule is an error\n"
	CLI_COMMON_HELP
	"\n"
	"Exit status: 0 written, 1 the model is invalid, 2 usage error, 3 file error.\n";

int infer_model(const char *path, const char *text, size_t len, int strict, Onnx__ModelProto **m)
{
	OnnxCheckOptions o = {.max_problems = ONNXTXT_MAX_PROBLEMS, .strict = strict};
	OnnxError err, *problems = NULL;
	size_t count = 0, total = 0;
	const char *name = display_name(path), *shown = text;
	OnnxStatus st = ONNXTXT_ERR_SYNTAX;
	int rc = EXIT_OK;
	*m = NULL;
	if (!looks_binary(text, len))
		st = OnnxModel_InferText(text, len, &o, m, &problems, &count, &total, &err);
	if (st != ONNXTXT_OK && st != ONNXTXT_ERR_INVALID && st != ONNXTXT_ERR_NOMEM) {
		/* not text after all, or text with an error decode_model reports */
		rc = decode_model(path, text, len, m);
		if (rc == EXIT_OK)
			st = OnnxModel_Infer(*m, &o, &problems, &count, &total, &err);
		shown = NULL;
	}
	if (rc == EXIT_OK && (st == ONNXTXT_ERR_INVALID || st == ONNXTXT_OK))
		report_problems(problems, count, total, name, shown, len);
	else if (rc == EXIT_OK)
		fail("%s: %s", name, err.message);
	free(problems);
	if (rc == EXIT_OK && st != ONNXTXT_OK) {
		rc = exit_for(st);
		OnnxProto_Free(*m);
		*m = NULL;
	}
	return rc;
}

/* Whether a file name asks for the binary format. */
static int binary_name(const char *out)
{
	size_t n = out ? strlen(out) : 0;
	return n >= 5 && !strcmp(out + n - 5, ".onnx");
}

int cmd_infer(int argc, char **argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
					     {"strict", no_argument, NULL, OPT_STRICT},
					     {"help", no_argument, NULL, 'h'},
					     CLI_COMMON_OPTIONS,
					     {NULL, 0, NULL, 0}};
	const char *out = NULL;
	int c, r, strict = 0;
	while ((c = getopt_long(argc, argv, ":o:hq", opts, NULL)) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == OPT_STRICT)
			strict = 1;
		else if (c == 'h')
			return fputs(infer_help, stdout), EXIT_OK;
		else if ((r = cli_common_option(c, optarg)) < 0)
			return EXIT_USAGE;
		else if (r == 0)
			return cli_bad_option("infer", c, argv, opts);
	}
	if (optind != argc - 1)
		return usage_error("infer: expected exactly one model");
	size_t len;
	char *text = slurp(argv[optind], &len);
	Onnx__ModelProto *m = NULL;
	int rc = text ? infer_model(argv[optind], text, len, strict, &m) : EXIT_IO;
	if (rc == EXIT_OK)
		rc = binary_name(out) ? write_binary(m, out) : write_text(m, 0, out);
	OnnxProto_Free(m);
	free(text);
	return rc;
}
