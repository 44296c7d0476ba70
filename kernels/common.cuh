// common.cuh: what every seqalign kernel shares.
//
// * Encodings: one byte per base, A C G T = 0 1 2 3, anything else (N, IUPAC,
//   padding) = 4. A pair of codes whose OR exceeds 3 involves N.
// * Scoring: five non-negative integers, a gap of length k costs
//   gap_open + k * gap_extend; modes as in seqalign_cli.config.MODE_CODES.
// * Portability: the same sources build with NVRTC/nvcc (CUDA) and hipcc
//   (HIP, AMD): warp size, shuffles and the DPX max intrinsics go through
//   the macros below, with plain fallbacks where an intrinsic is missing.
#pragma once

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define SA_WARP 64
#define SA_SHFL_UP(v, d) __shfl_up((v), (d))
#define SA_SHFL_DOWN(v, d) __shfl_down((v), (d))
#define SA_SHFL(v, l) __shfl((v), (l))
#define SA_SHFL_UP_W(v, d, w) __shfl_up((v), (d), (w))
#define SA_SHFL_XOR(v, m) __shfl_xor((v), (m))
#define SA_ANY(p) __any(p)
#define SA_BALLOT(p) ((unsigned long long)__ballot(p))
#define SA_SYNCWARP()
#else
#define SA_WARP 32
#define SA_SHFL_UP(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
#define SA_SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define SA_SHFL(v, l) __shfl_sync(0xffffffffu, (v), (l))
#define SA_SHFL_UP_W(v, d, w) __shfl_up_sync(0xffffffffu, (v), (d), (w))
#define SA_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#define SA_ANY(p) __any_sync(0xffffffffu, (p))
#define SA_BALLOT(p) ((unsigned long long)__ballot_sync(0xffffffffu, (p)))
#define SA_SYNCWARP() __syncwarp()
#endif

// Threads a block of the launches of a fixed block size: the host's launch.THREADS, which the one loader
// passes as a define; the value below serves a build by hand and equals it (tests/test_kernel_contracts.py).
#ifndef SA_THREADS
#define SA_THREADS 128
#endif
static_assert(SA_THREADS % SA_WARP == 0 && SA_THREADS <= 1024, "whole warps, at most 1024 threads a block");

#ifndef __CUDACC_RTC__
#include <cstdint>
#else
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
#endif

namespace sa {

enum Mode { GLOBAL = 0, SEMI = 1, GLOCAL = 2, LOCAL = 3 };
enum Op { OP_EQ = 0, OP_X = 1, OP_I = 2, OP_D = 3 };

// "minus infinity" for int32 lanes: scores are bounded by 2**29 (checked on
// the host), so NEG minus one extension never wraps and never wins a max.
constexpr int NEG = -(1 << 30);
// "minus infinity" for 16-bit lanes: below every score the host lets through
// (|score| < 2^14, gap costs below 2^8), and far enough from -2^15 that
// extensions never wrap.
constexpr int NEG16 = -(3 << 13);

struct Scoring {
  int match, mismatch, gap_open, gap_extend, n_penalty;
  bool eq_all;  // every pair of equal codes aligns as '=' (proteins); else only codes below 4 (DNA: N is X)
};

// Where a kernel takes its substitution scores (its SUB template argument): computed from match,
// mismatch and n_penalty; a query profile of signed bytes (every value at most 127); or a matrix of
// MATRIX_CODES x MATRIX_CODES int32 scores (row: the query's code) copied to shared memory.
constexpr int SUB_COMPUTED = 0, SUB_PROFILE = 1, SUB_MATRIX = 2;
constexpr int MATRIX_CODES = 32;

// The n runs (op, len) a walk wrote from the end of an alignment back to its start, put in forward order.
__device__ __forceinline__ void reverse_runs(uint8_t* op, int* len, int n) {
  for (int a = 0, b = n - 1; a < b; ++a, --b) {
    const uint8_t o = op[a]; op[a] = op[b]; op[b] = o;
    const int l = len[a]; len[a] = len[b]; len[b] = l;
  }
}

__device__ __forceinline__ int max3(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && !defined(__HIPCC__)
  return __vimax3_s32(a, b, c);
#else
  return max(max(a, b), c);
#endif
}

// max(a, b) and whether a won (a >= b): one DPX instruction on Hopper.
__device__ __forceinline__ int max_which(int a, int b, bool& a_won) {
#if defined(__CUDACC__) && !defined(__HIPCC__) && (__CUDACC_VER_MAJOR__ >= 12)
  return __vibmax_s32(a, b, &a_won);
#else
  a_won = a >= b;
  return a_won ? a : b;
#endif
}

__device__ __forceinline__ int subst(const Scoring& s, uint8_t a, uint8_t b) {
  int v = (a == b) ? s.match : -s.mismatch;
  return ((a | b) > 3) ? -s.n_penalty : v;
}

// Query profile: the scores of one query letter against target codes 0..4
// as signed bytes, codes 0-3 in lo and code 4 (N) in byte 0 of hi; usable
// when every scoring value is at most 127.
__device__ __forceinline__ void profile(const Scoring& s, uint8_t a, uint32_t& lo, uint32_t& hi) {
  lo = 0;
#pragma unroll
  for (int c = 0; c < 4; ++c) lo |= (uint32_t)(subst(s, a, (uint8_t)c) & 0xff) << (8 * c);
  hi = (uint32_t)(subst(s, a, 4) & 0xff);
}

// The selector that picks (sign-extended) byte c of a profile.
__device__ __forceinline__ uint32_t profile_selector(uint32_t c) {
  const uint32_t x = c | 8u;  // msb of a selector nibble: replicate the sign
  return c | (x << 4) | (x << 8) | (x << 12);
}

// PTX prmt (default mode): byte k of the result is byte (sel >> 4k) & 7 of
// (lo, hi), or that byte's sign replicated when bit 3 of the nibble is set.
__device__ __forceinline__ uint32_t byte_perm(uint32_t lo, uint32_t hi, uint32_t sel) {
#if defined(__CUDA_ARCH__) && !defined(__HIPCC__)
  uint32_t v;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(v) : "r"(lo), "r"(hi), "r"(sel));
  return v;
#else
  const unsigned long long both = ((unsigned long long)hi << 32) | lo;
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) {
    const uint32_t nib = (sel >> (4 * k)) & 15u;
    uint32_t b = (uint32_t)(both >> (8 * (nib & 7u))) & 0xffu;
    if (nib & 8u) b = (b & 0x80u) ? 0xffu : 0u;
    v |= b << (8 * k);
  }
  return v;
#endif
}

__device__ __forceinline__ int profile_score(uint32_t lo, uint32_t hi, uint32_t sel) {
  return (int)byte_perm(lo, hi, sel);
}

// The largest v over an aligned group of W lanes, the whole warp by default (every lane gets it).
template <int W = SA_WARP>
__device__ __forceinline__ int warp_max(int v) {
#pragma unroll
  for (int off = W / 2; off > 0; off /= 2) v = max(v, SA_SHFL_XOR(v, off));
  return v;
}

// Whether p holds for any lane of the warp (one vote).
__device__ __forceinline__ bool warp_any(bool p) { return SA_ANY(p) != 0; }

// Whether p holds for every lane of this lane's aligned group of T lanes (one vote for the warp).
template <int T>
__device__ __forceinline__ bool group_all(bool p) {
  const unsigned long long votes = SA_BALLOT(p);
  const unsigned long long mine = (T >= 64 ? ~0ull : ((1ull << T) - 1)) << ((threadIdx.x % SA_WARP) & ~(T - 1));
  return (votes & mine) == mine;
}

// H[i][0]: a leading query gap, free in semi-global and local modes.
__device__ __forceinline__ int left_value(int mode, int i, const Scoring& s) {
  return (i == 0 || mode == SEMI || mode == LOCAL) ? 0 : -(s.gap_open + i * s.gap_extend);
}

// H[0][j]: a leading target gap, charged in global mode only.
__device__ __forceinline__ int top_value(int mode, int j, const Scoring& s) {
  return (j == 0 || mode != GLOBAL) ? 0 : -(s.gap_open + j * s.gap_extend);
}

// End-cell order shared by every backend: higher score first, then the
// smaller query end, then the smaller target end.
__device__ __forceinline__ bool better(int s, int i, int j, int bs, int bi, int bj) {
  return s > bs || (s == bs && (i < bi || (i == bi && j < bj)));
}

// The best of (bs, bi, bj) over a group of G aligned lanes (every lane gets it).
template <int G>
__device__ __forceinline__ void group_best(int& bs, int& bi, int& bj) {
#pragma unroll
  for (int off = G / 2; off > 0; off /= 2) {
    const int os = SA_SHFL_XOR(bs, off), oi = SA_SHFL_XOR(bi, off), oj = SA_SHFL_XOR(bj, off);
    if (better(os, oi, oj, bs, bi, bj)) { bs = os; bi = oi; bj = oj; }
  }
}

// The best allowed end cell that needs no DP (lane 0 starts from it):
// the empty alignment in local and semi-global modes, the first column and
// row where the mode allows them, and the whole matrix when m == 0.
__device__ __forceinline__ void initial_end(int mode, int m, int n, const Scoring& sc, int& bs, int& bi, int& bj) {
  bs = NEG; bi = 0x7fffffff; bj = 0x7fffffff;
  if (mode == LOCAL) { bs = 0; bi = 0; bj = 0; }
  if (mode == SEMI) { bs = 0; bi = 0; bj = (m == 0) ? 0 : n; }
  if ((mode == GLOBAL || mode == GLOCAL) && m == 0) { bs = top_value(mode, n, sc); bi = 0; bj = (mode == GLOBAL) ? n : 0; }
  if (m > 0 && (mode == GLOCAL || (mode == GLOBAL && n == 0))) {
    const int v = left_value(mode, m, sc);
    if (better(v, m, 0, bs, bi, bj)) { bs = v; bi = m; bj = 0; }
  }
}

// End cells a lane sees at column j of its R rows (hl, from row i0): row m
// (glocal, semi; owns_m: the lane holds row m, in register r_m), column n
// (semi), (m, n) (global). Local mode keeps row maxima instead.
template <int MODE, int R>
__device__ __forceinline__ void end_cells(const int (&hl)[R], int j, int i0, int m, int n, bool owns_m, int r_m,
                                          int& bs, int& bi, int& bj) {
  if ((MODE == GLOCAL || MODE == SEMI || (MODE == GLOBAL && j == n)) && owns_m) {
    int v = hl[0];
#pragma unroll
    for (int r = 1; r < R; ++r) v = (r == r_m) ? hl[r] : v;
    if (better(v, m, j, bs, bi, bj)) { bs = v; bi = m; bj = j; }
  }
  if (MODE == SEMI && j == n) {
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (i0 + r < m && better(hl[r], i0 + r, n, bs, bi, bj)) { bs = hl[r]; bi = i0 + r; bj = n; }
  }
}

// ---- 16-bit lanes: two scores per 32-bit register (low half, high half) ----
// Hopper has these as single DPX instructions; CUDA emulates them on older
// GPUs, and HIP gets the plain versions below.
__device__ __forceinline__ uint32_t pk16(int lo, int hi) { return (uint32_t)(lo & 0xffff) | ((uint32_t)hi << 16); }
__device__ __forceinline__ int lo16(uint32_t v) { return (int)(short)(v & 0xffff); }
__device__ __forceinline__ int hi16(uint32_t v) { return (int)(short)(v >> 16); }
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
__device__ __forceinline__ uint32_t add_max16(uint32_t a, uint32_t b, uint32_t c) {
  return pk16(max(lo16(a) + lo16(b), lo16(c)), max(hi16(a) + hi16(b), hi16(c)));
}
__device__ __forceinline__ uint32_t max16(uint32_t a, uint32_t b) { return pk16(max(lo16(a), lo16(b)), max(hi16(a), hi16(b))); }
__device__ __forceinline__ uint32_t max16_relu(uint32_t a, uint32_t b) {
  return pk16(max(max(lo16(a), lo16(b)), 0), max(max(hi16(a), hi16(b)), 0));
}
__device__ __forceinline__ uint32_t max3_16(uint32_t a, uint32_t b, uint32_t c) { return max16(max16(a, b), c); }
__device__ __forceinline__ uint32_t max3_16_relu(uint32_t a, uint32_t b, uint32_t c) { return max16_relu(max16(a, b), c); }
__device__ __forceinline__ uint32_t gt16(uint32_t a, uint32_t b) {  // 0xffff in each half where a > b (as below)
  return (lo16(a) > lo16(b) ? 0xffffu : 0u) | (hi16(a) > hi16(b) ? 0xffff0000u : 0u);
}
__device__ __forceinline__ uint32_t add16(uint32_t a, uint32_t b) { return pk16(lo16(a) + lo16(b), hi16(a) + hi16(b)); }
__device__ __forceinline__ uint32_t max16_which(uint32_t a, uint32_t b, bool& lo_a, bool& hi_a) {
  lo_a = lo16(a) >= lo16(b);
  hi_a = hi16(a) >= hi16(b);
  return pk16(lo_a ? lo16(a) : lo16(b), hi_a ? hi16(a) : hi16(b));
}
__device__ __forceinline__ uint32_t sub16(uint32_t a, uint32_t b) { return pk16(lo16(a) - lo16(b), hi16(a) - hi16(b)); }
#else
__device__ __forceinline__ uint32_t add_max16(uint32_t a, uint32_t b, uint32_t c) { return __viaddmax_s16x2(a, b, c); }
__device__ __forceinline__ uint32_t max16(uint32_t a, uint32_t b) { return __vmaxs2(a, b); }
__device__ __forceinline__ uint32_t max16_relu(uint32_t a, uint32_t b) { return __vimax_s16x2_relu(a, b); }
__device__ __forceinline__ uint32_t max3_16(uint32_t a, uint32_t b, uint32_t c) { return __vimax3_s16x2(a, b, c); }
// per half max(a, b, c, 0)
__device__ __forceinline__ uint32_t max3_16_relu(uint32_t a, uint32_t b, uint32_t c) {
  return __vimax3_s16x2_relu(a, b, c);
}
__device__ __forceinline__ uint32_t add16(uint32_t a, uint32_t b) { return __vadd2(a, b); }  // wraps
// per-half max(a, b) and, per half, whether a won (a >= b): one DPX instruction on Hopper
__device__ __forceinline__ uint32_t max16_which(uint32_t a, uint32_t b, bool& lo_a, bool& hi_a) {
  return __vibmax_s16x2(a, b, &hi_a, &lo_a);
}
__device__ __forceinline__ uint32_t sub16(uint32_t a, uint32_t b) { return __vsub2(a, b); }  // wraps
// 0xffff in each half where a > b, for halves whose difference fits 16 bits:
// the sign of b - a, spread over its half (two instructions; __vcmpgts2,
// exact for any values, takes five)
__device__ __forceinline__ uint32_t gt16(uint32_t a, uint32_t b) { return byte_perm(sub16(b, a), 0u, 0xbb99u); }
#endif

// Two signed bytes of a pair of profiles, sign-extended into two 16-bit
// halves: byte sel_lo of (lo, hi) in the low half, byte sel_hi in the high
// half (selectors 0..7, as built by profile_selector16).
__device__ __forceinline__ uint32_t profile_score16(uint32_t lo, uint32_t hi, uint32_t sel) {
  return byte_perm(lo, hi, sel);
}

// Selector for profile_score16: byte a (0..3) of lo in the low half, byte b
// (0..3) of hi in the high half, each sign-extended.
__device__ __forceinline__ uint32_t profile_selector16(uint32_t a, uint32_t b) {
  return a | ((a | 8u) << 4) | ((b + 4u) << 8) | ((b + 12u) << 12);
}

// ---- the value types of the kernels' cells, shared by the families (each adds its own operations) ----

// One int32 cell a register.
struct I32Cells {
  using V = int;
  static constexpr int H = 1;  // problems a register
  __device__ static V neg() { return NEG; }
  __device__ static V splat(int x) { return x; }
  __device__ static V add(V a, V b) { return a + b; }
  __device__ static V vmax(V a, V b) { return max(a, b); }
  __device__ static V vmax3(V a, V b, V c) { return max3(a, b, c); }
  __device__ static int half(V x, int) { return x; }
};

// Two problems' cells in the low and high 16-bit halves of a register (one DPX instruction for both);
// minus infinity is NEG16.
struct S16x2Cells {
  using V = uint32_t;
  static constexpr int H = 2;
  __device__ static V neg() { return pk16(NEG16, NEG16); }
  __device__ static V splat(int x) { return pk16(x, x); }
  __device__ static V add(V a, V b) { return add16(a, b); }
  __device__ static V vmax(V a, V b) { return max16(a, b); }
  __device__ static V vmax3(V a, V b, V c) { return max3_16(a, b, c); }
  __device__ static int half(V x, int h) { return h ? hi16(x) : lo16(x); }
};

// ---- warps that wait for other warps (the triplet tile wave, the graph's stripe pipeline) ----

// A counter another warp raises (maybe on another multiprocessor), read past every cache.
__device__ __forceinline__ int load_count(const int* p) { return *(const volatile int*)p; }

// A value another multiprocessor wrote before it raised a counter: from L2 (past the vector L1 on AMD
// GPUs, where the L1 is not coherent within a multiprocessor either).
__device__ __forceinline__ int load_l2(const int* p) {
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
  return *(const volatile int*)p;
#else
  return __ldcg(p);
#endif
}

// 16 bytes of shared memory read where the code reads them: not moved out of a loop into registers that
// would stay live across it (volatile)
__device__ __forceinline__ uint4 load_shared_here(const uint4* p) {
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
  const volatile uint32_t* q = (const volatile uint32_t*)p;
  return make_uint4(q[0], q[1], q[2], q[3]);
#else
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"((unsigned)__cvta_generic_to_shared(p)));
  return v;
#endif
}

// ---- copies from global to shared memory that do not wait (no register on the way) ----

// cp.async: CUDA sm_80 and later
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800)
#define SA_CP_ASYNC 0
#else
#define SA_CP_ASYNC 1
#endif

// 16 bytes (both addresses 16-byte aligned), from L2 (cp.async.cg: past L1, so data another multiprocessor
// wrote is read as load_l2 reads it); without cp.async four load_l2 through registers. copy_async_wait: this
// thread's copies are done.
__device__ __forceinline__ void copy_async16(int4* smem, const int* gmem) {
#if !SA_CP_ASYNC
  *smem = make_int4(load_l2(gmem), load_l2(gmem + 1), load_l2(gmem + 2), load_l2(gmem + 3));
#else
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(smem)),
               "l"(gmem)
               : "memory");
#endif
}

// 16 bytes (16-byte aligned) read as load_l2 reads
__device__ __forceinline__ int4 load_l2x4(const int* p) {
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
  return make_int4(load_l2(p), load_l2(p + 1), load_l2(p + 2), load_l2(p + 3));
#else
  return __ldcg((const int4*)p);
#endif
}

__device__ __forceinline__ void copy_async_wait() {
#if SA_CP_ASYNC
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// A short pause (about NS nanoseconds on CUDA; none for NS = 0) while a warp waits.
template <int NS>
__device__ __forceinline__ void backoff() {
  if constexpr (NS > 0) {
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
    __builtin_amdgcn_s_sleep(2);
#else
    __nanosleep(NS);
#endif
  }
}

// The slices [lo, hi) of window q of a triplet (n1 + 1 slices) traced back in windows of m slices counted from
// the end: [max(0, hi - m), n1 + 1 - q*m), empty (lo = hi = 0) once hi <= 0; m = 0: every slice. Shared by the
// linear (triplet.cu) and the affine (triplet_affine.cu) kernels and their walks.
__device__ __forceinline__ void window_slices(int n1, int m, int q, int& lo, int& hi) {
  hi = m > 0 ? n1 + 1 - q * m : n1 + 1;
  lo = m > 0 ? max(0, hi - m) : 0;
  if (hi <= 0) lo = hi = 0;
}

}  // namespace sa
