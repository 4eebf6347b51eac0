/* What the subcommands of the CLI share: exit codes, messages, reading inputs. */
#ifndef ONNXTXT_CLI_H
#define ONNXTXT_CLI_H

#include <stddef.h>

#include <onnxtxt/onnxtxt.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_INPUT = 1, /* the model is invalid: syntax, values, malformed binary, limits */
	EXIT_USAGE = 2, /* bad command line */
	EXIT_IO = 3,    /* a file could not be read or written */
	EXIT_SKIP = 77  /* test: every case was skipped */
};

extern const char *prog;

int usage_error(const char *fmt, const char *arg);
int exit_for(OnnxStatus st);
/* Prints err as "FILE:LINE:COL: error: ..." with the source line and a caret. */
void report(const OnnxError *err, const char *file, const char *text, size_t len);
/* Reads a whole file, or standard input for "-"; reports failures. */
char *slurp(const char *path, size_t *len);
const char *display_name(const char *path);
/* Reads and decodes a model in either format; *text holds the input either way (NULL
 * when it could not be read). Returns an exit code, having reported any error. */
int load_model(const char *path, Onnx__ModelProto **m, char **text, size_t *len);

int cmd_run(int argc, char **argv);
int cmd_test(int argc, char **argv);

#endif
