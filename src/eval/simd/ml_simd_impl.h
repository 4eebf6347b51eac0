/* The dot products and squared distances of ml_simd.c written once over the SIMD macro
 * layer: ml_simd.c includes this file once per level between that level's simd_*.h and
 * simd_end.h, with ML_REST(kernel, s, a, b, n): the sum of the lanes of s and of the
 * kernel over the n elements left. Floats widen to double before they multiply. */

/* Two accumulators of VW / 2 doubles: VW floats a step. */
TARGET static double FN(dot)(const double *a, const float *b, int64_t n)
{
	VD s0 = VDZERO(), s1 = VDZERO();
	int64_t i = 0;
	for (; i + VW <= n; i += VW) {
		VF f = VLOAD(b + i);
		s0 = VDFMA(VDLOAD(a + i), VDLO(f), s0);
		s1 = VDFMA(VDLOAD(a + i + VW / 2), VDHI(f), s1);
	}
	return ML_REST(dot, VDADD(s0, s1), a + i, b + i, n - i);
}

TARGET static double FN(sqdist)(const double *a, const float *b, int64_t n)
{
	VD s0 = VDZERO(), s1 = VDZERO();
	int64_t i = 0;
	for (; i + VW <= n; i += VW) {
		VF f = VLOAD(b + i);
		VD d0 = VDSUB(VDLOAD(a + i), VDLO(f)), d1 = VDSUB(VDLOAD(a + i + VW / 2), VDHI(f));
		s0 = VDFMA(d0, d0, s0);
		s1 = VDFMA(d1, d1, s1);
	}
	return ML_REST(sqdist, VDADD(s0, s1), a + i, b + i, n - i);
}
