/* Vector math written once over the SIMD macro layer (simd_avx2.h, simd_avx512.h), for
 * every template of vector code: NaN-propagating max and min, exp, tanh and sigmoid. The
 * scalar twins of the kernels are their reference. Included once per level. */

/* NaN-propagating max and min (the bare instructions return b when either is NaN) */
TARGET static inline VF FN(vmax)(VF a, VF b)
{
	return VSEL(VNAN(a), VMAX(a, b), a);
}

TARGET static inline VF FN(vmin)(VF a, VF b)
{
	return VSEL(VNAN(a), VMIN(a, b), a);
}

/* exp(x) = 2^n * exp(r), n = round(x / ln2), r = x - n ln2 in [-ln2/2, ln2/2] (ln2 split
 * in two so that n ln2 is exact), exp(r) by the degree-7 polynomial of Cephes' expf. The
 * scale 2^n is applied as 2^(n/2) * 2^(n - n/2): both factors are normal floats for every
 * n in [-150, 128], and the result is rounded once, also when it is subnormal. */
TARGET static inline VF FN(vexp)(VF x)
{
	x = VMIN(VSET(88.8f), x); /* beyond: overflows to inf below; NaN passes through */
	x = VMAX(VSET(-104.0f), x); /* below: rounds to 0 */
	VF fx = VROUND(VMUL(x, VSET(1.44269504088896341f)));
	VF r = VFNMA(fx, VSET(0.693359375f), x);
	r = VFNMA(fx, VSET(-2.12194440e-4f), r);
	VF p = VSET(1.9875691500e-4f);
	p = VFMA(p, r, VSET(1.3981999507e-3f));
	p = VFMA(p, r, VSET(8.3334519073e-3f));
	p = VFMA(p, r, VSET(4.1665795894e-2f));
	p = VFMA(p, r, VSET(1.6666665459e-1f));
	p = VFMA(p, r, VSET(5.0000001201e-1f));
	p = VFMA(p, VMUL(r, r), VADD(r, VSET(1.0f)));
	VI n = VCVTI(fx);
	VI n1 = VISRA(n, 1);
	VI n2 = VISUB(n, n1);
	VF s1 = VIASF(VISLL(VIADD(n1, VISET(127)), 23));
	VF s2 = VIASF(VISLL(VIADD(n2, VISET(127)), 23));
	return VMUL(VMUL(p, s1), s2);
}

/* tanh: x + x^3 P(x^2) below 0.625 (P fitted for relative error under 0.1 ulp), else
 * 1 - 2 / (exp(2|x|) + 1) with x's sign, where the subtraction loses no accuracy: the
 * result is above 0.55 and the quotient below 0.45. |x| is capped at 10, beyond which
 * tanh rounds to 1. */
TARGET static inline VF FN(vtanh)(VF x)
{
	VF sign = VAND(x, VSET(-0.0f));
	VF ax = VXOR(x, sign);
	VF z = VMUL(x, x);
	VF q = VSET(-0.0057049743f);
	q = VFMA(q, z, VSET(0.020639075f));
	q = VFMA(q, z, VSET(-0.05373971f));
	q = VFMA(q, z, VSET(0.13331442f));
	q = VFMA(q, z, VSET(-0.3333328f));
	VF small = VFMA(VMUL(x, z), q, x);
	VF e = FN(vexp)(VMUL(VMIN(VSET(10.0f), ax), VSET(2.0f)));
	VF one = VSET(1.0f);
	VF large = VSUB(one, VDIV(VSET(2.0f), VADD(e, one)));
	/* x's sign on both: the polynomial gives +0 for -0 */
	return VOR(VSEL(VLT(ax, VSET(0.625f)), large, VANDNOT(VSET(-0.0f), small)), sign);
}

/* sigmoid as the scalar twin computes it: e = exp(-|x|), then 1 / (1 + e) or e / (1 + e) */
TARGET static inline VF FN(vsigmoid)(VF x)
{
	VF e = FN(vexp)(VXOR(VANDNOT(VSET(-0.0f), x), VSET(-0.0f)));
	VF num = VSEL(VGE(x, VSET(0.0f)), e, VSET(1.0f));
	return VDIV(num, VADD(VSET(1.0f), e));
}
