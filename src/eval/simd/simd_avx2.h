/* The SIMD macro layer at AVX2 + FMA + F16C (8 floats per vector). A source of vector code
 * written once over these names includes this file (or simd_avx512.h), then its template,
 * then simd_end.h, once per level; every template sees the same names (vmath.h). */
#define TARGET OX_TARGET_AVX2
#define FN(name) name##_avx2
#define VW 8
#define VF __m256
#define VM __m256 /* comparison results: lane masks */
#define VI __m256i
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSTREAM(p, v) _mm256_stream_ps(p, v)
/* lanes [0, n) of p, n <= VW; the others read as 0 and left alone, nothing read or written past them */
#define VLANES(n) _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define VLOADN(p, n) _mm256_maskload_ps(p, VLANES(n))
#define VLOADNF(p, n, f) _mm256_blendv_ps(VSET(f), VLOADN(p, n), _mm256_castsi256_ps(VLANES(n))) /* the others f */
#define VSTOREN(p, v, n) _mm256_maskstore_ps(p, VLANES(n), v)
#define VSET(x) _mm256_set1_ps(x)
#define VZERO _mm256_setzero_ps
#define VADD _mm256_add_ps
#define VSUB _mm256_sub_ps
#define VMUL _mm256_mul_ps
#define VDIV _mm256_div_ps
#define VMAX _mm256_max_ps /* a > b ? a : b, b when either is NaN */
#define VMIN _mm256_min_ps
#define VFMA _mm256_fmadd_ps   /* a * b + c */
#define VFNMA _mm256_fnmadd_ps /* c - a * b */
#define VSQRT _mm256_sqrt_ps
#define VAND _mm256_and_ps
#define VOR _mm256_or_ps
#define VXOR _mm256_xor_ps
#define VANDNOT _mm256_andnot_ps
#define VLT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define VGE(a, b) _mm256_cmp_ps(a, b, _CMP_GE_OQ)
#define VNAN(a) _mm256_cmp_ps(a, a, _CMP_UNORD_Q)
#define VSEL(m, a, b) _mm256_blendv_ps(a, b, m) /* b where m */
#define VROUND(a) _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VTRUNC(a) _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define VCVTI _mm256_cvtps_epi32
#define VISRA _mm256_srai_epi32
#define VISUB _mm256_sub_epi32
#define VIADD _mm256_add_epi32
#define VISET _mm256_set1_epi32
#define VISLL _mm256_slli_epi32
#define VIASF _mm256_castsi256_ps
#define VLDH(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
#define VSTH(p, v) _mm_storeu_si128((__m128i *)(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT))
#define VGATHER(p, idx) _mm256_i32gather_ps(p, idx, 4)
/* The even floats of the 2 VW at a then b (the even lanes of each 128-bit half, then the
 * halves in order), their odd ones, and their even ones from the second with x after them
 * (a[2], ..., b[6], x): the taps of a row at stride 2. */
#define VEVENV(a, b) _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8))
#define VODDV(a, b) _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8))
#define VEVEN1V(a, b, x)                                                                                              \
	_mm256_blend_ps(_mm256_permutevar8x32_ps(VEVENV(a, b), _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0)), _mm256_set1_ps(x), \
			0x80)
/* p[0], p[2], ..., p[14] and p[1], p[3], ..., p[15], read as the two vectors at p and p + 8 */
#define VEVEN(p) VEVENV(_mm256_loadu_ps(p), _mm256_loadu_ps((p) + 8))
#define VODD(p) VODDV(_mm256_loadu_ps(p), _mm256_loadu_ps((p) + 8))
#define VIOTA(s) _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)(s)))
#define VD __m256d /* doubles: VW / 2 per vector */
#define VDZERO _mm256_setzero_pd
#define VDLOAD(p) _mm256_loadu_pd(p)
#define VDADD _mm256_add_pd
#define VDSUB _mm256_sub_pd
#define VDFMA _mm256_fmadd_pd
#define VDLO(f) _mm256_cvtps_pd(_mm256_castps256_ps128(f)) /* the low half of the floats f, widened */
#define VDHI(f) _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1))
