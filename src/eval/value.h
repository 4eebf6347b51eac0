/* Runtime values of the evaluator: tensors of every element type (stored as src/types.h
 * says), sequences, optionals and maps.
 * Values are reference-counted and immutable once a kernel has produced them, so Identity,
 * Reshape and friends share data instead of copying it. */
#ifndef OX_EVAL_VALUE_H
#define OX_EVAL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

#define OX_MAX_RANK 16           /* dims of one tensor */
#define OX_MAX_ELEMENTS (INT64_C(1) << 36) /* elements of one tensor */
#ifndef OX_MAX_BYTES /* the fuzz build lowers it (meson.build) */
#define OX_MAX_BYTES ((size_t)1 << 36)     /* bytes of one tensor */
#endif
#define OX_ALIGN 64

enum ox_kind { OX_TENSOR = 1, OX_SEQUENCE, OX_OPTIONAL, OX_MAP };

typedef struct ox_val {
	int kind;
	unsigned refs;
	/* Tensor: the element type. Sequence and optional: the element type of the tensors
	 * they hold (0 when unknown), with elem_kind saying what they hold. */
	int type;
	int elem_kind;
	/* Tensor. */
	int rank;
	int64_t dims[OX_MAX_RANK];
	int64_t count;
	/* count elements, OX_ALIGN-aligned; never NULL, even when count is 0, so that kernels
	 * may offset it by 0 (NULL + 0 is undefined; clang's UBSan in the fuzz build says so) */
	void *data;
	struct ox_val *owner; /* the value whose data this one shares, or NULL */
	struct ox_budget *budget; /* the run's budget its data is charged to, or NULL */
	/* Sequence: items[0..nitems). Optional: nitems is 0 (none) or 1. Map: nitems is 2,
	 * items[0] the keys and items[1] the values, two 1-D tensors of the same length (keys
	 * unique; type is the key type). The ai.onnx.ml operators only use maps of scalars. */
	struct ox_val **items;
	size_t nitems;
	/* Set at creation, never reused: what folded results remember their inputs by. */
	uint64_t id;
	/* A constant the session keeps across runs (an initializer or a folded result). */
	bool konst;
	/* data belongs to someone else (an initializer's raw bytes in the model, which
	 * outlives the session): never freed with the value */
	bool borrowed;
	/* A kernel's session-time form of a constant (packed weights): one block of
	 * ox_alloc_big, freed with the value. */
	void *derived;
} ox_val;

/* Product of dims, or -1 when it overflows or exceeds OX_MAX_ELEMENTS, or a dim is
 * negative. */
int64_t ox_shape_count(int rank, const int64_t *dims);

/* size bytes (rounded up to OX_ALIGN), OX_ALIGN-aligned, for ox_free_big: large blocks
 * are aligned and advised for huge pages, and while a session is entered (ox_blocks_enter)
 * blocks come from its slab of huge pages (slab.c). For tensor data and a kernel's
 * derived forms. */
void *ox_alloc_big(size_t size);
void ox_free_big(void *p);

/* A session's memory plan: while it is entered on a thread, the memory of tensors freed
 * there is kept in it and handed out again to new ones (see value.c). Enter returns the
 * one entered before, to be restored. Start marks the start of a run: its tensors are
 * placed where those of the run before were, as long as it asks for the same sizes.
 * Without AddressSanitizer only. */
typedef struct ox_blocks ox_blocks;
ox_blocks *ox_blocks_new(void);
void ox_blocks_free(ox_blocks *k);
ox_blocks *ox_blocks_enter(ox_blocks *k);
void ox_blocks_start(ox_blocks *k);
/* The memory plan entered on the calling thread, or NULL. A task on a worker may enter its
 * session's to take blocks from the session's slab with ox_alloc_big (which is safe on
 * several threads at once; keeping and taking blocks is not). */
ox_blocks *ox_blocks_current(void);
/* Whether blocks are kept at all (not under AddressSanitizer), and how many tensor blocks
 * of 4 KiB or more (and derived forms) were taken from the system so far: for tests.
 * Smaller blocks are left to malloc's free lists. */
bool ox_blocks_active(void);
uint64_t ox_system_allocs(void);

/* A tensor over data it does not own (see ox_val.borrowed), or NULL when out of memory. */
ox_val *ox_tensor_borrow(int type, int rank, const int64_t *dims, int64_t count, void *data);

/* Replaces *slot, when its data or an item's is borrowed, by a value that owns copies of
 * them: for outputs handed to the caller, which may outlive the model. False when out of
 * memory. */
bool ox_val_own(ox_val **slot);

/* A new tensor with uninitialized data (strings are empty); NULL when out of memory,
 * beyond the limits above or the current run's budget (reason in *why when given). */
ox_val *ox_tensor_new(int type, int rank, const int64_t *dims, const char **why);
/* A new tensor with the data of base and another shape of the same element count. */
ox_val *ox_tensor_view(ox_val *base, int rank, const int64_t *dims);
/* A tensor of type base's (not string) and the given shape over base's data from byte
 * offset on, sharing it like ox_tensor_view; NULL when it would pass base's end. */
ox_val *ox_tensor_view_at(ox_val *base, size_t offset, int rank, const int64_t *dims);
ox_val *ox_tensor_scalar(int type, const void *elem);
ox_val *ox_sequence_new(int elem_type, size_t n); /* items NULL, to be filled */
ox_val *ox_optional_new(int elem_kind, int elem_type, ox_val *elem); /* takes elem */
/* A map of keys to values (takes both; NULL when out of memory, and then frees both). */
ox_val *ox_map_new(ox_val *keys, ox_val *values);
/* Map keys: integer types and string. */
bool ox_map_key_ok(int type);

static inline ox_val *ox_val_ref(ox_val *v)
{
	if (v)
		v->refs++;
	return v;
}
void ox_val_unref(ox_val *v);
/* "float[2,3]", "a sequence", "nothing" (v NULL), ...: what a value is, for messages, in buf. */
const char *ox_val_describe(const ox_val *v, char *buf, size_t size);

/* Deep copy of a tensor's elements from src to dst (same type and count). */
bool ox_tensor_copy_data(ox_val *dst, const ox_val *src);
bool ox_str_set(ox_str *s, const char *p, size_t n);

/* Element conversions shared by Cast, the .pb reader and kernels that compute narrow
 * float types in float32. Rounding is to nearest even; saturate follows Cast-19. */
float ox_f16_to_f32(uint16_t h);
uint16_t ox_f32_to_f16(float f);
float ox_bf16_to_f32(uint16_t h);
uint16_t ox_f32_to_bf16(float f);
float ox_f8_to_f32(int type, uint8_t b);
uint8_t ox_f32_to_f8(int type, float f, bool saturate);
float ox_f4_to_f32(uint8_t b);
uint8_t ox_f32_to_f4(float f);

/* Element i of a numeric or bool tensor as a double (the real part for complex), and
 * the reverse, rounding and wrapping as a C conversion would. Slow; for rare types and
 * type-generic kernels, not hot loops. */
double ox_get_f64(const ox_val *t, int64_t i);
void ox_set_f64(ox_val *t, int64_t i, double x);
/* Truncation toward zero, NaN to 0, saturating at the int64 range (C leaves out-of-range
 * conversions undefined). */
int64_t ox_f64_to_i64(double x);
/* The same through int64, exact for 64-bit integers. */
int64_t ox_get_i64(const ox_val *t, int64_t i);
void ox_set_i64(ox_val *t, int64_t i, int64_t x);

#endif
