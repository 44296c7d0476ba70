// triplet/borders.cuh: the borders of a lane's square. Before each step a lane takes, by shuffles, the last
// row of lane (u-1, v) with its left neighbour's corner in front (R + 1 values) and the last column of lane
// (u, v-1) (R values): the previous step's squares, so slice i-1's (neighbour_borders). Lanes of a tile's top
// row and left column read them from memory where the item has a tile above (J > 0) or on the left (K > 0),
// minus infinity elsewhere (j = -1, k = -1).
//
// In memory (Borders; the host's border scratch of each work item that needs several passes, at
// border + border_off[p], p the item's first triplet): a plane of (N1 + 1) x W ints, row J*S*R - 1 of the
// slice for each i, in chunks of BROW ints a lane column c = K*S + v (W = KT*S*BROW: the cell at column k0 - 1,
// the corner, then columns k0 .. k0 + R - 1), then (N1 + 1) x (S*BCOL) ints, the last column of the previous
// tile in chunks of BCOL ints a lane row u (rows u*R .. u*R + R - 1); the tile wave has one such column buffer
// for each tile row J. BROW and BCOL are R + 1 and R rounded up to 4 (16-byte words; spare ints 0). The bottom
// lanes write their last row into the plane, read by the top lanes of tile (J+1, K); the right lanes their
// last column into the column buffer, read by the left lanes of tile (J, K+1) (write_borders).
//
// Reads: groups of 4 lanes, and of 16 with squares up to 7 (TRIPLET_OPT_ASYNC16), copy each step's borders to
// shared memory a step ahead (cp.async, no register on the way: borders_ahead); windows, and squares of 8
// and more (whose buffers and B-C scores would pass 48 KB of shared memory), read them from L2 at the step
// (borders_at_step).
#pragma once
#include "common.cuh"
#include "triplet/args.cuh"
#include "triplet/lanes.cuh"
#include "triplet/wave.cuh"

namespace tri {
using namespace sa;

// N ints (a multiple of 4) in 16-byte words: to memory (16-byte aligned), from memory as load_l2 reads, and
// from shared memory (word q at p[q * stride])
template <int N>
__device__ __forceinline__ void store_words(int* p, const int (&x)[N]) {
#pragma unroll
  for (int q = 0; q < N / 4; ++q)
    reinterpret_cast<int4*>(p)[q] = make_int4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]);
}
template <int N>
__device__ __forceinline__ void load_words(const int* p, int (&x)[N]) {
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const int4 w = load_l2x4(p + 4 * q);
    x[4 * q] = w.x; x[4 * q + 1] = w.y; x[4 * q + 2] = w.z; x[4 * q + 3] = w.w;
  }
}
template <int N>
__device__ __forceinline__ void unpack_words(const int4* p, int stride, int (&x)[N]) {
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const int4 w = p[q * stride];
    x[4 * q] = w.x; x[4 * q + 1] = w.y; x[4 * q + 2] = w.z; x[4 * q + 3] = w.w;
  }
}

// A work item's borders in memory (above), and where a lane's are at slice i.
template <int R, int S>
struct Borders {
  // a lane's borders, each a whole number of 16-byte words: the row above its square (R + 1 values, the
  // corner first) in BROW ints, the column on its left (R values) in BCOL ints; NQ words both
  static constexpr int BROW = (R + 4) / 4 * 4, BCOL = (R + 3) / 4 * 4, NQ = (BROW + BCOL) / 4;
  int W;  // ints of the plane a slice
  int* plane;
  int* colb;  // the column buffer (the wave: the group's tile row's)

  // multi: the item has several tiles (KT a row); the wave: the column buffer of tile row J0
  template <bool WAVE, int H>
  __device__ __forceinline__ void init(int* __restrict__ border, const int64_t* __restrict__ border_off, bool multi,
                                       const Item<H>& it, int KT, int J0) {
    W = KT * S * BROW;
    plane = border + (multi ? border_off[it.p[0] >= 0 ? it.p[0] : it.p[H - 1]] : 0);
    colb = plane + (int64_t)(it.N1 + 1) * W + (WAVE ? (int64_t)J0 * (it.N1 + 1) * S * BCOL : 0);
  }
  // this step's borders in memory: the row above (plane: a chunk of BROW ints a lane column K*S + v, the
  // corner, column k0 - 1, first) and the column on the left (column buffer: a chunk of BCOL ints a lane
  // row u); read by the top and left lanes, written by the bottom and right lanes of the tiles before
  __device__ __forceinline__ const int* row(int i, int K, int v) const {
    return plane + (int64_t)i * W + (K * S + v) * BROW;
  }
  __device__ __forceinline__ const int* col(int i, int u) const { return colb + (int64_t)i * (S * BCOL) + u * BCOL; }
};

// The borders from lanes (u-1, v) and (u, v-1), their squares after the last step (minus infinity in groups
// of one lane).
template <class L, int R, int S, int T>
__device__ __forceinline__ void neighbour_borders(const Square<L, R>& sq, typename L::V (&nup)[R + 1],
                                                  typename L::V (&nlf)[R]) {
#pragma unroll
  for (int r = 0; r < R; ++r) nup[r] = nlf[r] = L::neg();
  nup[R] = L::neg();
  if (S > 1) {
    nup[0] = L::from_bits(SA_SHFL_UP_W(L::bits(sq.lfc[R - 1]), S, T));
#pragma unroll
    for (int cx = 0; cx < R; ++cx) nup[cx + 1] = L::from_bits(SA_SHFL_UP_W(L::bits(sq.hv[R - 1][cx]), S, T));
#pragma unroll
    for (int r = 0; r < R; ++r) nlf[r] = L::from_bits(SA_SHFL_UP_W(L::bits(sq.hv[r][R - 1]), 1, T));
  }
}

// A lane's borders of one step into its buffer in shared memory (fu: the row above, fl: the column on the left),
// without waiting.
template <int R, int S>
__device__ __forceinline__ void copy_borders(int4* buf, bool fu, bool fl, const int* above, const int* left) {
  using B = Borders<R, S>;
  if (fu) {
#pragma unroll
    for (int q = 0; q < B::BROW / 4; ++q) copy_async16(buf + q * THREADS, above + 4 * q);
  }
  if (fl) {
#pragma unroll
    for (int q = 0; q < B::BCOL / 4; ++q) copy_async16(buf + (B::BROW / 4 + q) * THREADS, left + 4 * q);
  }
}

// ASYNC, step x of the group (slice i, step t of the pass's steps, span + 1 slices): borders written at earlier
// passes by this warp (the sweep), or by other groups (the wave: copied only once the counts allow them, after
// the fence that follows the counts); each step's are copied to shared memory a step ahead (copy_async16), their
// latency off the step's path (now, where they were not: ahead). Word q of the buffer of step x at
// bord[((x & 1) * NQ + q) * THREADS + thread]: the row's chunk, then the column's. fu, fl, fc: whether the lane
// reads the row above, the column on the left, the corner from memory.
template <bool WAVE, class L, int R, int S>
__device__ __forceinline__ void borders_ahead(Square<L, R>& sq, const typename L::V (&nup)[R + 1],
                                              const typename L::V (&nlf)[R], int4* bord, int x, bool& ahead,
                                              const Borders<R, S>& bd, const int* row, const int* col, bool fu,
                                              bool fl, bool fc, const Wave& wv, int t, int steps, int span, int i,
                                              int N1, int u, int v, int J, int K) {
  using B = Borders<R, S>;
  int4* buf = bord + (x & 1) * B::NQ * THREADS + threadIdx.x;
  if (!ahead) copy_borders<R, S>(buf, fu, fl, row, col);
  copy_async_wait();
  int rv[B::BROW], cv[B::BCOL];
  unpack_words(buf, THREADS, rv);
  unpack_words(buf + B::BROW / 4 * THREADS, THREADS, cv);
#pragma unroll
  for (int r = 1; r <= R; ++r) sq.upc[r] = u > 0 ? nup[r] : fu ? L::from_bits(rv[r]) : L::neg();
  sq.upc[0] = u > 0 ? nup[0] : fc ? L::from_bits(rv[0]) : L::neg();
#pragma unroll
  for (int r = 0; r < R; ++r) sq.lfc[r] = v > 0 ? nlf[r] : fl ? L::from_bits(cv[r]) : L::neg();
  // the next step's, where it is of this pass (slice i + 1)
  // (the wave: once the counts this lane read, and the fence after them, allow the next step)
  ahead = t + 1 < steps && next_allowed<WAVE>(wv, t, span);
  if (ahead) {
    const bool in1 = i + 1 >= 0 && i + 1 <= N1;
    const bool fu1 = u == 0 && J > 0 && in1, fl1 = v == 0 && K > 0 && in1;
    copy_borders<R, S>(bord + ((x + 1) & 1) * B::NQ * THREADS + threadIdx.x, fu1, fl1, row + bd.W,
                       col + S * B::BCOL);
  }
}

// Windows (and TRIPLET_OPT_ASYNC16=0: groups of 16 lanes and the tile wave, borders from other multiprocessors
// once their counts allow): from L2 (load_l2x4), when the step needs them; step_fence orders the warp's own
// lanes. WIN: a window's borders of slice lo0 - 1 from its checkpoint (pre; win.ck_cell).
template <bool WIN, class L, int R, int S, class Win, int H>
__device__ __forceinline__ void borders_at_step(Square<L, R>& sq, const typename L::V (&nup)[R + 1],
                                                const typename L::V (&nlf)[R], const int* row, const int* col,
                                                bool fu, bool fl, bool fc, const Win& win, const Item<H>& it, int i,
                                                int u, int v, int j0, int k0) {
  using B = Borders<R, S>;
  const bool pre = WIN && win.lo0 > 0 && i == win.lo0 - 1;
  int rv[B::BROW] = {}, cv[B::BCOL] = {};
  if (fu && !pre) load_words(row, rv);
  if (fl && !pre) load_words(col, cv);
#pragma unroll
  for (int r = 1; r <= R; ++r)
    sq.upc[r] = u > 0 ? nup[r] : pre ? win.ck_cell(it, j0 - 1, k0 + r - 1) : fu ? L::from_bits(rv[r]) : L::neg();
  sq.upc[0] = u > 0 ? nup[0] : pre ? win.ck_cell(it, j0 - 1, k0 - 1) : fc ? L::from_bits(rv[0]) : L::neg();
#pragma unroll
  for (int r = 0; r < R; ++r)
    sq.lfc[r] = v > 0 ? nlf[r] : pre ? win.ck_cell(it, j0 + r, k0 - 1) : fl ? L::from_bits(cv[r]) : L::neg();
}

// Borders for the next tiles, in 16-byte stores: the bottom lanes' row with the corner in front (the last
// value of the column on the left: cell (j0 + R - 1, k0 - 1)), the right lanes' column; spare ints 0. Tile
// (J, K) of JT x KT.
template <class L, int R, int S>
__device__ __forceinline__ void write_borders(const Square<L, R>& sq, const int* row, const int* col, int J, int JT,
                                              int K, int KT, int u, int v) {
  using B = Borders<R, S>;
  if (J < JT - 1 && u == S - 1) {
    int x4[B::BROW] = {};
    x4[0] = L::bits(sq.lfc[R - 1]);
#pragma unroll
    for (int cx = 0; cx < R; ++cx) x4[1 + cx] = L::bits(sq.hv[R - 1][cx]);
    store_words(const_cast<int*>(row), x4);
  }
  if (K < KT - 1 && v == S - 1) {
    int x4[B::BCOL] = {};
#pragma unroll
    for (int r = 0; r < R; ++r) x4[r] = L::bits(sq.hv[r][R - 1]);
    store_words(const_cast<int*>(col), x4);
  }
}

}  // namespace tri
