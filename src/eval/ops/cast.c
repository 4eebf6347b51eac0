/* Cast and CastLike: conversion between every two element types but complex, in blocks
 * through a double (from floating types) or int64 (from integers and bool) intermediate,
 * with direct loops for the float16/bfloat16 <-> float conversions other kernels use. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elementwise.h"
#include "print/fmtfloat.h"
#include "eval/kernel.h"
#include "literal.h"

#define BLOCK 256

/* ---- reading ---------------------------------------------------------------------- */

#define READ(T)                                                         \
	for (size_t i = 0; i < n; i++)                                  \
		buf[i] = ((const T *)t->data)[o + i];                  \
	break

/* Elements [o, o + n) of a tensor of a floating type, exactly as doubles. */
static void read_f(const ox_val *t, size_t o, size_t n, double *buf)
{
	const uint16_t *h = t->data;
	const uint8_t *b = t->data;
	switch (t->type) {
	case OX_FLOAT: READ(float);
	case OX_DOUBLE: READ(double);
	case OX_FLOAT16:
		for (size_t i = 0; i < n; i++)
			buf[i] = ox_f16_to_f32(h[o + i]);
		break;
	case OX_BFLOAT16:
		for (size_t i = 0; i < n; i++)
			buf[i] = ox_bf16_to_f32(h[o + i]);
		break;
	case OX_FLOAT4E2M1:
		for (size_t i = 0; i < n; i++)
			buf[i] = ox_f4_to_f32(b[o + i]);
		break;
	default: /* float8 */
		for (size_t i = 0; i < n; i++)
			buf[i] = ox_f8_to_f32(t->type, b[o + i]);
		break;
	}
}

/* Elements of an integer or bool tensor as int64 (uint64 as its bits). */
static void read_i(const ox_val *t, size_t o, size_t n, int64_t *buf)
{
	switch (t->type) {
	case OX_INT8: case OX_INT4: case OX_INT2: READ(int8_t);
	case OX_UINT8: case OX_UINT4: case OX_UINT2: case OX_BOOL: READ(uint8_t);
	case OX_INT16: READ(int16_t);
	case OX_UINT16: READ(uint16_t);
	case OX_INT32: READ(int32_t);
	case OX_UINT32: READ(uint32_t);
	case OX_INT64: READ(int64_t);
	default: READ(uint64_t);
	}
}

/* ---- writing ---------------------------------------------------------------------- */

/* ox_f64_to_i64 for uint64 targets, which keep values in [2^63, 2^64). */
static int64_t f2u(double x)
{
	if (x >= 9223372036854775808.0)
		return (int64_t)(x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x);
	return ox_f64_to_i64(x);
}

/* d rounded to float "to odd": truncated, with the last bit set when inexact. Rounding
 * that again to a format of fewer bits (float16, bfloat16, float8, float4) gives the
 * correctly rounded result, which double -> float -> narrow would not always. */
static float odd_f32(double d)
{
	float f = (float)d;
	if ((double)f == d || isnan(d))
		return f;
	if (fabs((double)f) > fabs(d))
		f = nextafterf(f, 0.0f);
	uint32_t u;
	memcpy(&u, &f, 4);
	u |= 1;
	memcpy(&f, &u, 4);
	return f;
}

/* float8e8m0 (a power of two 2^(E-127), E = 255 is NaN): Cast-24's round_mode picks the
 * exponent of a value between two powers, saturate what happens beyond the range. Zero
 * and negative values (unspecified) go to the smallest value or NaN, like underflow. */
static uint8_t to_e8m0(double d, const ox_cast_opts *o)
{
	if (isnan(d))
		return 0xff;
	if (!(d > 0))
		return o->saturate ? 0 : 0xff;
	if (isinf(d))
		return o->saturate ? 0xfe : 0xff;
	int e;
	double m = frexp(d, &e) * 2; /* d = m 2^(e-1), m in [1, 2) */
	e--;
	if ((o->round_mode == OX_ROUND_UP && m > 1) || (o->round_mode == OX_ROUND_NEAREST && m >= 1.5))
		e++;
	if (e + 127 > 254)
		return o->saturate ? 0xfe : 0xff;
	if (e + 127 < 0)
		return o->saturate ? 0 : 0xff;
	return (uint8_t)(e + 127);
}

/* float8 formats other than e8m0. A finite double beyond float's range is still finite:
 * clamp it so that Cast-19's table treats it as out of range, not as infinity. */
static uint8_t to_f8(int type, double d, const ox_cast_opts *o)
{
	if (isfinite(d) && fabs(d) > 3.4e38)
		d = d > 0 ? 3.4e38 : -3.4e38;
	return ox_f32_to_f8(type, odd_f32(d), o->saturate);
}

static void write_i(ox_val *t, size_t o, size_t n, const int64_t *buf, bool from_u64, const ox_cast_opts *opts);

#define WRITE(T, EXPR)                                           \
	for (size_t i = 0; i < n; i++)                           \
		((T *)t->data)[o + i] = (EXPR);                  \
	break

/* Doubles into elements [o, o + n) of any non-string tensor. */
static void write_f(ox_val *t, size_t o, size_t n, const double *buf, const ox_cast_opts *opts)
{
	int64_t ib[BLOCK];
	switch (t->type) {
	case OX_FLOAT: WRITE(float, (float)buf[i]);
	case OX_DOUBLE: WRITE(double, buf[i]);
	case OX_FLOAT16: WRITE(uint16_t, ox_f32_to_f16(odd_f32(buf[i])));
	case OX_BFLOAT16: WRITE(uint16_t, ox_f32_to_bf16(odd_f32(buf[i])));
	case OX_FLOAT4E2M1: WRITE(uint8_t, ox_f32_to_f4(odd_f32(buf[i])));
	case OX_FLOAT8E8M0: WRITE(uint8_t, to_e8m0(buf[i], opts));
	case OX_FLOAT8E4M3FN: case OX_FLOAT8E4M3FNUZ: case OX_FLOAT8E5M2: case OX_FLOAT8E5M2FNUZ:
		WRITE(uint8_t, to_f8(t->type, buf[i], opts));
	case OX_BOOL: WRITE(uint8_t, buf[i] != 0);
	default:
		for (size_t i = 0; i < n; i++)
			ib[i] = t->type == OX_UINT64 ? f2u(buf[i]) : ox_f64_to_i64(buf[i]);
		write_i(t, o, n, ib, false, opts);
		break;
	}
}

static int8_t wrap_signed(int64_t x, int bits)
{
	int sh = 64 - bits;
	return (int8_t)((int64_t)((uint64_t)x << sh) >> sh);
}

/* int64 values (uint64 bits when from_u64) into any non-string tensor; integers wrap. */
static void write_i(ox_val *t, size_t o, size_t n, const int64_t *buf, bool from_u64, const ox_cast_opts *opts)
{
	double fb[BLOCK];
	switch (t->type) {
	case OX_INT8: WRITE(int8_t, (int8_t)(uint8_t)buf[i]);
	case OX_UINT8: WRITE(uint8_t, (uint8_t)buf[i]);
	case OX_INT16: WRITE(int16_t, (int16_t)(uint16_t)buf[i]);
	case OX_UINT16: WRITE(uint16_t, (uint16_t)buf[i]);
	case OX_INT32: WRITE(int32_t, (int32_t)(uint32_t)buf[i]);
	case OX_UINT32: WRITE(uint32_t, (uint32_t)buf[i]);
	case OX_INT64: WRITE(int64_t, buf[i]);
	case OX_UINT64: WRITE(uint64_t, (uint64_t)buf[i]);
	case OX_INT4: WRITE(int8_t, wrap_signed(buf[i], 4));
	case OX_UINT4: WRITE(uint8_t, (uint8_t)(buf[i] & 0xf));
	case OX_INT2: WRITE(int8_t, wrap_signed(buf[i], 2));
	case OX_UINT2: WRITE(uint8_t, (uint8_t)(buf[i] & 0x3));
	case OX_BOOL: WRITE(uint8_t, buf[i] != 0);
	case OX_FLOAT: WRITE(float, from_u64 ? (float)(uint64_t)buf[i] : (float)buf[i]);
	case OX_DOUBLE: WRITE(double, from_u64 ? (double)(uint64_t)buf[i] : (double)buf[i]);
	default: /* narrow floats: through double, exact below 2^53 */
		for (size_t i = 0; i < n; i++)
			fb[i] = from_u64 ? (double)(uint64_t)buf[i] : (double)buf[i];
		write_f(t, o, n, fb, opts);
		break;
	}
}

/* ---- strings ---------------------------------------------------------------------- */

/* Number text of element i of a numeric tensor into buf (OX_FMT_FLOAT_BUF bytes). */
static void format_elem(const ox_val *t, size_t i, char *buf)
{
	if (!ox_elem_is_float(t->type)) {
		int64_t v;
		read_i(t, i, 1, &v);
		if (t->type == OX_UINT64)
			snprintf(buf, OX_FMT_FLOAT_BUF, "%" PRIu64, (uint64_t)v);
		else
			snprintf(buf, OX_FMT_FLOAT_BUF, "%" PRId64, v);
		return;
	}
	double d;
	read_f(t, i, 1, &d);
	if (isnan(d) || isinf(d))
		strcpy(buf, isnan(d) ? "NaN" : d > 0 ? "INF" : "-INF");
	else if (t->type == OX_DOUBLE)
		ox_fmt_double(d, buf);
	else
		ox_fmt_float((float)d, buf); /* exact for every narrower type */
}

static int to_strings(ox_val *dst, const ox_val *src, char *msg)
{
	char buf[OX_FMT_FLOAT_BUF];
	for (int64_t i = 0; i < src->count; i++) {
		format_elem(src, (size_t)i, buf);
		if (!ox_str_set(&((ox_str *)dst->data)[i], buf, strlen(buf))) {
			snprintf(msg, OX_MSG, "out of memory");
			return -1;
		}
	}
	return 0;
}


/* The number in s (blanks around it and a leading '+' allowed) for a target type: an
 * integer in *v for integer targets when the text is one (*is_int; uint64 bits for
 * uint64), else a double in *d, rounded directly to float for float targets. */
static bool parse_number(const ox_str *s, int target, double *d, int64_t *v, bool *is_int)
{
	const char *p = s->p ? s->p : "";
	size_t n = s->n;
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n'))
		n--;
	if (n > 1 && p[0] == '+' && p[1] != '-')
		p++, n--;
	*is_int = false;
	if (target == OX_BOOL && (ox_word_is(p, n, "true") || ox_word_is(p, n, "false"))) {
		*d = (p[0] | 0x20) == 't';
		return true;
	}
	if (ox_elem_is_int(target) || target == OX_BOOL) { /* exact beyond 2^53 */
		uint64_t u;
		if (target == OX_UINT64)
			*is_int = ox_parse_u64(p, n, &u) == OX_NUM_OK;
		else
			*is_int = ox_parse_i64(p, n, v) == OX_NUM_OK;
		if (target == OX_UINT64 && *is_int)
			*v = (int64_t)u;
		if (*is_int)
			return true;
	}
	float f;
	ox_num_status st = target == OX_FLOAT ? ox_parse_float(p, n, &f) : ox_parse_double(p, n, d);
	if (st == OX_NUM_SYNTAX)
		return false;
	if (st == OX_NUM_RANGE) /* beyond the largest finite value: an infinity */
		*d = p[0] == '-' ? -INFINITY : INFINITY;
	else if (target == OX_FLOAT)
		*d = f;
	return true;
}

static int from_strings(ox_val *dst, const ox_val *src, const ox_cast_opts *o, char *msg)
{
	const ox_str *s = src->data;
	for (int64_t i = 0; i < src->count; i++) {
		double d = 0;
		int64_t v = 0;
		bool is_int;
		if (!parse_number(&s[i], dst->type, &d, &v, &is_int)) {
			snprintf(msg, OX_MSG, "element %lld, \"%.40s\", is not a number", (long long)i,
				 s[i].p ? s[i].p : "");
			return -1;
		}
		if (is_int)
			write_i(dst, (size_t)i, 1, &v, dst->type == OX_UINT64, o);
		else
			write_f(dst, (size_t)i, 1, &d, o);
	}
	return 0;
}

/* ---- conversion ------------------------------------------------------------------- */

/* The conversions float16 and bfloat16 kernels make twice per call, without the detour. */
static bool direct(ox_val *dst, const ox_val *src)
{
	size_t n = (size_t)src->count;
	const uint16_t *h = src->data;
	const float *f = src->data;
	uint16_t *oh = dst->data;
	float *of = dst->data;
	if (src->type == OX_FLOAT16 && dst->type == OX_FLOAT)
		ox_f32_loops_best()->f16_to_f32(of, h, n);
	else if (src->type == OX_BFLOAT16 && dst->type == OX_FLOAT)
		for (size_t i = 0; i < n; i++)
			of[i] = ox_bf16_to_f32(h[i]);
	else if (src->type == OX_FLOAT && dst->type == OX_FLOAT16)
		ox_f32_loops_best()->f32_to_f16(oh, f, n);
	else if (src->type == OX_FLOAT && dst->type == OX_BFLOAT16)
		for (size_t i = 0; i < n; i++)
			oh[i] = ox_f32_to_bf16(f[i]);
	else
		return false;
	return true;
}

int ox_ew_convert(ox_val *dst, const ox_val *src, const ox_cast_opts *o, char *msg)
{
	if (src->type == dst->type) {
		if (ox_tensor_copy_data(dst, src))
			return 0;
		snprintf(msg, OX_MSG, "out of memory");
		return -1;
	}
	if (src->type == OX_STRING)
		return from_strings(dst, src, o, msg);
	if (dst->type == OX_STRING)
		return to_strings(dst, src, msg);
	if (direct(dst, src))
		return 0;
	double fb[BLOCK];
	int64_t ib[BLOCK];
	bool fl = ox_elem_is_float(src->type);
	for (int64_t off = 0; off < src->count; off += BLOCK) {
		size_t n = (size_t)(src->count - off < BLOCK ? src->count - off : BLOCK);
		if (fl) {
			read_f(src, (size_t)off, n, fb);
			write_f(dst, (size_t)off, n, fb, o);
		} else {
			read_i(src, (size_t)off, n, ib);
			write_i(dst, (size_t)off, n, ib, src->type == OX_UINT64, o);
		}
	}
	return 0;
}

/* ---- the operators ---------------------------------------------------------------- */

static bool castable(int type)
{
	return ox_elem_size(type) && type != OX_COMPLEX64 && type != OX_COMPLEX128;
}

static int cast_to(ox_k *k, int to)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	if (!castable(x->type))
		return ox_kfail(k, "cannot cast from %s", ox_elem_label(x->type));
	if (!castable(to))
		return ox_kfail(k, "cannot cast to %s (type %d)", ox_elem_label(to), to);
	/* saturate exists from version 19: before, the session refuses it */
	ox_cast_opts o = {ox_attr_int(k, "saturate", 1) != 0, OX_ROUND_UP};
	if (ox_attr_str_is(k, "round_mode", "up", "down"))
		o.round_mode = OX_ROUND_DOWN;
	else if (ox_attr_str_is(k, "round_mode", "up", "nearest"))
		o.round_mode = OX_ROUND_NEAREST;
	else if (!ox_attr_str_is(k, "round_mode", "up", "up"))
		return ox_kfail(k, "round_mode must be \"up\", \"down\" or \"nearest\"");
	if (x->type == to) {
		ox_out_set(k, 0, ox_val_ref(x));
		return 0;
	}
	ox_val *y = ox_out_tensor(k, 0, to, x->rank, x->dims);
	return y ? ox_ew_convert(y, x, &o, k->msg) : -1;
}

/* Version 1 names the type as TensorProto's enum spells it ("FLOAT"), 6 on by its number. */
int ox_op_Cast_1(ox_k *k)
{
	size_t n;
	const char *to = ox_attr_str(k, "to", NULL, &n);
	if (!to)
		return ox_kfail(k, "attribute 'to' is required");
	int type = ox_elem_lookup_enum(to, n);
	if (!type)
		return ox_kfail(k, "attribute 'to' is \"%.*s\", not an element type", (int)n, to);
	return cast_to(k, type);
}

int ox_op_Cast_6(ox_k *k)
{
	if (!ox_attr(k, "to"))
		return ox_kfail(k, "attribute 'to' is required");
	int64_t to = ox_attr_int(k, "to", 0);
	if (to <= 0 || to >= OX_NTYPES)
		return ox_kfail(k, "attribute 'to' is %lld, not an element type", (long long)to);
	return cast_to(k, (int)to);
}

int ox_op_CastLike(ox_k *k)
{
	ox_val *like = ox_in_tensor(k, 1, true);
	return like ? cast_to(k, like->type) : -1;
}

/* ---- BitCast (opset 26) ------------------------------------------------------------------ */

/* The same bits under another type of the same width (ox_elem_bits: as the spec counts them,
 * int4 is 4 even though it is stored in a byte). Sub-byte values are stored one per
 * byte, sign-extended for the signed types, so their low bits are re-extended; a bool
 * holds 0 or 1, so any nonzero byte reads as true. */
int ox_op_BitCast(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	const Onnx__AttributeProto *to = ox_attr(k, "to");
	int type = to ? (int)to->i : 0, bits = ox_elem_bits(x->type);
	if (!to || !bits || ox_elem_bits(type) != bits)
		return ox_kfail(k, "attribute 'to' must name a non-string type of %d bits, like the input's %s", bits,
				ox_elem_label(x->type));
	ox_val *y = ox_out_tensor(k, 0, type, x->rank, x->dims);
	if (!y)
		return -1;
	if (x->count)
		memcpy(y->data, x->data, (size_t)x->count * ox_elem_size(type));
	uint8_t *b = y->data;
	for (int64_t i = 0; bits < 8 && i < y->count; i++) {
		unsigned v = b[i] & ((1u << bits) - 1);
		bool sign = (type == OX_INT4 || type == OX_INT2) && (v >> (bits - 1));
		b[i] = (uint8_t)(sign ? v | (0xffu << bits) : v);
	}
	for (int64_t i = 0; type == OX_BOOL && i < y->count; i++)
		b[i] = b[i] != 0;
	return 0;
}
