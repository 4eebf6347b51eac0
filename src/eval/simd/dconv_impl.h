/* The direct convolution (dconv.h) written once over the SIMD macro layer: dconv.c
 * includes this file once per level between that level's simd_*.h and simd_end.h, after
 * the level's FN(dc_transpose), FN(dc_load_lanes) and FN(dc_store_lanes). */

/* Positions in a big tile (2 vectors of channels) and a small one (4 vectors): as many
 * accumulators as the registers hold beside the weights and the broadcast. What a
 * position costs by small tiles, a big tile's being 100 (3x3 convolutions, GFLOP/s big
 * and small: AVX-512, 16->64 on 55x55 224 and 204, 64->256 on 13x13 232 and 212; AVX2,
 * 64->256 on 13x13 83 and 47, 32->128 on 27x27 100 and 54). Big tiles also come one
 * position short, for rows that are a multiple of that and not of DC_MRB: none is
 * computed past the row, and a position costs the same at AVX-512 (one thread, ms with
 * 14 and 13 positions: 3x3 64->256 on 13x13 0.212 and 0.200, 1x1 512->1000 on 13x13 0.74
 * read straight and 0.69), 13% more at AVX2 (the same 1x1 by 6 and 5 positions: 1.47
 * and 1.61, while the 3x3 gains 0.554 -> 0.486). */
#if VW == 16
#define DC_MRB 14
#define DC_MRS 7
#define DC_SMALL_COST 111
#define DC_SHORT_COST 100
#else
#define DC_MRB 6
#define DC_MRS 3
#define DC_SMALL_COST 175
#define DC_SHORT_COST 113
#endif
#define DC_TS (4 * VW) /* floats of a row of the tile buffer */

/* The tile at xa (MR positions stride st apart) times NV slabs of packed weights (ws
 * floats apart) over the whole depth, into tmp (MR rows of DC_TS). Each output is one
 * chain of multiply-adds in depth order. pf, when not NULL: NV slabs of weights (ws apart)
 * to ask for, a line of each at each depth. */
static inline __attribute__((always_inline)) TARGET void FN(dc_body)(const int MR, const int NV, const int S,
								      const float *xa, const int64_t *off, int64_t depth,
								      const float *w, int64_t ws, int64_t st, float *tmp,
								      const float *pf)
{
	VF acc[DC_MRB][4];
	const int64_t s = S ? S : st;
	for (int i = 0; i < MR; i++)
		for (int v = 0; v < NV; v++)
			acc[i][v] = VZERO();
#pragma GCC unroll 2
	for (int64_t k = 0; k < depth; k++) {
		const float *a = xa + off[k];
		__builtin_prefetch(a + 2 * MR * s); /* the next tile's input at this depth */
		for (int v = 0; pf && v < NV; v++)
			__builtin_prefetch(pf + v * ws + k * VW);
		VF b[4];
		for (int v = 0; v < NV; v++)
			b[v] = VLOAD(w + v * ws + k * VW);
		for (int i = 0; i < MR; i++) {
			VF ai = VSET(a[i * s]);
			for (int v = 0; v < NV; v++)
				acc[i][v] = VFMA(ai, b[v], acc[i][v]);
		}
	}
	for (int i = 0; i < MR; i++)
		for (int v = 0; v < NV; v++)
			VSTORE(tmp + i * DC_TS + v * VW, acc[i][v]);
}

typedef void (*FN(dc_kernel))(const float *xa, const int64_t *off, int64_t depth, const float *w, int64_t ws,
			      int64_t st, float *tmp, const float *pf);

/* One kernel per tile size, vectors of channels and stride (1, 2, or any: 0). */
#define DC_DEF(name, MR, NV, S)                                                                           \
	TARGET static void FN(name)(const float *xa, const int64_t *off, int64_t depth, const float *w, int64_t ws, \
				    int64_t st, float *tmp, const float *pf)                                      \
	{                                                                                                 \
		FN(dc_body)(MR, NV, S, xa, off, depth, w, ws, st, tmp, pf);                              \
	}
#define DC_DEF_S(b, MR, NV) DC_DEF(dc_##b##_s1, MR, NV, 1) DC_DEF(dc_##b##_s2, MR, NV, 2) DC_DEF(dc_##b##_sn, MR, NV, 0)
DC_DEF_S(b1, DC_MRB, 1)
DC_DEF_S(b2, DC_MRB, 2)
DC_DEF_S(m1, DC_MRB - 1, 1)
DC_DEF_S(m2, DC_MRB - 1, 2)
DC_DEF_S(s1, DC_MRS, 1)
DC_DEF_S(s2, DC_MRS, 2)
DC_DEF_S(s4, DC_MRS, 4)
#undef DC_DEF_S
#undef DC_DEF

/* [dc_tile][1, 2, 4 vectors][stride 1, 2, other] */
static const FN(dc_kernel) FN(dc_kernels)[3][3][3] = {
	{{FN(dc_b1_s1), FN(dc_b1_s2), FN(dc_b1_sn)}, {FN(dc_b2_s1), FN(dc_b2_s2), FN(dc_b2_sn)}, {NULL, NULL, NULL}},
	{{FN(dc_m1_s1), FN(dc_m1_s2), FN(dc_m1_sn)}, {FN(dc_m2_s1), FN(dc_m2_s2), FN(dc_m2_sn)}, {NULL, NULL, NULL}},
	{{FN(dc_s1_s1), FN(dc_s1_s2), FN(dc_s1_sn)}, {FN(dc_s2_s1), FN(dc_s2_s2), FN(dc_s2_sn)},
	 {FN(dc_s4_s1), FN(dc_s4_s2), FN(dc_s4_sn)}},
};

/* Lanes [lo, hi) of a tile of mr positions from p0, nv slabs of channels from c0: each
 * vector of channels turned into vectors of positions, then bias, residual, activation. */
TARGET static void FN(dc_store)(const ox_dconv *c, const float *tmp, int mr, int nv, int64_t p0, int64_t c0, int lo,
				int hi)
{
	/* the fields in locals: the stores through y could alias them for the compiler */
	int64_t npos = c->rows * c->len, cout = c->cout;
	const float *bias = c->bias, *res = c->res;
	float *y = c->y;
	bool relu = c->relu;
	for (int v = 0; v < nv; v++) {
		VF r[VW];
		for (int i = 0; i < VW; i++)
			r[i] = i < mr && i < DC_MRB ? VLOAD(tmp + i * DC_TS + v * VW) : VZERO();
		FN(dc_transpose)(r);
		for (int q = 0; q < VW && c0 + v * VW + q < cout; q++) {
			int64_t ch = c0 + v * VW + q, at = ch * npos + p0;
			VF o = r[q];
			if (bias)
				o = VADD(o, VSET(bias[ch]));
			if (res)
				o = VADD(o, FN(dc_load_lanes)(res + at, lo, hi));
			if (relu)
				o = VMAX(VSET(0.0f), o);
			FN(dc_store_lanes)(y + at, o, lo, hi);
		}
	}
}

/* The lines of the output and of the residual that the tile of positions [p0, p0 + n)
 * and channels [c0, c0 + nc) stores and reads, asked for before its long sum: the
 * residual was made layers ago and is no longer in the caches, and each channel's row is
 * a stream of its own that the hardware does not foresee. */
TARGET static inline void FN(dc_prefetch)(const ox_dconv *c, int64_t p0, int64_t c0, int64_t nc, int n)
{
	int64_t npos = c->rows * c->len;
	for (int64_t ch = c0; ch < c0 + nc && ch < c->cout; ch++) {
		int64_t at = ch * npos + p0;
		__builtin_prefetch(c->y + at, 1);
		__builtin_prefetch(c->y + at + n - 1, 1);
		if (c->res) {
			__builtin_prefetch(c->res + at);
			__builtin_prefetch(c->res + at + n - 1);
		}
	}
}

/* Unit u of the work: a channel block and a tile of the rows, blocks outermost or (tile
 * major) innermost. A row's tiles
 * are mr apart, the last one moved back to end with the row (it stores only the lanes the
 * one before did not); a row shorter than mr has one tile that reads past it. */
TARGET static void FN(dc_unit)(const ox_dconv *c, const dc_plan *P, int64_t u, float *tmp)
{
	int64_t nblk = (P->nslab + P->nv - 1) / P->nv;
	int64_t blk = P->tile_major ? u % nblk : u / P->tiles, t = P->tile_major ? u / nblk : u % P->tiles;
	int64_t row = t / P->tpr, j = t % P->tpr;
	int64_t ow = c->len >= P->mr ? (j * P->mr < c->len - P->mr ? j * P->mr : c->len - P->mr) : 0;
	int lo = (int)(j * P->mr - ow), hi = c->len >= P->mr ? P->mr : (int)c->len;
	int64_t p0 = row * c->len + ow, slab = blk * P->nv, ws = c->depth * VW;
	int si = c->stride == 1 ? 0 : c->stride == 2 ? 1 : 2;
	const float *xa = c->x + c->pos[row] + ow * c->stride;
	FN(dc_prefetch)(c, p0, blk * P->nv * VW, P->nv * VW, hi);
	/* the next block's weights, asked for by this block's last tile (by the first tile
	 * when tiles are outermost, the weights then fetched by it alone): they come from
	 * memory (a model's weights are more than the caches hold), and a long sum over them
	 * waits on each line (resnet50's 1x1 2048->512 on 7x7 after 64 MB of other work, one
	 * thread: 0.63 -> 0.49 ms; the whole model, two threads: 20.8 -> 19.8 ms) */
	bool ask = (P->tile_major ? t == 0 : t == P->tiles - 1) && (blk + 2) * P->nv <= P->nslab;
	while (slab < P->nslab) {
		int nv = P->nslab - slab >= P->nv ? P->nv : P->nslab - slab >= 2 ? 2 : 1;
		if (slab + nv > (blk + 1) * P->nv)
			break;
		const float *pf = ask && nv == P->nv ? c->w + (slab + nv) * ws : NULL;
		FN(dc_kernels)[P->tile][nv == 4 ? 2 : nv - 1][si](xa, c->off, c->depth, c->w + slab * ws, ws, c->stride, tmp, pf);
		FN(dc_store)(c, tmp, P->mr, nv, p0, slab * VW, lo, hi);
		slab += nv;
	}
}

TARGET static void FN(dc_units)(const ox_dconv *c, const dc_plan *P, int64_t u0, int64_t u1)
{
	float tmp[DC_MRB * DC_TS] __attribute__((aligned(64)));
	for (int64_t u = u0; u < u1; u++)
		FN(dc_unit)(c, P, u, tmp);
}

/* ---- rows read straight: positions in the lanes, no turning round ------------------- */

/* A straight tile: DC_PMR channels of one slab (broadcast from the packed weights, where
 * a slab's channels at one depth are neighbours) by DC_PNV vectors of positions loaded
 * from a row. Used for rows whose neighbours are adjacent in x (stride 1, or stride 2
 * read through an input split into even and odd columns, conv.c) and shallow sums (1x1
 * convolutions, the first convolution of a CNN), where the tile's store, with no
 * transpose and whole lines, costs far less than dc_store: that store is a fixed cost
 * per output that a shallow sum does not hide. */
#if VW == 16
#define DC_PMR 8
#else
#define DC_PMR 4
#endif
#define DC_PNV 3

/* Channels [ch, ch + DC_PMR) (ws: their slab, q0 the first one's lane in it) by positions
 * [p, p + (NV - 1) * VW + n) of the row at xr whose first output is y0 (flat position).
 * Each output is one chain of multiply-adds in depth order, then bias, residual and Relu
 * as in dc_store; pf: prefetch the next tile's input. */
static inline __attribute__((always_inline)) TARGET void FN(dc_straight)(const int NV, const bool PART,
									 const ox_dconv *c,
									 const float *ws, int64_t ch, const float *xr,
									 int64_t y0, int64_t p, int n, bool pf)
{
	VF acc[DC_PMR][DC_PNV];
	const float *x = xr + p;
	const int64_t *off = c->off;
	for (int i = 0; i < DC_PMR; i++)
		for (int v = 0; v < NV; v++)
			acc[i][v] = VZERO();
	for (int64_t k = 0; k < c->depth; k++) {
		const float *a = x + off[k];
		/* the next tile's lines at this depth, asked for by the first block of channels:
		 * each depth is a row of its own, too many streams for the hardware to foresee
		 * (squeezenet's 1x1 128->16 on 55x55: 115 -> 84 us) */
		if (pf)
			for (int v = 0; v < DC_PNV; v++)
				__builtin_prefetch(a + (NV + v) * VW);
		VF b[DC_PNV];
		for (int v = 0; v < NV; v++)
			b[v] = PART && v == NV - 1 ? FN(dc_load_lanes)(a + v * VW, 0, n) : VLOAD(a + v * VW);
		for (int i = 0; i < DC_PMR; i++) {
			VF wi = VSET(ws[k * VW + i]);
			for (int v = 0; v < NV; v++)
				acc[i][v] = VFMA(wi, b[v], acc[i][v]);
		}
	}
	int64_t npos = c->rows * c->len, cout = c->cout;
	const float *bias = c->bias, *res = c->res;
	float *y = c->y;
	bool relu = c->relu;
	/* unrolled, so that acc stays in registers (a rolled loop stored it all on the
	 * stack first) */
#pragma GCC unroll 8
	for (int i = 0; i < DC_PMR; i++) {
		if (ch + i >= cout)
			break;
#pragma GCC unroll 3
		for (int v = 0; v < NV; v++) {
			int64_t at = (ch + i) * npos + y0 + p + v * VW;
			bool part = PART && v == NV - 1;
			VF o = acc[i][v];
			if (bias)
				o = VADD(o, VSET(bias[ch + i]));
			if (res)
				o = VADD(o, part ? FN(dc_load_lanes)(res + at, 0, n) : VLOAD(res + at));
			if (relu)
				o = VMAX(VSET(0.0f), o);
			if (part)
				FN(dc_store_lanes)(y + at, o, 0, n);
			else
				VSTORE(y + at, o);
		}
	}
}

/* Straight tile j of the row at xr (dc_straight_at): channels [ch, ch + DC_PMR), one
 * variant per count of vectors and whether the last is part of one. */
static inline __attribute__((always_inline)) TARGET void FN(dc_straight_tile)(const ox_dconv *c, const float *ws,
									       int64_t ch, const float *xr, int64_t y0,
									       int64_t j, bool pf)
{
	int nv;
	int64_t p = dc_straight_at((c->len + VW - 1) / VW, j, &nv) * VW;
	int64_t n = c->len - p - (nv - 1) * VW;
	bool part = n < VW;
	n = part ? n : VW;
	if (nv == 3 && !part)
		FN(dc_straight)(3, false, c, ws, ch, xr, y0, p, VW, pf);
	else if (nv == 3)
		FN(dc_straight)(3, true, c, ws, ch, xr, y0, p, (int)n, false);
	else if (nv == 2 && !part)
		FN(dc_straight)(2, false, c, ws, ch, xr, y0, p, VW, pf);
	else if (nv == 2)
		FN(dc_straight)(2, true, c, ws, ch, xr, y0, p, (int)n, false);
	else
		FN(dc_straight)(1, true, c, ws, ch, xr, y0, p, (int)n, false);
}

/* Unit u: with many rows, row u, blocks of channels outermost (a block's weights and the
 * row's input stay in L1 while its tiles take their turn; tiles outermost were slower:
 * 0.166 -> 0.153 ms on 3x3 3->64 at stride 2 on 193x193); with one row, one of its tiles
 * by every block of a chunk of the channels (the tile's input stays in L1). Units go
 * tile by tile through a chunk, and with one row each block of channels asks for a share
 * of the next chunk's weights, which come from memory (the layers between two runs push
 * them out of the caches), so that they are in L2 by the time they are used. */
TARGET static void FN(dc_straight_units)(const ox_dconv *c, const dc_plan *P, int64_t u0, int64_t u1)
{
	int64_t slab = c->depth * VW; /* floats of a slab of packed weights */
	for (int64_t u = u0; u < u1; u++) {
		bool rows = c->rows > 1;
		int64_t row = rows ? u : 0, j0 = rows ? 0 : u % P->tpr, j1 = rows ? P->tpr : j0 + 1;
		int64_t ch0 = rows ? 0 : u / P->tpr * P->chunk, ch1 = rows || ch0 + P->chunk > c->cout ? c->cout : ch0 + P->chunk;
		const float *xr = c->x + c->pos[row];
		int64_t end = ch1 + P->chunk < c->cout ? ch1 + P->chunk : c->cout, blocks = (ch1 - ch0 + DC_PMR - 1) / DC_PMR;
		int64_t bytes = rows ? 0 : (end - ch1 + VW - 1) / VW * slab * (int64_t)sizeof(float);
		int64_t share = (bytes / (P->tpr * blocks) + 64) & ~(int64_t)63, at = j0 * blocks * share;
		const char *next = (const char *)(c->w + ch1 / VW * slab);
		for (int64_t ch = ch0; ch < ch1; ch += DC_PMR) {
			for (int64_t stop = at + share; at < stop && at < bytes; at += 64)
				__builtin_prefetch(next + at);
			const float *ws = c->w + ch / VW * slab + ch % VW;
			for (int64_t j = j0; j < j1; j++)
				FN(dc_straight_tile)(c, ws, ch, xr, row * c->len, j, ch == ch0);
		}
	}
}

/* ox_dconv_split_row at this level: whole vectors of even and odd columns, then the
 * rest one by one. */
TARGET static void FN(dc_split_row)(const float *x, int64_t len, int64_t p0, float *e, float *o)
{
	float *a = (p0 % 2 ? o : e) + p0 / 2, *b = (p0 % 2 ? e : o) + (p0 + 1) / 2; /* x[0], x[2].. and x[1], x[3].. */
	int64_t m = 0;
	for (; 2 * m + 2 * VW <= len; m += VW) {
		VSTORE(a + m, VEVEN(x + 2 * m));
		VSTORE(b + m, VODD(x + 2 * m));
	}
	for (; 2 * m + 1 < len; m++) {
		a[m] = x[2 * m];
		b[m] = x[2 * m + 1];
	}
	if (len % 2)
		a[len / 2] = x[len - 1];
}

/* The tile that costs least per row: its count of positions computed (a row shorter
 * than the big tile reads past its end) times a position's cost by that tile. */
static void FN(dc_plan_for)(const ox_dconv *c, dc_plan *P)
{
	int64_t L = c->len, mr[3] = {DC_MRB, DC_MRB - 1, DC_MRS}, cost = INT64_MAX;
	for (int t = DC_BIG; t <= DC_SMALL; t++) {
		int64_t tc = (L + mr[t] - 1) / mr[t] * mr[t] * (t == DC_SMALL ? DC_SMALL_COST : t == DC_BIG1 ? DC_SHORT_COST : 100);
		if (tc < cost)
			cost = tc, P->tile = t;
	}
	P->mr = (int)mr[P->tile];
	P->nv = P->tile == DC_SMALL ? 4 : 2;
	P->vw = VW;
	P->units = FN(dc_units);
	P->min_len = DC_MRB;
	/* straight: shallow sums over rows of many tiles, where the transposing store would
	 * cost most, and sums whose blocks of channels would be one slab (or end with one
	 * slab by a small tile: 7 chains of multiply-adds at AVX-512, 3 at AVX2, too few to
	 * hide their latency; or by a big one, when that slab is a fifth of the work or more);
	 * 1x1 192->16 on 28x28: 158 GFLOP/s transposed, 219 straight; 512->48 on 13x13 0.039
	 * and 0.035 ms, 512->80 0.061 and 0.058 */
	int64_t nslab = (c->cout + VW - 1) / VW, wbytes = c->depth * c->cout * (int64_t)sizeof(float);
	int64_t lanes = (c->len + VW - 1) / VW * VW;
	bool shallow = c->depth <= DC_STRAIGHT_DEPTH && c->len >= DC_STRAIGHT_TILES * DC_PNV * VW;
	/* and one row that straight tiles cover at less cost than the transposed ones (a
	 * lane costs what a big tile's position does), or whose sum is too shallow to hide
	 * the transposing store (1x1 on 13x13 at AVX-512, ms straight and by 13-position
	 * tiles: 64->256 0.0245 and 0.0293, 128->128 0.0238 and 0.0243, 256->256 0.092 and
	 * 0.088, 512->1000 0.72 and 0.68; on 14x14 and 7x7 transposed wins) */
	bool fewer = c->len >= DC_PNV * VW && (lanes * 100 < cost || c->depth < DC_STORE_DEPTH);
	bool thin = (nslab == 1 || (nslab % 2 == 1 && (P->tile == DC_SMALL || nslab <= 5))) && wbytes <= TILE_MAJOR_MAX &&
		    c->len >= DC_PNV * VW;
	/* many rows (stride 1, or stride 2 read split: conv.c) the same when the sum is
	 * shallow, and at any depth when the rows fill their vectors */
	bool full = (lanes - c->len) * 16 <= lanes;
	bool rows = c->rows > 1 && c->len >= DC_PNV * VW &&
		    (c->depth <= DC_STRAIGHT_DEPTH || full);
	if (c->stride == 1 && ((c->rows == 1 && (shallow || thin || fewer)) || rows)) {
		P->straight = true;
		P->mr = DC_PNV * VW;
		P->units = FN(dc_straight_units);
	}
}

#undef DC_MRB
#undef DC_MRS
#undef DC_SMALL_COST
#undef DC_SHORT_COST
#undef DC_TS
#undef DC_PMR
#undef DC_PNV
