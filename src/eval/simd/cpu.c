/* CPU feature detection, once per process. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

static int level;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void detect(void)
{
	int best = OX_CPU_SCALAR;
#if OX_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		best = OX_CPU_AVX2;
	if (best == OX_CPU_AVX2 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512vl"))
		best = OX_CPU_AVX512;
#endif
	const char *env = getenv("ONNXTXT_CPU");
	int want = best;
	if (env && strcmp(env, "scalar") == 0)
		want = OX_CPU_SCALAR;
	else if (env && strcmp(env, "avx2") == 0)
		want = OX_CPU_AVX2;
	level = want < best ? want : best;
}

int ox_cpu_level(void)
{
	pthread_once(&once, detect);
	return level;
}

const char *ox_cpu_level_name(int l)
{
	static const char *const names[] = {"scalar", "avx2", "avx512", "neon"};
	return l >= 0 && l <= OX_CPU_NEON ? names[l] : "?";
}

const void *ox_cpu_table(int want, const void *scalar, const void *avx2, const void *avx512)
{
	if (want == OX_CPU_SCALAR)
		return scalar;
	if (want == OX_CPU_AVX2 && ox_cpu_level() >= OX_CPU_AVX2)
		return avx2;
	if (want == OX_CPU_AVX512 && ox_cpu_level() >= OX_CPU_AVX512)
		return avx512;
	return NULL;
}
