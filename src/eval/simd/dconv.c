/* The direct convolution (dconv.h) at AVX2 and AVX-512, made from dconv_impl.h: the
 * levels differ only in how a tile is turned round (transpose) and how part of a vector
 * is loaded and stored. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"
#include "dconv.h"
#include "transpose.h"
#include "eval/threads.h"

#if OX_X86
#include <immintrin.h>
#endif

/* The transposed tiles (dconv_impl.h): big, big one position short, small. */
enum dc_tile { DC_BIG, DC_BIG1, DC_SMALL };

/* How one convolution is cut into tiles: mr positions by nv vectors of vw channels. */
typedef struct dc_plan dc_plan;
struct dc_plan {
	enum dc_tile tile;
	bool tile_major;
	bool straight; /* rows at stride 1 read straight (dc_straight_units): tpr tiles a row */
	int mr, nv, vw;
	int64_t chunk; /* one row read straight: channels a unit takes over one of its tiles */
	int64_t min_len, nslab, tpr, tiles; /* slabs of channels, tiles per row, tiles in all */
	void (*units)(const ox_dconv *c, const dc_plan *P, int64_t u0, int64_t u1);
};

/* When one row goes straight (dconv_impl.h, dc_straight): sums up to DC_STRAIGHT_DEPTH
 * deep over rows of at least DC_STRAIGHT_TILES tiles. Deeper sums hide the transposing
 * store, and the straight tiles' tails cost more in short rows (1x1 convolutions, GFLOP/s
 * transposed and straight: 16->64 on 54x54 105 and 160, 64->256 on 56x56 205 and 235,
 * 192->64 on 28x28 231 and 222, 128->128 on 14x14 227 and 201, 64->64 on 7x7 162 and 113). */
enum { DC_STRAIGHT_DEPTH = 64, DC_STRAIGHT_TILES = 4 };

/* One row goes straight too when its sum is shallower than this, whatever the lanes: the
 * transposing store is not hidden (dconv_impl.h, dc_plan_for). */
enum { DC_STORE_DEPTH = 128 };

/* Many rows go straight too with sums up to DC_STRAIGHT_DEPTH deep, and at any depth
 * when each row's positions fill their vectors (at most 1/16 of the lanes left over):
 * the transposing store is a fixed cost per output with lines written a piece at a time.
 * AVX-512, 1 thread, ms warm (cold caches) transposed and straight: 3x3 s2 3->64 on
 * 224x224 0.27 (0.63) and 0.21 (0.35); 7x7 s2 3->64 1.08 (1.40) and 0.99 (1.01); 3x3
 * 32->64 on 112x112 2.02 (2.24) and 1.89 (1.93); vgg's 3x3 64->64 on 224x224 17.7 and
 * 16.1, 64->128 on 112x112 8.2 and 7.5, 128->128 (1152 deep) 15.7 and 14.9; rows that
 * leave lanes over lose: 3x3 16->64 on 56x56 0.26 and 0.27, 64->64 0.93 and 1.06. */

/* Weights up to this many bytes stay in L2 while every block of channels takes its turn
 * on a tile: tiles then go outermost, so that the input a tile reads (a band of rows of
 * every input channel) is fetched once for all blocks rather than once per block. Above
 * it, blocks go outermost, so each block's weights are fetched once. */
enum { TILE_MAJOR_MAX = 256 << 10 };

/* Straight tiles (dconv_impl.h, dc_straight) of a row of nvec vectors of positions:
 * runs of DC_PNV (3) vectors, the last four as two runs of two rather than three and one
 * (one vector by a block of channels is too few chains of multiply-adds to hide their
 * latency): the runs of three, the tiles in the row, and tile j's first vector and count
 * (*nv). */
static int64_t dc_straight_threes(int64_t nvec)
{
	return nvec % 3 == 1 && nvec >= 4 ? nvec / 3 - 1 : nvec / 3;
}

static int64_t dc_straight_tiles(int64_t nvec)
{
	int64_t threes = dc_straight_threes(nvec);
	return threes + (nvec - 3 * threes + 1) / 2;
}

static inline int64_t dc_straight_at(int64_t nvec, int64_t j, int *nv)
{
	int64_t threes = dc_straight_threes(nvec);
	int64_t left = nvec - 3 * threes - 2 * (j - threes);
	*nv = j < threes ? 3 : left >= 2 ? 2 : 1;
	return j < threes ? 3 * j : 3 * threes + 2 * (j - threes);
}

#if OX_X86
OX_TARGET_AVX512 static inline void dc_transpose_avx512(__m512 r[16])
{
	ox_transpose16(r);
}

static inline __mmask16 lanes16(int lo, int hi)
{
	return (__mmask16)(((1u << hi) - 1) & ~((1u << lo) - 1));
}

OX_TARGET_AVX512 static inline __m512 dc_load_lanes_avx512(const float *p, int lo, int hi)
{
	return _mm512_maskz_loadu_ps(lanes16(lo, hi), p);
}

OX_TARGET_AVX512 static inline void dc_store_lanes_avx512(float *p, __m512 v, int lo, int hi)
{
	_mm512_mask_storeu_ps(p, lanes16(lo, hi), v);
}

OX_TARGET_AVX2 static inline void dc_transpose_avx2(__m256 r[8])
{
	__m256 t[8], u[8];
	for (int i = 0; i < 4; i++) {
		t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
	}
	for (int i = 0; i < 2; i++) {
		u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
		u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
		u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
		u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
	}
	for (int c = 0; c < 4; c++) {
		r[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
		r[4 + c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
	}
}

OX_TARGET_AVX2 static inline __m256i lanes8(int lo, int hi)
{
	__m256i i = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	return _mm256_and_si256(_mm256_cmpgt_epi32(i, _mm256_set1_epi32(lo - 1)), _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), i));
}

OX_TARGET_AVX2 static inline __m256 dc_load_lanes_avx2(const float *p, int lo, int hi)
{
	return _mm256_maskload_ps(p, lanes8(lo, hi));
}

OX_TARGET_AVX2 static inline void dc_store_lanes_avx2(float *p, __m256 v, int lo, int hi)
{
	_mm256_maskstore_ps(p, lanes8(lo, hi), v);
}

#include "simd_avx2.h"
#include "dconv_impl.h"
#include "simd_end.h"

#include "simd_avx512.h"
#include "dconv_impl.h"
#include "simd_end.h"
#endif

static int level_of(int level)
{
	return ox_cpu_level() < level ? ox_cpu_level() : level;
}

int ox_dconv_available(int level)
{
	int l = level_of(level);
	return OX_X86 && (l == OX_CPU_AVX2 || l == OX_CPU_AVX512);
}

/* The plan of c at level (available). */
static void plan_for(int level, const ox_dconv *c, dc_plan *P)
{
	memset(P, 0, sizeof *P);
#if OX_X86
	if (level_of(level) >= OX_CPU_AVX512)
		dc_plan_for_avx512(c, P);
	else
		dc_plan_for_avx2(c, P);
#else
	(void)level, (void)c;
#endif
}

static int vector_width(int level)
{
	return level_of(level) >= OX_CPU_AVX512 ? 16 : 8;
}

bool ox_dconv_straight(int level, const ox_dconv *c)
{
	dc_plan P;
	plan_for(level, c, &P);
	return P.straight;
}

void ox_dconv_split_row(int level, const float *x, int64_t len, int64_t p0, float *e, float *o)
{
#if OX_X86
	if (level_of(level) >= OX_CPU_AVX512) {
		dc_split_row_avx512(x, len, p0, e, o);
		return;
	}
	if (level_of(level) >= OX_CPU_AVX2) {
		dc_split_row_avx2(x, len, p0, e, o);
		return;
	}
#endif
	(void)level;
	for (int64_t i = 0; i < len; i++)
		((p0 + i) % 2 ? o : e)[(p0 + i) / 2] = x[i];
}

int64_t ox_dconv_min_len(int level)
{
	ox_dconv c = {.len = 1};
	dc_plan P;
	plan_for(level, &c, &P);
	return P.min_len;
}

int64_t ox_dconv_slack(int level, int64_t stride)
{
	return ox_dconv_min_len(level) * stride;
}

int64_t ox_dconv_packed_floats(int level, int64_t cout, int64_t depth)
{
	int vw = vector_width(level);
	return (cout + vw - 1) / vw * vw * depth;
}

void ox_dconv_pack(int level, const float *w, int64_t cout, int64_t depth, const float *scale, float *dst)
{
	int vw = vector_width(level);
	int64_t nslab = (cout + vw - 1) / vw;
	for (int64_t s = 0; s < nslab; s++)
		for (int q = 0; q < vw; q++) {
			int64_t ch = s * vw + q;
			float *d = dst + s * depth * vw + q;
			const float *src = w + ch * depth;
			for (int64_t k = 0; k < depth; k++)
				d[k * vw] = ch >= cout ? 0 : scale ? src[k] * scale[ch] : src[k];
		}
}

/* Units per task: a contiguous run, so a task keeps one block of weights for many tiles,
 * the runs as even as the count allows (runs rounded up left the remainder to the last:
 * squeezenet's 3x3 64->256 on 13x13, 104 units in runs of 7, gave two threads 49 and 55);
 * task t is run t % per of convolution t / per of c. */
typedef struct dc_job {
	const ox_dconv *c;
	const dc_plan *P;
	int64_t units, per;
} dc_job;

static void dc_task(void *ctx, int64_t t)
{
	const dc_job *J = ctx;
	int64_t r = t % J->per;
	J->P->units(J->c + t / J->per, J->P, r * J->units / J->per, (r + 1) * J->units / J->per);
}

/* Channels a unit of one row read straight takes (whole slabs at every level) with more
 * than one thread, or weights too large to stay in L2: a row has few tiles (13x13: 4),
 * too few to share out evenly, so each is cut across its channels too (squeezenet's 1x1
 * 512->1000 on 13x13 in the model, 2 threads: 0.47 -> 0.41 ms); and a chunk's weights,
 * fetched from memory for its first tile (dc_straight_units asks for them ahead), stay
 * in L2 for the others (the same, 1 thread: 0.94 -> 0.87 ms). Otherwise a unit takes
 * them all, and the weights are read once a tile. */
enum { DC_CHUNK = 128 };

/* Multiply-adds per task at least (a few us): a parallel region costs well under a us
 * when the workers are awake, and nothing but the task count when they are not (the
 * caller runs what they have not taken), so small convolutions are split too. */
enum { PAR_MIN = 1 << 18 };

void ox_dconv_run_groups(int level, const ox_dconv *c, int64_t n)
{
	dc_plan P;
	plan_for(level, c, &P);
	if (!P.units || n <= 0 || c->rows <= 0 || c->len <= 0 || c->cout <= 0)
		return;
	P.nslab = (c->cout + P.vw - 1) / P.vw;
	P.tpr = P.straight ? dc_straight_tiles((c->len + P.vw - 1) / P.vw) : c->len >= P.mr ? (c->len + P.mr - 1) / P.mr : 1;
	P.tiles = c->rows * P.tpr;
	P.tile_major = P.nslab * P.vw * c->depth * (int64_t)sizeof(float) <= TILE_MAJOR_MAX;
	int64_t threads = ox_threads(), macs = n * c->cout * c->rows * c->len * c->depth;
	P.chunk = threads > 1 || !P.tile_major ? DC_CHUNK : c->cout;
	int64_t units = !P.straight ? (P.nslab + P.nv - 1) / P.nv * P.tiles
			: c->rows > 1 ? c->rows
				      : P.tpr * ((c->cout + P.chunk - 1) / P.chunk);
	int64_t tasks = threads <= 1 ? 1 : macs / PAR_MIN < 8 * threads ? macs / PAR_MIN + 1 : 8 * threads;
	int64_t per = (tasks + n - 1) / n; /* tasks of each convolution */
	if (per > units)
		per = units;
	dc_job J = {c, &P, units, per};
	ox_parallel_for(n * J.per, dc_task, &J);
}

void ox_dconv_run(int level, const ox_dconv *c)
{
	ox_dconv_run_groups(level, c, 1);
}
