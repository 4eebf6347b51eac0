/* Shared by the libFuzzer harnesses: the text entry points by kind, packing, and checks
 * that report a broken property on stderr and abort, which libFuzzer records as a crash. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <onnxtxt/onnxtxt.h>

#define FZ_CHECK(cond, ...)                                                                                   \
	do {                                                                                                  \
		if (!(cond))                                                                                  \
			fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                      \
	} while (0)

_Noreturn void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

typedef OnnxStatus fz_parse_fn(const char *text, size_t len, void **out, OnnxError *err);

typedef struct fz_kind {
	const char *name;
	fz_parse_fn *parse;
} fz_kind;

/* model, graph, function, node, nodes, type, tensor, attribute, value_info */
extern const fz_kind fz_kinds[];
extern const size_t fz_nkinds;

/* A failed parse is clean: a parse status, err->code equal to it, a message, and a range
 * inside the text that OnnxError_Format can render. */
void fz_check_parse_error(OnnxStatus st, const OnnxError *err, const char *text, size_t len, const char *what);
/* Any message packed into a malloc'd buffer. */
uint8_t *fz_pack(const void *msg, size_t *len);
/* Whether two messages pack to the same bytes. */
int fz_same_bytes(const void *a, const void *b);
/* The printer's promises for a message the kind's entry point reads: the canonical text
 * parses back to the same bytes and prints the same again; the plainer variants
 * (no annotations, float literals) still parse. */
void fz_check_print(const void *msg, const fz_kind *kind);
/* The other readers of a model: OnnxModel_Check succeeds or lists problems, each with a
 * message; OnnxPrinter_Dot draws it. */
void fz_check_model(const Onnx__ModelProto *m);

#endif
