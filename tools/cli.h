/* What the subcommands of the onnxtxt command line share: exit statuses, the options every
 * command takes (--quiet, --color), and messages on standard error, coloured on terminals. */
#ifndef ONNXTXT_CLI_H
#define ONNXTXT_CLI_H

#include <stddef.h>

#include <onnxtxt/onnxtxt.h>

enum exit_code {
	EXIT_OK = 0,
	EXIT_INPUT = 1, /* the model is invalid: syntax, values, malformed binary, limits, check */
	EXIT_USAGE = 2, /* bad command line */
	EXIT_IO = 3     /* a file could not be read or written */
};

/* --quiet: print nothing but errors (and the output asked for). */
extern int cli_quiet;

/* Long options every command takes, for the end of its getopt_long table; add "q" to its
 * short options and let cli_common_option handle what getopt_long returns. */
enum { CLI_OPT_COLOR = 900 };
#define CLI_COMMON_OPTIONS {"quiet", no_argument, NULL, 'q'}, {"color", optional_argument, NULL, CLI_OPT_COLOR}
/* 1: c was a common option, handled; 0: it was not; -1: a usage error, reported. */
int cli_common_option(int c, const char *arg);
/* The lines every command's --help ends with. */
#define CLI_COMMON_HELP \
	"  -q, --quiet        print nothing but errors\n" \
	"  --color[=WHEN]     colour messages: auto (on a terminal, unless NO_COLOR is set),\n" \
	"                     always or never; --color alone means always\n" \
	"  -h, --help         show this help\n"

/* Handles a getopt_long result that is an error ('?' or ':'): reports it for cmd and
 * returns EXIT_USAGE. */
int cli_bad_option(const char *cmd, int c, char **argv);

/* "onnxtxt: error: MESSAGE" on standard error. */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: the message, a pointer to --help; returns EXIT_USAGE. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "FILE:LINE:COL: error: MESSAGE", the source line and a caret (OnnxError_Format). */
void cli_report(const OnnxError *err, const char *file, const char *text, size_t len);
/* A status as an exit status. */
int cli_exit_for(OnnxStatus st);

/* Reads a whole file, or standard input for "-"; NULL after reporting why. The buffer
 * ends with a NUL byte not counted in *len. */
char *cli_slurp(const char *path, size_t *len);
/* "<stdin>" for "-". */
const char *cli_display_name(const char *path);

#endif
