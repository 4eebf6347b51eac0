/* The SIMD macro layer at AVX-512F (16 floats per vector): the names of simd_avx2.h. */
#define TARGET OX_TARGET_AVX512
#define FN(name) name##_avx512
#define VW 16
#define VF __m512
#define VM __mmask16
#define VI __m512i
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VSTREAM(p, v) _mm512_stream_ps(p, v)
/* lanes [0, n) of p, n <= VW; the others read as 0 and left alone, nothing read or written past them */
#define VLOADN(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1), p)
#define VLOADNF(p, n, f) _mm512_mask_loadu_ps(VSET(f), (__mmask16)((1u << (n)) - 1), p) /* the others f */
#define VSTOREN(p, v, n) _mm512_mask_storeu_ps(p, (__mmask16)((1u << (n)) - 1), v)
#define VSET(x) _mm512_set1_ps(x)
#define VZERO _mm512_setzero_ps
#define VADD _mm512_add_ps
#define VSUB _mm512_sub_ps
#define VMUL _mm512_mul_ps
#define VDIV _mm512_div_ps
#define VMAX _mm512_max_ps
#define VMIN _mm512_min_ps
#define VFMA _mm512_fmadd_ps
#define VFNMA _mm512_fnmadd_ps
#define VSQRT _mm512_sqrt_ps
#define VAND _mm512_and_ps
#define VOR _mm512_or_ps
#define VXOR _mm512_xor_ps
#define VANDNOT _mm512_andnot_ps
#define VLT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define VGE(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)
#define VNAN(a) _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q)
#define VSEL(m, a, b) _mm512_mask_blend_ps(m, a, b)
#define VROUND(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VTRUNC(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define VCVTI _mm512_cvtps_epi32
#define VISRA _mm512_srai_epi32
#define VISUB _mm512_sub_epi32
#define VIADD _mm512_add_epi32
#define VISET _mm512_set1_epi32
#define VISLL _mm512_slli_epi32
#define VIASF _mm512_castsi512_ps
#define VLDH(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define VSTH(p, v) _mm256_storeu_si256((__m256i *)(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT))
#define VGATHER(p, idx) _mm512_i32gather_ps(idx, p, 4)
/* The even floats of the 2 VW at a then b, their odd ones, and their even ones from the
 * second with x after them (a[2], ..., b[14], x): the taps of a row at stride 2. */
#define VEVENV(a, b)                                                                                  \
	_mm512_permutex2var_ps(a, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b)
#define VODDV(a, b)                                                                                   \
	_mm512_permutex2var_ps(a, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), b)
#define VEVEN1V(a, b, x)                                                                              \
	_mm512_mask_mov_ps(                                                                           \
		_mm512_permutex2var_ps(a, _mm512_setr_epi32(2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 0), b), \
		(__mmask16)0x8000, _mm512_set1_ps(x))
/* p[0], p[2], ..., p[30] and p[1], p[3], ..., p[31], read as the two vectors at p and p + 16 */
#define VEVEN(p) VEVENV(_mm512_loadu_ps(p), _mm512_loadu_ps((p) + 16))
#define VODD(p) VODDV(_mm512_loadu_ps(p), _mm512_loadu_ps((p) + 16))
#define VIOTA(s)                                                                                     \
	_mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), \
			   _mm512_set1_epi32((int)(s)))
#define VD __m512d
#define VDZERO _mm512_setzero_pd
#define VDLOAD(p) _mm512_loadu_pd(p)
#define VDADD _mm512_add_pd
#define VDSUB _mm512_sub_pd
#define VDFMA _mm512_fmadd_pd
#define VDLO(f) _mm512_cvtps_pd(_mm512_castps512_ps256(f))
#define VDHI(f) _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1)))
