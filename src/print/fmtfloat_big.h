/* Small big numbers for src/print/fmtfloat.c (exact integers in fixed notation) and for
 * src/print/fmtfloat_gen.c (its table of powers of ten, made at build time). */
#ifndef ONNXTXT_FMTFLOAT_BIG_H
#define ONNXTXT_FMTFLOAT_BIG_H

#include <stdint.h>

typedef struct u128 {
	uint64_t hi, lo;
} u128;

/* Little-endian 32-bit limbs; 40 of them hold 10^324 and 2^1099, the largest needed. */
#define BIG_LIMBS 40

typedef struct big {
	uint32_t w[BIG_LIMBS];
	int n; /* limbs in use, the top one non-zero (none for zero) */
} big;

static inline void big_mul_small(big *x, uint32_t m)
{
	uint64_t carry = 0;
	for (int i = 0; i < x->n; i++) {
		uint64_t t = (uint64_t)x->w[i] * m + carry;
		x->w[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry)
		x->w[x->n++] = (uint32_t)carry;
}

/* x = floor(x / d); returns the remainder. */
static inline uint32_t big_div_small(big *x, uint32_t d)
{
	uint64_t rem = 0;
	for (int i = x->n - 1; i >= 0; i--) {
		uint64_t t = rem << 32 | x->w[i];
		x->w[i] = (uint32_t)(t / d);
		rem = t % d;
	}
	while (x->n > 0 && x->w[x->n - 1] == 0)
		x->n--;
	return (uint32_t)rem;
}

static inline int big_bits(const big *x)
{
	int b = 32 * x->n;
	if (x->n == 0)
		return 0;
	for (uint32_t top = x->w[x->n - 1]; !(top & 0x80000000u); top <<= 1)
		b--;
	return b;
}

/* The 128 bits starting at the top bit: floor(x * 2^(128 - bits(x))). Bit by bit,
 * because it only runs while the table is built. */
static inline u128 big_top128(const big *x)
{
	int len = big_bits(x);
	u128 r = {0, 0};
	for (int i = 0; i < 128; i++) {
		int pos = len - 1 - i;
		uint64_t bit = pos >= 0 ? x->w[pos / 32] >> (pos % 32) & 1 : 0;
		r.hi = r.hi << 1 | r.lo >> 63;
		r.lo = r.lo << 1 | bit;
	}
	return r;
}

#endif
