/* Positions, error structs and "did you mean". */
#ifndef OX_DIAG_H
#define OX_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "onnxtxt/onnxtxt.h"

/* 1-based line and column (in UTF-8 characters) of byte offset off. */
void ox_locate(const char *src, size_t len, size_t off, unsigned *line, unsigned *col);
/* The start of a public call: err, or local when the caller passed none, cleared. */
OnnxError *ox_error_reset(OnnxError *err, OnnxError *local);
/* A NULL argument: "invalid argument: NULL pointer", ONNXTXT_ERR_ARG returned. */
OnnxStatus ox_error_null(OnnxError *err);
/* Fills an error without a position (nothing when err is NULL). */
void ox_error_set(OnnxError *err, OnnxStatus code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An ONNXTXT_ERR_IO error "WHAT: REASON" with sys_errno errnum (EIO when 0). */
void ox_error_io(OnnxError *err, int errnum, const char *what);

/* A macro's value as a string literal: OX_STR(ONNXTXT_MAX_DEPTH) is "64". */
#define OX_STR(x) OX_STR_(x)
#define OX_STR_(x) #x

/* Edit distance of two short names for "did you mean": insertions, deletions,
 * substitutions and swaps of neighbours cost one (optimal string alignment), letters
 * compared ignoring ASCII case when fold_case; SIZE_MAX for names of 63 bytes or more. */
size_t ox_edit_distance(const char *a, size_t na, const char *b, size_t nb, bool fold_case);

#endif
