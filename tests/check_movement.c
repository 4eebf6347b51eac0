/* The tensor-manipulation, sequence and string kernels: the byte-move engine against
 * naive references over random shapes (zero dims included), kernel errors and opset
 * differences through sessions, and the RE2 to POSIX translation of RegexFullMatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/simd/cpu.h"
#include "eval/move.h"
#include "testutil.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* Mostly small dims, some zero, some long enough to span several tiles. */
static int64_t random_dim(uint64_t *s)
{
	uint64_t r = rng(s) % 16;
	return r == 0 ? 0 : r < 11 ? (int64_t)(1 + rng(s) % 4) : (int64_t)(5 + rng(s) % 60);
}

static const size_t esizes[] = {1, 2, 4, 8, 16, 3, 12};

/* ---- the byte-move engine ------------------------------------------------------------- */

START_TEST(transpose_matches_naive)
{
	uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)_i * 7919;
	for (int trial = 0; trial < 40; trial++) {
		int rank = (int)(rng(&s) % 7), perm[OX_MAX_RANK];
		int64_t dims[OX_MAX_RANK], n = 1;
		for (int d = 0; d < rank; d++) {
			dims[d] = random_dim(&s);
			perm[d] = d;
		}
		/* keep the element count modest */
		for (int d = 0; d < rank; d++) {
			while (n * (dims[d] ? dims[d] : 1) > 100000)
				dims[d] /= 2;
			n *= dims[d] ? dims[d] : 1;
		}
		n = ox_shape_count(rank, dims);
		for (int d = rank - 1; d > 0; d--) {
			int j = (int)(rng(&s) % (uint64_t)(d + 1)), t = perm[d];
			perm[d] = perm[j];
			perm[j] = t;
		}
		size_t es = esizes[rng(&s) % (sizeof esizes / sizeof esizes[0])], bytes = (size_t)n * es + 1;
		unsigned char *src = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes);
		for (size_t i = 0; i < bytes; i++)
			src[i] = (unsigned char)rng(&s), a[i] = b[i] = 0xa5;
		ox_transpose_naive(b, src, es, rank, dims, perm);
		for (int level = OX_CPU_SCALAR; level <= ox_cpu_level(); level++) {
			memset(a, 0xa5, bytes);
			ox_transpose_at(a, src, es, rank, dims, perm, level);
			char sh[128];
			REQUIRE(memcmp(a, b, bytes) == 0, "transpose of %s (element size %zu, %s) differs from the naive one",
				ox_fmt_dims(sh, sizeof sh, rank, dims), es, ox_cpu_level_name(level));
		}
		free(src), free(a), free(b);
	}
}
END_TEST

/* The fast paths by name, at every SIMD level this CPU has: plain 2-D transposes with
 * full 8x8 blocks and ragged edges, permutations that keep the innermost axis, and
 * batched 2-D transposes. */
START_TEST(transpose_fast_paths)
{
	static const struct {
		int rank;
		int64_t dims[4];
		int perm[4];
	} cases[] = {
		{2, {67, 131}, {1, 0}},      {2, {1, 300}, {1, 0}},        {3, {5, 7, 9}, {1, 0, 2}},
		{4, {2, 3, 4, 5}, {2, 0, 1, 3}}, {3, {4, 33, 65}, {0, 2, 1}}, {4, {3, 1, 40, 2}, {3, 1, 2, 0}},
		{3, {0, 5, 6}, {2, 1, 0}},   {2, {1000, 3}, {1, 0}},         {2, {64, 128}, {1, 0}},
		{2, {17, 9}, {1, 0}},        {3, {3, 24, 40}, {2, 1, 0}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (size_t e = 0; e < sizeof esizes / sizeof esizes[0]; e++) {
			int64_t n = ox_shape_count(cases[c].rank, cases[c].dims);
			size_t es = esizes[e], bytes = (size_t)n * es + 1;
			unsigned char *src = malloc(bytes), *a = calloc(1, bytes), *b = calloc(1, bytes);
			for (size_t i = 0; i < bytes; i++)
				src[i] = (unsigned char)(i * 131 + 7);
			ox_transpose_naive(b, src, es, cases[c].rank, cases[c].dims, cases[c].perm);
			for (int level = OX_CPU_SCALAR; level <= ox_cpu_level(); level++) {
				memset(a, 0, bytes);
				ox_transpose_at(a, src, es, cases[c].rank, cases[c].dims, cases[c].perm, level);
				REQUIRE(memcmp(a, b, bytes) == 0, "case %zu, element size %zu, %s", c, es,
					ox_cpu_level_name(level));
			}
			free(src), free(a), free(b);
		}
}
END_TEST

START_TEST(strided_copy_matches_naive)
{
	uint64_t s = 0x2545f4914f6cdd1dull + (uint64_t)_i * 104729;
	for (int trial = 0; trial < 60; trial++) {
		int rank = (int)(rng(&s) % 6);
		int64_t dims[OX_MAX_RANK], str[OX_MAX_RANK], lo = 0, hi = 0;
		for (int d = 0; d < rank; d++) {
			dims[d] = 1 + (int64_t)(rng(&s) % 6) - (rng(&s) % 20 == 0);
			str[d] = (int64_t)(rng(&s) % 9) - 4; /* negative, zero (broadcast) and positive */
			if (dims[d] > 0) {
				lo += str[d] < 0 ? str[d] * (dims[d] - 1) : 0;
				hi += str[d] > 0 ? str[d] * (dims[d] - 1) : 0;
			}
		}
		int64_t n = ox_shape_count(rank, dims), span = hi - lo + 1;
		size_t es = esizes[rng(&s) % (sizeof esizes / sizeof esizes[0])];
		unsigned char *src = malloc((size_t)span * es), *a = calloc((size_t)n + 1, es), *b = calloc((size_t)n + 1, es);
		for (size_t i = 0; i < (size_t)span * es; i++)
			src[i] = (unsigned char)rng(&s);
		const unsigned char *origin = src - lo * (int64_t)es;
		ox_copy_strided(a, origin, es, rank, dims, str);
		for (int64_t o = 0; o < n; o++) {
			int64_t rest = o, off = 0;
			for (int d = rank - 1; d >= 0; d--) {
				off += rest % dims[d] * str[d];
				rest /= dims[d];
			}
			memcpy(b + o * (int64_t)es, origin + off * (int64_t)es, es);
		}
		REQUIRE(memcmp(a, b, (size_t)(n + 1) * es) == 0, "trial %d: strided copy differs", trial);
		free(src), free(a), free(b);
	}
}
END_TEST

START_TEST(strings_own_their_bytes)
{
	ox_str s[3] = {{"ab", 2}, {NULL, 0}, {"c\0d", 3}};
	ck_assert(ox_strings_own(s, 3));
	ck_assert_ptr_null(s[1].p);
	ck_assert_int_eq(memcmp(s[2].p, "c\0d", 4), 0);
	s[0].p[0] = 'x'; /* a copy, not the literal */
	for (int i = 0; i < 3; i++)
		free(s[i].p);
	char buf[16];
	ck_assert_str_eq(ox_fmt_dims(buf, sizeof buf, 3, (int64_t[]){2, 0, 7}), "[2, 0, 7]");
	ck_assert_str_eq(ox_fmt_dims(buf, 8, 3, (int64_t[]){123456, 1, 1}), "[123...");
}
END_TEST

/* ---- kernels through sessions ---------------------------------------------------------- */

/* Runs a case in the corpus form (model text with '#@ input' / '#@ expect' lines); error
 * NULL: the outputs must match; else running must fail with a message containing it. */
static void run_case(const char *text, const char *error)
{
	OnnxCaseItem *items;
	size_t n;
	OnnxError err;
	REQUIRE(OnnxCase_Parse(text, strlen(text), &items, &n, &err) == ONNXTXT_OK, "%s", err.message);
	Onnx__ModelProto *m = tu_model(text);
	OnnxSession *s;
	REQUIRE(OnnxSession_New(m, &s, &err) == ONNXTXT_OK, "%s", err.message);
	for (size_t i = 0; i < n; i++)
		if (!items[i].expect)
			REQUIRE(OnnxSession_SetInput(s, items[i].name, items[i].value, &err) == ONNXTXT_OK, "%s",
				err.message);
	OnnxStatus rc = OnnxSession_Run(s, &err);
	if (error) {
		REQUIRE(rc != ONNXTXT_OK, "expected the error '%s'", error);
		REQUIRE(strstr(err.message, error), "expected '%s' in '%s'", error, err.message);
	} else {
		REQUIRE(rc == ONNXTXT_OK, "%s", err.message);
		for (size_t i = 0, o = 0; i < n; i++) {
			if (!items[i].expect)
				continue;
			OnnxError verr;
			REQUIRE(!strcmp(OnnxSession_OutputName(s, o), items[i].name), "output %zu is %s, not %s", o,
				OnnxSession_OutputName(s, o), items[i].name);
			REQUIRE(OnnxValue_Equal(OnnxSession_Output(s, o), items[i].value, 0, 0, &verr) == ONNXTXT_OK,
				"output %s: %s", items[i].name, verr.message);
			o++;
		}
	}
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	OnnxCase_Free(items, n);
}

#define OPSET(v) "<ir_version: 8, opset_import: [\"\" : " #v "]>\n"

static const struct kcase {
	const char *text, *error;
} kcases[] = {
	/* reshapes */
	{"#@ input X = float[2, 3] {1, 2, 3, 4, 5, 6}\n#@ input S = int64[2] {4, -1}\n" OPSET(13)
	 "g (float[2, 3] X, int64[2] S) => (float Y) { Y = Reshape(X, S) }",
	 "cannot infer the -1 of shape[1]: 6 elements are not a multiple of 4"},
	{"#@ input X = float[2, 3] {1, 2, 3, 4, 5, 6}\n#@ input S = int64[2] {-1, -1}\n" OPSET(13)
	 "g (float[2, 3] X, int64[2] S) => (float Y) { Y = Reshape(X, S) }",
	 "shape has more than one -1 (at 0 and 1)"},
	{"#@ input X = float[2, 3] {1, 2, 3, 4, 5, 6}\n#@ input S = int64[2] {0, 5}\n" OPSET(13)
	 "g (float[2, 3] X, int64[2] S) => (float Y) { Y = Reshape(X, S) }",
	 "cannot reshape [2, 3] (6 elements) to [2, 5]"},
	{"#@ input X = float[0, 3] {}\n#@ input S = int64[2] {3, 0}\n#@ expect Y = float[3, 0] {}\n" OPSET(14)
	 "g (float[0, 3] X, int64[2] S) => (float[3, 0] Y) { Y = Reshape <allowzero = 1> (X, S) }",
	 NULL},
	{"#@ input X = float[2, 1] {1, 2}\n#@ input A = int64[1] {0}\n" OPSET(13)
	 "g (float[2, 1] X, int64[1] A) => (float Y) { Y = Squeeze(X, A) }",
	 "cannot squeeze axis 0: its dim is 2, not 1"},
	{"#@ input X = float[2] {1, 2}\n#@ input A = int64[2] {0, -3}\n" OPSET(13)
	 "g (float[2] X, int64[2] A) => (float Y) { Y = Unsqueeze(X, A) }",
	 "axis -3 is given twice"},
	{"#@ input X = float[2] {1, 2}\n" OPSET(13) "g (float[2] X) => (float Y) { Y = Unsqueeze(X) }",
	 "input 1 (axes) is required"},
	/* the shared input helpers of kernel.c (ox_in_kind, ox_in_int8_operands) and string_input */
	{"#@ input X = float[2] {1, 2}\n#@ input P = int64 {0}\n" OPSET(13)
	 "g (float[2] X, int64 P) => (float Y) { Y = SequenceAt(X, P) }",
	 "input 0 must be a sequence, not a tensor"},
	{"#@ input A = float[1, 1] {1}\n#@ input B = uint8[1, 1] {1}\n" OPSET(13)
	 "g (float[1, 1] A, uint8[1, 1] B) => (int32 Y) { Y = MatMulInteger(A, B) }",
	 "A has type float; expected uint8 or int8"},
	{"#@ input X = float[1] {1}\n" OPSET(20) "g (float[1] X) => (bool Y) { Y = RegexFullMatch <pattern = \"a\"> (X) }",
	 "input must be a string tensor, not float"},
	{"#@ input X = float[2, 2] {1, 2, 3, 4}\n" OPSET(13)
	 "g (float[2, 2] X) => (float Y) { Y = Transpose <perm = [0, 0]> (X) }",
	 "perm is not a permutation of 0..1 (perm[1] is 0)"},
	{"#@ input X = float[2, 2] {1, 2, 3, 4}\n" OPSET(13)
	 "g (float[2, 2] X) => (float Y) { Y = Flatten <axis = 3> (X) }",
	 "axis 3 is out of range for rank 2 (0..2)"},
	/* concat, split, slice */
	{"#@ input A = float[2, 2] {1, 2, 3, 4}\n#@ input B = float[3, 3] {1, 2, 3, 4, 5, 6, 7, 8, 9}\n" OPSET(13)
	 "g (float[2, 2] A, float[3, 3] B) => (float Y) { Y = Concat <axis = 0> (A, B) }",
	 "input 1 has dim 3 on axis 1, but input 0 has 2"},
	{"#@ input X = float[5] {1, 2, 3, 4, 5}\n" OPSET(13)
	 "g (float[5] X) => (float Y, float Z) { Y, Z = Split (X) }",
	 "dim 5 cannot be split into 2 equal parts"},
	{"#@ input X = float[5] {1, 2, 3, 4, 5}\n#@ input S = int64[2] {2, 2}\n" OPSET(13)
	 "g (float[5] X, int64[2] S) => (float Y, float Z) { Y, Z = Split (X, S) }",
	 "split sums to 4, but axis 0 has 5"},
	{"#@ input X = float[5] {1, 2, 3, 4, 5}\n#@ input S = int64[2] {-1, 6}\n" OPSET(13)
	 "g (float[5] X, int64[2] S) => (float Y, float Z) { Y, Z = Split (X, S) }",
	 "split[0] is -1, outside 0..5"},
	{"#@ input X = float[5] {1, 2, 3, 4, 5}\n" OPSET(18)
	 "g (float[5] X) => (float Y, float Z, float W, float V) { Y, Z, W, V = Split <num_outputs = 4> (X) }",
	 "dim 5 cannot be split into 4 parts of 2 with a smaller last one"},
	{"#@ input X = float[3] {1, 2, 3}\n#@ input S = int64[1] {0}\n#@ input E = int64[1] {3}\n"
	 "#@ input A = int64[1] {0}\n#@ input P = int64[1] {0}\n" OPSET(13)
	 "g (float[3] X, int64[1] S, int64[1] E, int64[1] A, int64[1] P) => (float Y) { Y = Slice (X, S, E, A, P) }",
	 "steps[0] is 0"},
	{"#@ input X = float[3] {1, 2, 3}\n#@ input S = int64[2] {0, 1}\n#@ input E = int64[1] {3}\n" OPSET(13)
	 "g (float[3] X, int64[2] S, int64[1] E) => (float Y) { Y = Slice (X, S, E) }",
	 "starts, ends, axes and steps must have the same length (2, 1, -2, -2)"},
	/* gather and scatter */
	{"#@ input X = float[3] {1, 2, 3}\n#@ input I = int64[2] {0, 3}\n" OPSET(13)
	 "g (float[3] X, int64[2] I) => (float Y) { Y = Gather (X, I) }",
	 "index 3 is out of range for axis 0 of dim 3"},
	{"#@ input X = float[3] {1, 2, 3}\n#@ input I = int64[2] {0, -4}\n" OPSET(13)
	 "g (float[3] X, int64[2] I) => (float Y) { Y = GatherElements (X, I) }",
	 "index -4 is out of range for axis 0 of dim 3"},
	{"#@ input X = float[3] {1, 2, 3}\n#@ input I = float[1] {0}\n" OPSET(13)
	 "g (float[3] X, float[1] I) => (float Y) { Y = Gather (X, I) }",
	 "input 1 (indices) must be int32 or int64, not float"},
	{"#@ input X = float[2, 2] {1, 2, 3, 4}\n#@ input I = int64[1, 3] {0, 0, 1}\n" OPSET(13)
	 "g (float[2, 2] X, int64[1, 3] I) => (float Y) { Y = GatherND (X, I) }",
	 "index tuples have 3 coordinates, more than data's rank 2 less batch_dims 0"},
	{"#@ input X = float[3] {1, 2, 3}\n#@ input I = int64[1] {0}\n#@ input U = float[1] {5}\n" OPSET(16)
	 "g (float[3] X, int64[1] I, float[1] U) => (float Y) { Y = ScatterElements <reduction = \"max\"> (X, I, U) }",
	 "reduction must be none, add, mul"},
	{"#@ input X = float[3] {1, 2, 3}\n#@ input I = int64[1] {0}\n#@ input U = float[1] {5}\n"
	 "#@ expect Y = float[3] {5, 2, 3}\n" OPSET(18)
	 "g (float[3] X, int64[1] I, float[1] U) => (float[3] Y) { Y = ScatterElements <reduction = \"max\"> (X, I, U) }",
	 NULL},
	{"#@ input X = string[2] {\"a\", \"b\"}\n#@ input I = int64[1, 1] {0}\n#@ input U = string[1] {\"c\"}\n" OPSET(16)
	 "g (string[2] X, int64[1, 1] I, string[1] U) => (string Y) { Y = ScatterND <reduction = \"add\"> (X, I, U) }",
	 "reduction 'add' does not apply to string"},
	{"#@ input X = string[2] {\"a\", \"b\"}\n#@ input I = int64[1, 1] {1}\n#@ input U = string[1] {\"c\"}\n"
	 "#@ expect Y = string[2] {\"a\", \"c\"}\n" OPSET(16)
	 "g (string[2] X, int64[1, 1] I, string[1] U) => (string[2] Y) { Y = ScatterND (X, I, U) }",
	 NULL},
	/* pad */
	{"#@ input X = float[2] {1, 2}\n#@ input P = int64[2] {1, 1}\n" OPSET(18)
	 "g (float[2] X, int64[2] P) => (float Y) { Y = Pad <mode = \"wrap\"> (X, P) }",
	 "mode 'wrap' needs opset 19 (the model imports 18)"},
	{"#@ input X = float[2] {1, 2}\n#@ input P = int64[2] {-2, -1}\n" OPSET(18)
	 "g (float[2] X, int64[2] P) => (float Y) { Y = Pad (X, P) }",
	 "axis 0: pads -2 and -1 crop more than its 2 elements"},
	{"#@ input X = float[0] {}\n#@ input P = int64[2] {1, 1}\n" OPSET(18)
	 "g (float[0] X, int64[2] P) => (float Y) { Y = Pad <mode = \"edge\"> (X, P) }",
	 "axis 0 has nothing left to pad from in mode edge"},
	{"#@ input X = float[2] {1, 2}\n#@ input P = int64[3] {1, 1, 1}\n" OPSET(18)
	 "g (float[2] X, int64[3] P) => (float Y) { Y = Pad (X, P) }",
	 "pads has 3 values; expected 2 (2 per axis)"},
	/* sequences and optionals */
	{"#@ input S = [float[1] {1}]\n#@ input P = int64 {1}\n" OPSET(17)
	 "g (seq(float[N]) S, int64 P) => (float Y) { Y = SequenceAt (S, P) }",
	 "position 1 is out of range for a sequence of 1"},
	{"#@ input S = [float[1] {1}]\n#@ input T = int64[1] {1}\n" OPSET(17)
	 "g (seq(float[N]) S, int64[1] T) => (seq(float[N]) Y) { Y = SequenceInsert (S, T) }",
	 "cannot insert a int64 tensor into a sequence of float"},
	{"#@ input S = []\n" OPSET(17) "g (seq(float[N]) S) => (seq(float[N]) Y) { Y = SequenceErase (S) }",
	 "cannot erase from an empty sequence"},
	{"#@ input S = [float[1] {1}]\n" OPSET(17) "g (seq(float[N]) S) => (float Y) { Y = SequenceAt (S) }",
	 "input 1 (position) is required"},
	{"#@ input S = []\n" OPSET(17)
	 "g (seq(float[N]) S) => (float Y) { Y = ConcatFromSequence <axis = 0> (S) }",
	 "cannot concatenate an empty sequence"},
	{"#@ input X = float[1] {1}\n" OPSET(15)
	 "g (float[1] X) => (bool Y) { Y = OptionalHasElement (X) }",
	 "input 0 must be an optional at opset 15 (tensors and sequences are taken from 18)"},
	{"#@ input X = float[1] {1}\n#@ expect Y = bool {1}\n" OPSET(18)
	 "g (float[1] X) => (bool Y) { Y = OptionalHasElement (X) }",
	 NULL},
	{"#@ input X = none\n" OPSET(18)
	 "g (optional(float[N]) X) => (float Y) { Y = OptionalGetElement (X) }",
	 "the optional input is empty"},
	/* strings */
	{"#@ input X = string[2, 2] {\"a\", \"b\", \"c\", \"d\"}\n" OPSET(17)
	 "g (string[2, 2] X) => (string Y) { Y = StringNormalizer (X) }",
	 "input must have shape [C] or [1, C]"},
	{"#@ input X = string[1] {\"a\"}\n" OPSET(17)
	 "g (string[1] X) => (string Y) { Y = StringNormalizer <locale = \"fr_FR\"> (X) }",
	 "locale 'fr_FR' is not supported"},
	/* older opsets */
	{"#@ input X = float[2] {1, 2}\n#@ input T = int64 {3}\n#@ input A = int64 {0}\n"
	 "#@ expect Y = float[6] {1, 2, 1, 2, 1, 2}\n" OPSET(1)
	 "g (float[2] X, int64 T, int64 A) => (float[6] Y) { Y = Tile (X, T, A) }",
	 NULL},
	{"#@ input X = float[2] {1, 2}\n#@ expect Y = float[4] {0, 1, 2, 0}\n" OPSET(1)
	 "g (float[2] X) => (float[4] Y) { Y = Pad <paddings = [1, 1]> (X) }",
	 NULL},
	{"#@ input X = float[3] {1, 2, 3}\n#@ input S = int64[2] {1, 2}\n"
	 "#@ expect A = float[1] {1}\n#@ expect B = float[2] {2, 3}\n" OPSET(1)
	 "g (float[3] X, int64[2] S) => (float[1] A, float[2] B) { A, B = Split (X, S) }",
	 NULL},
	{"#@ input X = float[2, 2] {1, 2, 3, 4}\n" OPSET(9)
	 "g (float[2, 2] X) => (float Y) { Y = Flatten <axis = -1> (X) }",
	 "axis -1 is out of range for rank 2 (0..2)"},
	{"#@ input I = int64[2] {-1, 1}\n#@ input D = int64 {3}\n#@ input V = int32[2] {0, 5}\n"
	 "#@ expect Y = int32[2, 3] {0, 0, 0, 0, 5, 0}\n" OPSET(9)
	 "g (int64[2] I, int64 D, int32[2] V) => (int32[2, 3] Y) { Y = OneHot (I, D, V) }",
	 NULL},
	{"#@ input X = float[1, 4, 1, 1] {1, 2, 3, 4}\n#@ expect Y = float[1, 1, 2, 2] {1, 2, 3, 4}\n" OPSET(11)
	 "g (float[1, 4, 1, 1] X) => (float[1, 1, 2, 2] Y) { Y = DepthToSpace <blocksize = 2, mode = \"CRD\"> (X) }",
	 NULL},
	/* others */
	{"#@ input X = float[2, 3] {1, 2, 3, 4, 5, 6}\n" OPSET(13)
	 "g (float[2, 3] X) => (float Y) { Y = Det (X) }",
	 "input must be square matrices [*, M, M]"},
	{"#@ input S = int64 {0}\n#@ input L = int64 {5}\n#@ input D = int64 {0}\n" OPSET(13)
	 "g (int64 S, int64 L, int64 D) => (int64 Y) { Y = Range (S, L, D) }",
	 "delta is 0"},
	{"#@ input X = float[1, 8, 1, 1] {1, 2, 3, 4, 5, 6, 7, 8}\n" OPSET(13)
	 "g (float[1, 8, 1, 1] X) => (float Y) { Y = DepthToSpace <blocksize = 2, mode = \"XYZ\"> (X) }",
	 "mode must be DCR or CRD"},
	{"#@ input X = float[2, 2] {1, 2, 3, 4}\n#@ input R = int64[1] {2}\n" OPSET(13)
	 "g (float[2, 2] X, int64[1] R) => (float Y) { Y = Tile (X, R) }",
	 "repeats has 1 values for an input of rank 2"},
	{"#@ input X = float[2] {1, 2}\n#@ input C = bool[3] {0, 0, 1}\n" OPSET(13)
	 "g (float[2] X, bool[3] C) => (float Y) { Y = Compress <axis = 0> (X, C) }",
	 "condition selects index 2, beyond the 2 along the axis"},
	{"#@ input X = float[2, 2] {1, 2, 3, 4}\n#@ input L = int64[2] {3, 1}\n" OPSET(13)
	 "g (float[2, 2] X, int64[2] L) => (float Y) { Y = ReverseSequence (X, L) }",
	 "sequence_lens[0] is 3, outside 0..2"},
	{"#@ input X = float[2, 2] {1, 2, 3, 4}\n" OPSET(13)
	 "g (float[2, 2] X) => (string Y) { Y = EyeLike <dtype = 8> (X) }",
	 "EyeLike cannot make string"},
	{"#@ expect Y = none\n#@ expect Z = bool {0}\n" OPSET(18)
	 "g () => (optional(seq(int64[N])) Y, bool Z) { Y = Optional <type = seq(int64[N])> ()\n Z = OptionalHasElement(Y) }",
	 NULL},
	{"#@ input X = float[2] {1, 2}\n" OPSET(15)
	 "g (float[2] X) => (float Y) { Y = Optional () }",
	 "attribute 'type' is required when the input is omitted"},
	{"#@ input X = float[2, 3] {1, 2, 1, 3, 4, 3}\n#@ expect Y = float[2, 2] {1, 2, 3, 4}\n"
	 "#@ expect I = int64[2] {0, 1}\n" OPSET(11)
	 "g (float[2, 3] X) => (float[2, 2] Y, int64[2] I) { Y, I = Unique <axis = -1> (X) }",
	 NULL},
	{"#@ input X = float[4] {1, 2, 3, 4}\n#@ input P = int64 {0}\n" OPSET(11)
	 "g (float[4] X, int64 P) => (seq(float[N]) Y) { Y = SplitToSequence (X, P) }",
	 "split must be positive, not 0"},
	{"#@ input X = float[4] {1, 2, 3, 4}\n#@ input P = int64[2] {1, 2}\n" OPSET(11)
	 "g (float[4] X, int64[2] P) => (seq(float[N]) Y) { Y = SplitToSequence (X, P) }",
	 "split sums to 3, but axis 0 has 4"},
	{"#@ input X = float[4] {1, 2, 3, 4}\n#@ input P = int64[2] {5, -1}\n" OPSET(11)
	 "g (float[4] X, int64[2] P) => (seq(float[N]) Y) { Y = SplitToSequence (X, P) }",
	 "split[0] is 5, outside 0..4"},
	{"#@ input X = float[1, 4, 3] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}\n#@ input I = int64[2] {3, 3}\n"
	 "#@ input B = int64[2] {2, 2}\n" OPSET(18)
	 "g (float[1, 4, 3] X, int64[2] I, int64[2] B) => (float Y) { Y = Col2Im (X, I, B) }",
	 "input dim 2 is 3, but the blocks number 4"},
	{"#@ input S = float {0}\n#@ input L = float {nan}\n#@ input D = float {1}\n" OPSET(11)
	 "g (float S, float L, float D) => (float Y) { Y = Range (S, L, D) }",
	 "start, limit and delta give no count (NaN)"},
	{"#@ input X = string[1] {\"a\"}\n" OPSET(20)
	 "g (string[1] X) => (bool Y) { Y = RegexFullMatch <pattern = \"\\\\pL\"> (X) }",
	 "an escape POSIX cannot express"},
};

START_TEST(kernel_cases)
{
	run_case(kcases[_i].text, kcases[_i].error);
}
END_TEST

/* ---- RegexFullMatch: RE2 syntax on POSIX regexes ---------------------------------------- */

static const struct rcase {
	const char *pattern, *subject;
	int match; /* 1 or 0; -1: the pattern is rejected */
} rcases[] = {
	{"a|b", "b", 1},           {"a|b", "ab", 0},        {"ab*", "abbb", 1},       {"ab*?", "abbb", 1},
	{"a.c", "abc", 1},         {"a.c", "a\nc", 0},      {"(?s)a.c", "a\nc", 1},   {"(?i)hello", "HeLLo", 1},
	{"hello", "HELLO", 0},     {"\\d+", "2024", 1},     {"\\d+", "20x4", 0},      {"\\w+@\\w+\\.com", "me@site.com", 1},
	{"\\s", "\t", 1},          {"\\S+", "a b", 0},      {"\\D", "7", 0},          {"[\\d.]+", "3.14", 1},
	{"[^\\d]+", "abc", 1},     {"[]a]+", "]a]", 1},     {"[a-]+", "a-a", 1},      {"[-^]+", "^-", 1},
	{"[\\]]", "]", 1},         {"[\\[]", "[", 1},       {"[\\^a]+", "^a", 1},     {"[\\^]", "^", 1},
	{"[[:alpha:]]+", "Ab", 1}, {"[[:digit:]x]+", "1x2", 1},                    {"(?:ab)+", "abab", 1},
	{"(?P<year>\\d{4})-\\d{2}", "2024-05", 1},           {"a{2,3}", "aaaa", 0},    {"a{2,3}?", "aa", 1},
	{"a{2}?", "", 0},          {"a{,2}", "a{,2}", 1},   {"a{", "a{", 1},          {"x}", "x}", 1},
	{"\\.", ".", 1},           {"\\.", "a", 0},         {"\\x41\\x{42}", "AB", 1}, {"\\Qa.b\\E", "a.b", 1},
	{"\\Qa.b\\E", "axb", 0},   {"\\Aabc\\z", "abc", 1}, {"é.", "éé", 1},        {"[é]", "é", 1},
	{"caf[eé]", "café", 1},    {"\\n", "\n", 1},        {"", "", 1},              {"", "a", 0},
	{"a|", "", 1},             {"(a)(b)?", "a", 1},     {"^abc$", "abc", 1},
	/* what POSIX cannot express, or glibc would take differently */
	{"[[:alpha:]]+", "é", 0},  {"[[:^alpha:]]", "1", -1}, {"[[:foo:]]", "a", -1}, {"[[:punct:][:space:]]+", "!/ ~", 1},
	{"\\bword\\b", "word", 1}, {"a\\b", "ab", 0},       {"www\\.[\\w.-]+\\.\\bcom\\b", "www.bbc.co.uk", 0},
	{"www\\.[\\w.-]+\\.\\bcom\\b", "www.google.com", 1},    {"\\pL", "a", -1}, {".\\b", "é", -1},       {"\\p{Greek}", "a", -1},  {"(a)\\1", "aa", -1},
	{"a**", "aa", -1},          {"(?m)a", "a", -1},      {"a(?i)b", "ab", -1},     {"a{1001}", "a", -1},
	{"[\\D]", "a", -1},         {"[a", "a", -1},         {"\\C", "a", -1},         {"\\x00", "a", -1},
};

START_TEST(regex_full_match)
{
	const struct rcase *c = &rcases[_i];
	Onnx__ModelProto *m = tu_model(OPSET(20) "g (string[1] X) => (bool[1] Y) { Y = RegexFullMatch <pattern = \"P\"> (X) }");
	Onnx__AttributeProto *a = m->graph->node[0]->attribute[0];
	a->s.data = (uint8_t *)c->pattern;
	a->s.len = strlen(c->pattern);
	OnnxSession *s;
	OnnxError err;
	ck_assert_int_eq(OnnxSession_New(m, &s, &err), ONNXTXT_OK);
	OnnxValue *x;
	int64_t one = 1;
	ck_assert_int_eq(OnnxValue_NewTensor(8, &one, 1, &c->subject, &x, &err), ONNXTXT_OK);
	ck_assert_int_eq(OnnxSession_SetInput(s, "X", x, &err), ONNXTXT_OK);
	OnnxStatus rc = OnnxSession_Run(s, &err);
	if (c->match < 0) {
		ck_assert_msg(rc != ONNXTXT_OK, "/%s/ should be rejected", c->pattern);
	} else {
		ck_assert_msg(rc == ONNXTXT_OK, "/%s/: %s", c->pattern, err.message);
		const uint8_t *y = OnnxValue_Data(OnnxSession_Output(s, 0));
		ck_assert_msg(y[0] == c->match, "/%s/ on '%s': got %d", c->pattern, c->subject, y[0]);
	}
	OnnxValue_Free(x);
	OnnxSession_Free(s);
	a->s.data = NULL; /* the pattern is not the arena's */
	a->s.len = 0;
	OnnxProto_Free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("movement");
	TCase *t = tcase_create("move");
	tcase_add_loop_test(t, transpose_matches_naive, 0, 25);
	tcase_add_test(t, transpose_fast_paths);
	tcase_add_loop_test(t, strided_copy_matches_naive, 0, 10);
	tcase_add_test(t, strings_own_their_bytes);
	suite_add_tcase(s, t);
	t = tcase_create("kernels");
	tcase_add_loop_test(t, kernel_cases, 0, sizeof kcases / sizeof kcases[0]);
	tcase_add_loop_test(t, regex_full_match, 0, sizeof rcases / sizeof rcases[0]);
	suite_add_tcase(s, t);
	return tu_run(s);
}
