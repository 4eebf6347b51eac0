/* Helpers shared by the Check suites. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include <onnxtxt/onnxtxt.h>

/* ck_assert records every passing check with a write(2); loops over thousands of values
 * use this instead, which only reports failures. */
#define REQUIRE(cond, ...)                         \
	do {                                       \
		if (!(cond))                       \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

/* Directory of the source tree (ONNXTXT_SOURCE_ROOT) and of ../shared (ONNXTXT_SHARED). */
const char *tu_source_root(void);
const char *tu_shared(void);
/* path relative to a root, in a static buffer */
const char *tu_path(const char *root, const char *rel);

char *tu_read(const char *path, size_t *len);
/* Sorted names of the regular files in dir ending with suffix; NULL-terminated, malloc'd. */
char **tu_list(const char *dir, const char *suffix);
/* Whether the suite runs under a slow checker such as valgrind (ONNXTXT_SLOW is set, as the
 * valgrind test setup does): loops then run fewer rounds and time limits relax. */
int tu_slow(void);
/* n rounds of a loop, or a twentieth of them (at least one) when tu_slow(). */
int tu_rounds(int n);

/* Every model.onnx below dir, recursively, sorted; when tu_slow(), only those of at most
 * 256 KiB (valgrind would take minutes on each of the large ones). */
char **tu_find(const char *dir, const char *name);
void tu_free_list(char **list);

/* Parses text with the entry point named kind ("model", "graph", "function", "node",
 * "nodes", "type", "tensor", "attribute", "value_info"). */
OnnxStatus tu_parse(const char *kind, const char *text, size_t len, void **out, OnnxError *err);

/* Parses a model from a C string; fails the test with the message on error. */
Onnx__ModelProto *tu_model(const char *text);
/* The error of parsing text as kind, as "LINE:COL: MESSAGE" (static buffer); "" on success. */
const char *tu_error(const char *kind, const char *text);

/* A fresh directory TMPDIR/onnxtxt-check-NAME-XXXXXX (mode 0755) in dir, which must hold
 * 4096 bytes; exits the process when it cannot be made. */
void tu_scratch_dir(char *dir, const char *name);
/* Removes a file or a directory tree, never following a link, whatever the modes. */
void tu_remove_tree(const char *path);

/* Packs any message into a malloc'd buffer. */
unsigned char *tu_pack(const void *msg, size_t *len);
/* The offset of the first byte of s[0..n) that is not part of well-formed UTF-8, or n
 * when all of it is: decoded by code point, independently of the library's check. */
size_t tu_utf8_bad(const char *s, size_t n);

/* Runs a suite with TAP output; returns the process exit status. */
int tu_run(Suite *s);

#endif
