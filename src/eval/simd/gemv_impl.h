/* The vector kernels of a product with one row or one column (gemm.c) written once over
 * the SIMD macro layer: gemm.c includes this file once per level between that level's
 * simd_*.h and simd_end.h, after the level's FN(dot_tail). */

/* Two accumulators, 2 * VW floats a step; the level's dot_tail adds the rest and sums. */
TARGET static float FN(dot)(const float *a, const float *b, int64_t n)
{
	VF s0 = VZERO(), s1 = VZERO();
	int64_t i = 0;
	for (; i + 2 * VW <= n; i += 2 * VW) {
		s0 = VFMA(VLOAD(a + i), VLOAD(b + i), s0);
		s1 = VFMA(VLOAD(a + i + VW), VLOAD(b + i + VW), s1);
	}
	return FN(dot_tail)(a + i, b + i, n - i, s0, s1);
}

/* Four rows of a at stride lda against one b, each summed exactly as FN(dot) sums it
 * (same accumulators, steps and tail): b is loaded once for the four. */
TARGET static void FN(dot4)(const float *a, int64_t lda, const float *b, int64_t n, float *out)
{
	VF s[4][2] = {{VZERO(), VZERO()}, {VZERO(), VZERO()}, {VZERO(), VZERO()}, {VZERO(), VZERO()}};
	int64_t i = 0;
	for (; i + 2 * VW <= n; i += 2 * VW) {
		VF b0 = VLOAD(b + i), b1 = VLOAD(b + i + VW);
		for (int r = 0; r < 4; r++) {
			s[r][0] = VFMA(VLOAD(a + r * lda + i), b0, s[r][0]);
			s[r][1] = VFMA(VLOAD(a + r * lda + i + VW), b1, s[r][1]);
		}
	}
	for (int r = 0; r < 4; r++)
		out[r] = FN(dot_tail)(a + r * lda + i, b + i, n - i, s[r][0], s[r][1]);
}

/* The scalar loop, which the compiler vectorizes for the level. */
TARGET static void FN(axpy)(float *y, const float *x, float a, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] += a * x[i];
}
