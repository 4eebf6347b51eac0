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

/* The scalar loop, which the compiler vectorizes for the level. */
TARGET static void FN(axpy)(float *y, const float *x, float a, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] += a * x[i];
}
