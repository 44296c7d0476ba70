// triplet/layout.cuh: the byte layout of the traceback's codes (triplet_trace's dirs, described in triplet.cu),
// which the sweep stores (triplet_trace, triplet_trace16: CodeStore and the store functions below) and
// triplet_walk reads (CodeLayout::byte): per pass P = J*KT + K and wavefront step t (a window's steps counted
// from its first slice lo), a block of CW*T 32-bit words, word q of lane l at q*T + l, cell e = r*R + c of the
// lane's square in byte e % 4 of word e / 4. A byte is the cell's direction code (0..6, or START) or, for the
// values' kernels (VALS), the low byte of its value.
#pragma once
#include "common.cuh"
#include "triplet/args.cuh"
#include "triplet/lanes.cuh"

namespace tri {
using namespace sa;

// direction code of a cell where the alignment starts (codes 0..6: the column kind that won)
constexpr int START = 7;

// TRACE: 32-bit words of a lane's R x R direction codes at one step (row-major, four codes a word, the
// spare bytes of the last word 0)
template <int R>
struct Codes {
  static constexpr int WORDS = (R * R + 3) / 4;
};

// The slices whose codes a traceback launch keeps: all of 0..n1 (m = 0), or window q of a triplet traced
// back in windows of m slices, counted from the end: [lo, hi) = [max(0, hi - m), n1 + 1 - q*m), empty
// (lo = hi = 0) once hi <= 0. Returns the steps a pass of the window's codes holds: its slices and the
// wavefront's fill and drain (hi - lo + 2S - 2; m + 2S - 2 for every window of m).
template <int S>
__device__ __forceinline__ int window_of(int n1, int m, int q, int& lo, int& hi) {
  sa::window_slices(n1, m, q, lo, hi);
  return m > 0 ? m + 2 * S - 2 : n1 + 2 * S - 1;
}

// The layout of a shape (R x R squares, groups of T lanes): where the sweep's words and the walk's bytes are.
template <int R, int T>
struct CodeLayout {
  static constexpr int S = Side<T>::S, SR = S * R, CW = Codes<R>::WORDS;
  // the first word of the block of step ts of pass P (steps a pass, lo the first slice's); lane l's word q
  // is at block + q*T + l
  __device__ static int64_t block(int P, int steps, int ts, int lo) {
    return ((int64_t)P * steps + ts - lo) * (CW * T);
  }
  // the byte of cell (i, j, k) of a triplet whose rows are KT tiles wide
  __device__ static int64_t byte(int i, int j, int k, int64_t KT, int64_t steps, int lo) {
    const int J = j / SR, K = k / SR, jj = j - J * SR, kk = k - K * SR;
    const int u = jj / R, v = kk / R, e = (jj - u * R) * R + (kk - v * R);
    const int64_t x = (J * KT + K) * steps + (i - lo + u + v);
    return ((x * CW + e / 4) * T + u * S + v) * 4 + e % 4;
  }
};

// The sweep's side: each half's words (none for an empty semi-global triplet: no DP), laid out by the
// triplet's own lengths (its tiles and steps: what triplet_walk reads). A half writes the steps of its own
// tiles and of its window only (every slice 0..n1, or window wq of wslices: window_of): steps ts - lo of
// 0 .. steps - 1, slices ts - u - v past the window's included (the lane's own slots, which the walk does
// not read).
template <int R, int T, int H>
struct CodeStore {
  using Layout = CodeLayout<R, T>;
  uint32_t* dw[H];
  int ktd[H], jtd[H], std_[H], wlo[H];
  int lane;

  // win: the window of each half (its m and last slice, Slices in triplet/sweep.cuh); lane: the lane's index
  // in its group
  template <class Win>
  __device__ __forceinline__ void init(const Item<H>& it, const Win& win, int wq, uint8_t* __restrict__ dirs,
                                       const int64_t* __restrict__ dir_off, int lane_) {
    lane = lane_;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      int hi;
      std_[h] = window_of<Layout::S>(win.last(it, h), win.m(it, h), wq, wlo[h], hi);
      dw[h] = it.track[h] && hi > 0 ? (uint32_t*)(dirs + dir_off[it.p[h]]) : nullptr;
      jtd[h] = (it.n2[h] + Layout::SR) / Layout::SR;
      ktd[h] = (it.n3[h] + Layout::SR) / Layout::SR;
    }
  }

  // half h's block of the lane's words at step ts of tile (tj, tk), or none
  __device__ __forceinline__ uint32_t* block(int h, int tj, int tk, int ts) const {
    if (dw[h] == nullptr || tj >= jtd[h] || tk >= ktd[h] || (unsigned)(ts - wlo[h]) >= (unsigned)std_[h])
      return nullptr;
    return dw[h] + Layout::block(tj * ktd[h] + tk, std_[h], ts, wlo[h]) + lane;
  }
};

// A block of slice 0 of a semi-global triplet (a start face): every code START, or (VALS) every value's
// byte 0.
template <int R, int T, bool VALS>
__device__ __forceinline__ void store_start_block(uint32_t* dst) {
  constexpr int CW = Codes<R>::WORDS;
#pragma unroll
  for (int q = 0; q < CW; ++q)
    dst[q * T] = VALS ? 0u : (START * 0x01010101u) >> (q == CW - 1 ? 8 * (4 * CW - R * R) : 0);
}

// Row r's codes (code[h][c]) into each half's words, then the words the row completes to memory.
template <int R, int T, int H>
__device__ __forceinline__ void store_code_row(uint32_t* const (&dst)[H], uint32_t (&word)[H][Codes<R>::WORDS],
                                               const int (&code)[H][R], int r) {
  constexpr int CW = Codes<R>::WORDS;
#pragma unroll
  for (int h = 0; h < H; ++h) {
#pragma unroll
    for (int cx = 0; cx < R; ++cx) {
      const int e = r * R + cx;
      const uint32_t bits = (uint32_t)code[h][cx] << (8 * (e % 4));
      word[h][e / 4] = e % 4 == 0 ? bits : (word[h][e / 4] | bits);
    }
    if (dst[h] != nullptr) {
#pragma unroll
      for (int q = 0; q < CW; ++q) {
        const int last = min(4 * q + 3, R * R - 1);
        if (last >= r * R && last < (r + 1) * R) dst[h][q * T] = word[h][q];
      }
    }
  }
}

// VALS: the words row r completes, from the square's values: the low bytes of four cells (bytes 0 and 2 of a
// register: half 0's and half 1's) by byte permutes, 2 + H for a word of each half.
template <class L, int R, int T>
__device__ __forceinline__ void store_value_words(uint32_t* const (&dst)[L::H], const typename L::V (&hv)[R][R],
                                                  int r) {
  constexpr int CW = Codes<R>::WORDS;
#pragma unroll
  for (int q = 0; q < CW; ++q) {
    const int last = min(4 * q + 3, R * R - 1);
    if (last >= r * R && last < (r + 1) * R) {
      uint32_t c4[4];
#pragma unroll
      for (int e = 0; e < 4; ++e)
        c4[e] = 4 * q + e < R * R ? (uint32_t)L::bits(hv[(4 * q + e) / R][(4 * q + e) % R]) : 0u;
      const uint32_t x = byte_perm(c4[0], c4[1], 0x6240u), y = byte_perm(c4[2], c4[3], 0x6240u);
#pragma unroll
      for (int h = 0; h < L::H; ++h)
        if (dst[h] != nullptr) dst[h][q * T] = byte_perm(x, y, h ? 0x7632u : 0x5410u);
    }
  }
}

}  // namespace tri
