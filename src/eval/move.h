/* Type-agnostic element moves shared by the shape, index and sequence kernels: strided
 * copies and transposes over elements of any size. String tensors are moved as ox_str
 * structs and then made to own their bytes with ox_strings_own. */
#ifndef OX_EVAL_MOVE_H
#define OX_EVAL_MOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "value.h"

/* Ranks of the views the moves take: Tile views its output as twice the input's rank. */
#define OX_MOVE_MAX_RANK (2 * OX_MAX_RANK)

/* Copies a view of src of shape (rank, dims), whose element strides are sstr (any sign;
 * 0 repeats an element), to dst in row-major order. */
void ox_copy_strided(void *dst, const void *src, size_t esize, int rank, const int64_t *dims,
		     const int64_t *sstr);

/* dst = src transposed: output axis i is input axis perm[i] (a permutation of 0..rank-1).
 * ox_transpose collapses the problem and takes the fast paths; the naive version walks
 * every element and is the reference for tests. */
void ox_transpose(void *dst, const void *src, size_t esize, int rank, const int64_t *dims, const int *perm);
/* The same with the SIMD level given (OX_CPU_*, at most ox_cpu_level()), for tests. */
void ox_transpose_at(void *dst, const void *src, size_t esize, int rank, const int64_t *dims, const int *perm,
		     int level);
void ox_transpose_naive(void *dst, const void *src, size_t esize, int rank, const int64_t *dims,
			const int *perm);

/* Copies n elements of size esize (contiguous to contiguous). */
void ox_copy_elems(void *dst, const void *src, size_t esize, int64_t n);

/* After ox_str structs were copied bytewise from another tensor, gives each of s[0..n) its
 * own copy of its bytes. On failure (out of memory) the strings not yet copied are
 * emptied, so the tensor can still be freed, and false is returned. */
bool ox_strings_own(ox_str *s, int64_t n);

/* ox_strings_own over a whole tensor when it holds strings; true otherwise. */
bool ox_tensor_own(ox_val *t);

/* Row-major element strides of a shape. */
void ox_strides(int rank, const int64_t *dims, int64_t *strides);

/* "[2, 3]" for messages, in buf (cap bytes, truncated with "..." when short). */
const char *ox_fmt_dims(char *buf, size_t cap, int rank, const int64_t *dims);

/* ---- helpers of the tensor-manipulation kernels ------------------------------------ */

/* A list of ints that is an attribute in some versions of an operator and an input (number
 * `input`) in later ones, as axes of Squeeze or split of Split are: from_input says which
 * form the kernel's version has. Returns the count, -2 when it is absent, or -1 after
 * failing. */
int64_t ox_ints_arg(ox_k *k, bool from_input, int input, const char *name, int64_t *buf, int64_t cap);

/* Output 0 as a view of x with another shape (same count); -1 after failing. */
int ox_out_view(ox_k *k, ox_val *x, int rank, const int64_t *dims);

/* A new tensor: the part of x from offset along axis, size long (Split, SplitToSequence);
 * NULL with the reason in *why. */
ox_val *ox_split_part(ox_val *x, int axis, int64_t offset, int64_t size, const char **why);

/* Concatenates the n tensors xs along axis into output 0 (Concat, ConcatFromSequence);
 * with new_axis they are stacked along a new axis instead. */
int ox_concat(ox_k *k, ox_val *const *xs, int64_t n, int64_t axis, bool new_axis);

/* Finishes an output whose elements were moved bytewise: string tensors get their own
 * copies of their bytes. 0, or -1 after failing. */
int ox_out_own(ox_k *k, ox_val *y);

#endif
