/* What the subcommands of the CLI share: exit codes, the options every command takes
 * (--quiet, --color), messages on standard error (coloured on terminals), reading inputs. */
#ifndef ONNXTXT_CLI_H
#define ONNXTXT_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <onnxtxt/onnxtxt.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_INPUT = 1, /* the model is invalid: syntax, values, malformed binary, limits, check */
	EXIT_USAGE = 2, /* bad command line */
	EXIT_IO = 3,    /* a file could not be read or written */
	EXIT_SKIP = 77  /* test: every case was skipped */
};

extern const char *prog;

/* --quiet: nothing but errors and the output asked for. */
extern int cli_quiet;

/* Long options every command takes, for the end of its getopt_long table: add "q" to its
 * short options (and start them with ':' so that a missing argument reads as one) and
 * pass what getopt_long returns to cli_common_option. */
enum { CLI_OPT_COLOR = 900, CLI_OPT_DIAGNOSTICS };
#define CLI_COMMON_OPTIONS \
	{"quiet", no_argument, NULL, 'q'}, {"color", optional_argument, NULL, CLI_OPT_COLOR}, \
		{"diagnostics-format", required_argument, NULL, CLI_OPT_DIAGNOSTICS}
/* 1: c was a common option, now handled; 0: it was not; -1: a usage error, reported. */
int cli_common_option(int c, const char *arg);
/* The lines every command's --help ends its options with. */
#define CLI_COMMON_HELP \
	"  -q, --quiet        print nothing but errors (and the output asked for)\n" \
	"  --color[=WHEN]     colour messages and printed text: auto (on a terminal, unless\n" \
	"                     NO_COLOR is set), always or never; --color alone means always\n" \
	"  --diagnostics-format=FORMAT\n" \
	"                     errors on standard error as text (the default), json (JSON\n" \
	"                     Lines: one object per diagnostic) or sarif (SARIF 2.1.0)\n" \
	"  -h, --help         show this help\n"
/* Reports what getopt_long returned for a bad option ('?' or ':') of cmd (NULL: before
 * any command), suggesting the closest of opts for a misspelt one; EXIT_USAGE. */
struct option;
int cli_bad_option(const char *cmd, int c, char **argv, const struct option *opts);
/* The name among names[0..n) closest to word[0..len) (at most two edits), or NULL. */
const char *cli_closest(const char *word, size_t len, const char *const *names, size_t n);

/* Whether what goes to standard output is coloured: --color, or else a terminal there
 * with NO_COLOR unset or empty (and TERM not dumb). */
int cli_color_stdout(void);
/* Writes text in the textual syntax to standard output, with syntax colour when
 * cli_color_stdout(); 0, or -1 on a write error. */
int print_code(const char *text, size_t len);

/* "onnxtxt: error: MESSAGE" on standard error. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "WHERE: error: MESSAGE": where is a file name, or a file name and a line. */
void fail_at(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The command being run (NULL before one is chosen), for the pointer to its --help. */
extern const char *cli_command;
/* A usage error: "onnxtxt: error: MESSAGE" and a pointer to the command's --help (or
 * onnxtxt --help); returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int exit_for(OnnxStatus st);
/* Output errors, one way for every command: "onnxtxt: error: cannot write standard
 * output: REASON" (once, however many writes failed); returns EXIT_IO. */
int cli_stdout_error(int errnum);
/* A failed library call that wrote to standard output (to_stdout) or a file: the stdout
 * message for a write error there, else err's own; returns the exit code. */
int cli_output_error(const OnnxError *err, int to_stdout);
/* The end of every command: flushes and closes standard output and returns rc, or
 * EXIT_IO after reporting (unless already reported) that the output was lost. */
int cli_close_stdout(int rc);
/* Prints err as "FILE:LINE:COL: error: ..." with the source line and a caret. */
void report(const OnnxError *err, const char *file, const char *text, size_t len);
/* Reads a whole file, or standard input for "-"; reports failures. The buffer ends with a
 * NUL byte not counted in *len. */
char *slurp(const char *path, size_t *len);
const char *display_name(const char *path);
/* Length of the UTF-8 sequence at s (n > 0 bytes left), 0 when it is not a well-formed
 * one: machine outputs (JSON, SARIF, JUnit XML) write U+FFFD for such a byte. */
size_t cli_utf8_len(const unsigned char *s, size_t n);
/* Writes s to f, U+FFFD for each byte that is not part of well-formed UTF-8: what fail,
 * fail_at and usage_error print, and test's verdict lines. */
void cli_put_text(FILE *f, const char *s);
/* Whether d[0..n) looks like protobuf bytes rather than text. */
int looks_binary(const char *d, size_t n);
/* Reads and decodes a model in either format; *text holds the input either way (NULL
 * when it could not be read). Returns an exit code, having reported any error. */
int load_model(const char *path, Onnx__ModelProto **m, char **text, size_t *len);

/* --diagnostics-format: how report, fail and fail_at write errors (diagnostics.c). */
enum { DIAG_TEXT, DIAG_JSON, DIAG_SARIF };
extern int cli_diag_format;
/* The rule (kind of diagnostic) of a status, and the CLI's own kinds. */
enum { RULE_TEST_FAILED = 11, RULE_TEST_SKIPPED = 12 };
int diag_rule(OnnxStatus st);
/* Records a diagnostic from an error (positions, path, hint and fix-it), or from a plain
 * message with level "error" or "note"; JSON Lines go out at once, SARIF at diag_finish. */
void diag_report(const OnnxError *err, const char *file, const char *text, size_t len);
void diag_message(int rule, const char *level, const char *file, unsigned line, unsigned column, const char *msg);
/* Writes the SARIF document (when that is the format) and forgets what was recorded. */
void diag_finish(void);

/* test --junit (junit.c): one case's outcome; verdict 0 pass, 1 fail, 2 skip. */
typedef struct junit_case {
	const char *path, *message;
	int verdict;
	double seconds;
} junit_case;
/* Writes the JUnit XML report to path (atomically): suite s holds cases[ends[s-1] ..
 * ends[s]). Returns an exit code, having reported any error. */
int junit_write(const char *path, char *const *suites, const size_t *ends, size_t nsuites, const junit_case *cases);

/* SIGINT, SIGTERM and SIGHUP remove the temporary file of a write in progress (the
 * library's, through OnnxLibrary_RemoveTempFiles) before the program dies of them. */
void cli_clean_up_on_signals(void);

int cmd_run(int argc, char **argv);
int cmd_infer(int argc, char **argv);
/* onnxtxt.c: what the commands share beyond this file. */
int decode_model(const char *path, const char *text, size_t len, Onnx__ModelProto **m);
int write_binary(const Onnx__ModelProto *m, const char *out);
int write_text(const Onnx__ModelProto *m, unsigned flags, const char *out);
void report_problems(const OnnxError *problems, size_t count, size_t total, const char *name, const char *text,
		     size_t len);
/* cmd_infer.c: decodes the model read from path (text[0..len)) and infers its types into it
 * (strict: an operator without a rule is an error), reporting problems as check does; an
 * exit code, *m NULL unless it succeeded. */
int infer_model(const char *path, const char *text, size_t len, int strict, Onnx__ModelProto **m);
int cmd_test(int argc, char **argv);

#endif
