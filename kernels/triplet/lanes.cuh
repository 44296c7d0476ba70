// triplet/lanes.cuh: the lanes of the triplet kernels. A group of T = S*S lanes aligns one work item
// (Side<T>); a lane holds its cells in registers of one of two lane types: Lane32 (one int32 cell a
// register, one triplet a group) or Lane16 (two triplets' cells in the low and high 16-bit halves of a
// register, one DPX instruction for both). Each type adds to common.cuh's cell values the pair scores
// from byte profiles (profile6: a code against codes 0..5, PAD past a sequence's end), masks and compares
// a half at a time; then the 3-way maxima of a row and the warp's order between steps.
#pragma once
#include "common.cuh"

namespace tri {
using namespace sa;

// code of a position past a sequence's end (and of the residue-less row,
// column and slice 0): scores -g against anything
constexpr int PAD = 5;

template <int T>
struct Side {
  static constexpr int S = T == 1 ? 1 : T == 4 ? 2 : T == 16 ? 4 : T == 64 ? 8 : 0;
  static_assert(S > 0 && T <= SA_WARP, "T: 1, 4, 16 (64 on a 64-wide warp)");
};

// Pair scores of code x against codes 0..5 as signed bytes: 0..3 in lo,
// 4 (N) in byte 0 of hi, 5 (pad) in byte 1 of hi.
__device__ __forceinline__ void profile6(const Scoring& s, int x, uint32_t& lo, uint32_t& hi) {
  const uint32_t g = (uint32_t)(-s.gap_extend) & 0xffu;
  if (x == PAD) {
    lo = g * 0x01010101u;
    hi = g | (g << 8);
    return;
  }
  const uint32_t nb = (uint32_t)(-s.n_penalty) & 0xffu;
  if (x > 3) {
    lo = nb * 0x01010101u;
  } else {
    lo = ((uint32_t)(-s.mismatch) & 0xffu) * 0x01010101u;
    lo = (lo & ~(0xffu << (8 * x))) | (((uint32_t)s.match & 0xffu) << (8 * x));
  }
  hi = nb | (g << 8);
}

// ---- lane types: one int32 cell a register, or two 16-bit cells ----

struct Lane32 : I32Cells {
  __device__ static V addmax(V a, V b, V c) { return max(a + b, c); }  // one VIADDMNMX on sm_90
  __device__ static V addmax0(V a, V b, V c) { return max(max(a + b, c), 0); }
  __device__ static int bits(V x) { return x; }
  __device__ static V from_bits(int x) { return x; }
  // the pair scores of the (one) half against letter sel (profile_selector)
  __device__ static V score(const uint32_t (&lo)[1], uint32_t hi, const uint32_t (&sel)[1]) {
    return profile_score(lo[0], hi, sel[0]);
  }
  __device__ static uint32_t selector(int code, int) { return profile_selector((uint32_t)code); }
  // the profile words of codes x[h] (hi: bytes 0, 1 of the half)
  __device__ static void profiles(const Scoring& s, const int (&x)[1], uint32_t (&lo)[1], uint32_t& hi) {
    profile6(s, x[0], lo[0], hi);
  }
  // row masks: 0 or all ones (per half)
  __device__ static V mask(bool m0, bool) { return m0 ? -1 : 0; }
  __device__ static V select(V m, V a, V b) { return (a & m) | (b & ~m); }
  // whether half h of x is v (v: its value as L::half gives it); whether it is at least v
  __device__ static bool eq(V x, int v, int) { return x == v; }
  __device__ static bool ge(V x, int v, int) { return x >= v; }
};

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
__device__ __forceinline__ uint32_t add_max16_relu(uint32_t a, uint32_t b, uint32_t c) {
  return pk16(max(max(lo16(a) + lo16(b), lo16(c)), 0), max(max(hi16(a) + hi16(b), hi16(c)), 0));
}
#else
__device__ __forceinline__ uint32_t add_max16_relu(uint32_t a, uint32_t b, uint32_t c) {
  return __viaddmax_s16x2_relu(a, b, c);
}
#endif

// 16-bit lanes: finite values stay within +-16000 (host bound), so minus infinity (NEG16) plus three
// pair scores never wraps and never wins
struct Lane16 : S16x2Cells {
  __device__ static V addmax(V a, V b, V c) { return add_max16(a, b, c); }
  __device__ static V addmax0(V a, V b, V c) { return add_max16_relu(a, b, c); }
  __device__ static int bits(V x) { return (int)x; }
  __device__ static V from_bits(int x) { return (uint32_t)x; }
  // low half: byte sel[0] of (lo[0], hi); high half: byte sel[1] of (lo[1], hi)
  __device__ static V score(const uint32_t (&lo)[2], uint32_t hi, const uint32_t (&sel)[2]) {
    const uint32_t l = byte_perm(lo[0], hi, sel[0]), h = byte_perm(lo[1], hi, sel[1]);
    return byte_perm(l, h, 0x5410u);
  }
  // hi holds bytes N, pad of half 0 then of half 1: half 1's are bytes 6, 7
  __device__ static uint32_t selector(int code, int h) {
    return profile_selector((uint32_t)(h && code > 3 ? code + 2 : code));
  }
  __device__ static void profiles(const Scoring& s, const int (&x)[2], uint32_t (&lo)[2], uint32_t& hi) {
    uint32_t h0, h1;
    profile6(s, x[0], lo[0], h0);
    profile6(s, x[1], lo[1], h1);
    hi = (h0 & 0xffffu) | (h1 << 16);
  }
  __device__ static V mask(bool m0, bool m1) { return (m0 ? 0xffffu : 0u) | (m1 ? 0xffff0000u : 0u); }
  __device__ static V select(V m, V a, V b) { return (a & m) | (b & ~m); }
  // whether half h of x is v, without taking the half out (32-bit operations: the halves of the cells
  // stay one register for the compiler too)
  __device__ static bool eq(V x, int v, int h) { return ((x ^ pk16(v, v)) & (h ? 0xffff0000u : 0xffffu)) == 0; }
  // whether half h of x is at least v: one 32-bit compare with the half on top (the half below it only
  // adds a fraction)
  __device__ static bool ge(V x, int v, int h) { return (int)(h ? x : x << 16) >= (int)((uint32_t)v << 16); }
};

// A lane's R x R square of cells and its borders, in registers: the square (hv: slice i-1 before a step,
// slice i after), the row above with its left neighbour's corner first (upc: slice i, upp: slice i-1) and the
// column on the left (lfc: slice i, lfp: slice i-1).
template <class L, int R>
struct Square {
  typename L::V hv[R][R];
  typename L::V upc[R + 1], upp[R + 1];
  typename L::V lfc[R], lfp[R];
};

// The largest of x[0 .. N) by 3-way maxima, level by level (ceil((N - 1) / 2) instructions).
template <class L, int N>
__device__ __forceinline__ typename L::V tree_max(const typename L::V (&x)[N]) {
  if constexpr (N == 1) {
    return x[0];
  } else if constexpr (N == 2) {
    return L::vmax(x[0], x[1]);
  } else {
    constexpr int M = (N + 2) / 3;
    typename L::V y[M];
#pragma unroll
    for (int q = 0; q < M; ++q) {
      const int e = 3 * q;
      if (e + 2 < N) y[q] = L::vmax3(x[e], x[min(e + 1, N - 1)], x[min(e + 2, N - 1)]);
      else if (e + 1 < N) y[q] = L::vmax(x[e], x[min(e + 1, N - 1)]);
      else y[q] = x[e];
    }
    return tree_max<L, M>(y);
  }
}

// The warp's memory order between the steps of a multi-pass sweep.
__device__ __forceinline__ void step_fence() {
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
  __threadfence_block();
#else
  SA_SYNCWARP();
#endif
}

}  // namespace tri
