// triplet/ends.cuh: the end cells of the lane groups' sweep. Global: D(n1, n2, n3). Semi-global: the best cell
// of the end faces (i = n1, j = n2 or k = n3). Local: the best cell. Ties: the smallest (i, j, k) in
// lexicographic order (better4, every backend's order). Each lane keeps the best end cell it has seen
// (BestCells: the score in a register, its (i, j, k) in shared memory), looking for the first cell of a
// square's maximum only when that maximum may win (may_win) and is not below the best score of the group's
// lanes (refreshed every BEST_EVERY steps); local mode takes the square's maximum from its rows' maxima,
// which lead to its first cell (first_cell_rows); semi-global masks the face rows and columns by byte
// permutes (PastMasks). Cells past a sequence's end never beat the cell they project on, which comes first,
// so they need no masks. At the end the group reduces its lanes' cells by the same order.
#pragma once
#include "common.cuh"
#include "triplet/args.cuh"
#include "triplet/lanes.cuh"

namespace tri {
using namespace sa;

// Semi-global and local: steps between refreshes of the group's best end-cell score (warp_max<T>), below which
// a lane does not look for its square's first best cell. Measured, no other value gained: 2, 4, 8 and 16 within
// 1 % on an H100 (benchmarks/journal/2026-11-27.md), 1 and 2 1-3 % slower and 8 within 1 % on an H200
// (benchmarks/journal/2026-11-28.md, "Swept by defines on the final tree").
constexpr int BEST_EVERY = 4;

// End-cell order of every backend: higher score, then smaller i, j, k.
__device__ __forceinline__ bool better4(int s, int i, int j, int k, int bs, int bi, int bj, int bk) {
  return s > bs || (s == bs && (i < bi || (i == bi && (j < bj || (j == bj && k < bk)))));
}

// Whether a square whose first row is j0 and whose largest value at slice i
// is m may hold a better end cell than (bs, bi, bj, .): a tie can win only
// by a smaller (i, j, k), and a later tile of the same rows (several passes)
// revisits slice i with smaller j than cells of an earlier one.
__device__ __forceinline__ bool may_win(int m, int i, int j0, int bs, int bi, int bj) {
  return m > bs || (m == bs && (i < bi || (i == bi && j0 <= bj)));
}

// The best of (bs, bi, bj, bk) over an aligned group of T lanes (every lane gets it).
template <int T>
__device__ __forceinline__ void group_best4(int& bs, int& bi, int& bj, int& bk) {
#pragma unroll
  for (int off = T / 2; off > 0; off /= 2) {
    const int os = SA_SHFL_XOR(bs, off), oi = SA_SHFL_XOR(bi, off);
    const int oj = SA_SHFL_XOR(bj, off), ok = SA_SHFL_XOR(bk, off);
    if (better4(os, oi, oj, ok, bs, bi, bj, bk)) { bs = os; bi = oi; bj = oj; bk = ok; }
  }
}

// The first cell of the square in row-major order (its index r * R + c) whose half h is v, the largest of
// the cells (r, c) where in(r, c) holds (0 if none): scanned from the last cell back, so that the first
// match is the one written last; a cell matches where it is at least v (a compare and a select a cell)
template <class L, int R, class In>
__device__ __forceinline__ int first_cell(const typename L::V (&hv)[R][R], int v, int h, In in) {
  int e = 0;
#pragma unroll
  for (int q = R * R - 1; q >= 0; --q)
    if (L::ge(hv[q / R][q % R], v, h) & in(q / R, q % R)) e = q;
  return e;
}

// The first cell of the square in row-major order (r * R + c) whose half h is at least v, the square's
// largest, from its rows' maxima: the first row that holds v (a backward scan of R rows), then that row's
// cells picked by selects and scanned the same way (local mode: about 2R + R (R - 1) instructions where
// first_cell takes two or three a cell)
template <class L, int R>
__device__ __forceinline__ int first_cell_rows(const typename L::V (&hv)[R][R], const typename L::V (&rowm)[R],
                                               int v, int h) {
  int fr = R - 1;
#pragma unroll
  for (int r = R - 2; r >= 0; --r)
    if (L::ge(rowm[r], v, h)) fr = r;
  int fc = R - 1;
#pragma unroll
  for (int c = R - 2; c >= 0; --c) {
    typename L::V x = hv[0][c];
#pragma unroll
    for (int r = 1; r < R; ++r) x = fr == r ? hv[r][c] : x;
    if (L::ge(x, v, h)) fc = c;
  }
  return fr * R + fc;
}

// Semi-global's face masks: for x = 0 .. R-1, whether x >= f[h] (0 or all ones in half h; int32 lanes: the
// whole register), the rows r >= rf and columns c >= cf of a square. Word q holds in byte 2e + h the value
// 128 + (2q + e) - f[h], f[h] clamped to 0 .. 8 so that no byte borrows: its sign bit is set exactly where
// 2q + e >= f[h], and one byte permute spreads it over half h (one subtraction a word, one permute a mask,
// where each mask built from compares took five instructions).
template <class L, int R>
struct PastMasks {
  static_assert(R <= 8, "indices 0..7");
  uint32_t w[(R + 1) / 2];
  __device__ __forceinline__ explicit PastMasks(const int (&f)[L::H]) {
    const uint32_t f0 = (uint32_t)min(max(f[0], 0), 8), f1 = (uint32_t)min(max(f[L::H - 1], 0), 8);
    const uint32_t p = (f0 | f1 << 8) * 0x10001u;
#pragma unroll
    for (int q = 0; q < (R + 1) / 2; ++q) w[q] = 0x81818080u + 0x02020202u * q - p;
  }
  __device__ __forceinline__ typename L::V at(int x) const {
    return (typename L::V)byte_perm(w[x / 2], 0u, x % 2 ? 0xbbaau : 0x9988u);
  }
};

// A lane's best end cell of each half: the score in a register, its (i, j, k) in shared memory during the
// sweep (read and written only where a square may hold a better cell), field f of half h at
// bcell[(3 * h + f) * THREADS + x].
template <int H>
struct BestCells {
  int bsc[H];
  int* cellp;  // bcell + threadIdx.x
  __device__ __forceinline__ int& i(int h) const { return cellp[(3 * h) * THREADS]; }
  __device__ __forceinline__ int& j(int h) const { return cellp[(3 * h + 1) * THREADS]; }
  __device__ __forceinline__ int& k(int h) const { return cellp[(3 * h + 2) * THREADS]; }

  // none yet: global mode minus infinity; semi-global (0, 0, n3), the first end-face cell (0); local 0
  template <int MODE>
  __device__ __forceinline__ void init(int* bcell, const Item<H>& it) {
    cellp = bcell + threadIdx.x;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      bsc[h] = MODE == GLOBAL ? NEG : 0;
      i(h) = MODE == GLOBAL ? 0x7fffffff : 0;
      j(h) = MODE == GLOBAL ? 0x7fffffff : 0;
      k(h) = MODE == GLOBAL ? 0x7fffffff : (MODE == SEMI && it.track[h] ? it.n3[h] : 0);
    }
  }
};

// Local mode, the square of rows j0.. and columns k0.. at slice i: the square's largest from its rows'
// largest, which then point to its first cell.
template <class L, int R>
__device__ __forceinline__ void local_end(BestCells<L::H>& best, const typename L::V (&hv)[R][R],
                                          const Item<L::H>& it, const int (&gbest)[L::H], int i, int j0, int k0) {
  using V = typename L::V;
  constexpr int H = L::H;
  V rowm[R];
#pragma unroll
  for (int r = 0; r < R; ++r) rowm[r] = tree_max<L, R>(hv[r]);
  const V m = tree_max<L, R>(rowm);
#pragma unroll
  for (int h = 0; h < H; ++h) {
    const int mh = L::half(m, h);
    if (it.track[h] && mh >= gbest[h] && may_win(mh, i, j0, best.bsc[h], best.i(h), best.j(h))) {
      const int e = first_cell_rows<L, R>(hv, rowm, mh, h);
      const int fr = e / R, fc = e - fr * R;
      if (better4(mh, i, j0 + fr, k0 + fc, best.bsc[h], best.i(h), best.j(h), best.k(h))) {
        best.bsc[h] = mh; best.i(h) = i; best.j(h) = j0 + fr; best.k(h) = k0 + fc;
      }
    }
  }
}

// Semi-global mode (slices i > 0): the end faces, rows j >= n2, columns k >= n3, slices i >= n1 (cells past the
// ends never win).
template <class L, int R>
__device__ __forceinline__ void semi_end(BestCells<L::H>& best, const typename L::V (&hv)[R][R],
                                         const Item<L::H>& it, const int (&gbest)[L::H], int i, int j0, int k0) {
  using V = typename L::V;
  constexpr int H = L::H;
  bool face[H], any = false;
  int rf[H], cf[H];
#pragma unroll
  for (int h = 0; h < H; ++h) {
    rf[h] = i >= it.n1[h] ? 0 : it.n2[h] - j0;  // first face row of the square (all rows on the last slice)
    cf[h] = it.n3[h] - k0;
    face[h] = it.track[h] && (rf[h] < R || cf[h] < R);
    any |= face[h];
  }
  if (any) {
    V rowm[R], colm[R];
    const PastMasks<L, R> rmask(rf), cmask(cf);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      rowm[r] = hv[r][0];
#pragma unroll
      for (int cx = 1; cx < R; ++cx) rowm[r] = L::vmax(rowm[r], hv[r][cx]);
    }
#pragma unroll
    for (int cx = 0; cx < R; ++cx) {
      colm[cx] = hv[0][cx];
#pragma unroll
      for (int r = 1; r < R; ++r) colm[cx] = L::vmax(colm[cx], hv[r][cx]);
    }
    V m = L::neg();
#pragma unroll
    for (int r = 0; r < R; ++r) m = L::vmax(m, L::select(rmask.at(r), rowm[r], L::neg()));
#pragma unroll
    for (int cx = 0; cx < R; ++cx)
      m = L::vmax(m, L::select(cmask.at(cx), colm[cx], L::neg()));
#pragma unroll
    for (int h = 0; h < H; ++h) {
      const int mh = L::half(m, h);
      if (face[h] && mh >= gbest[h] && may_win(mh, i, j0, best.bsc[h], best.i(h), best.j(h))) {
        const int e = first_cell<L, R>(hv, mh, h, [&](int r, int cx) { return r >= rf[h] || cx >= cf[h]; });
        const int fr = e / R, fc = e - fr * R;
        if (better4(mh, i, j0 + fr, k0 + fc, best.bsc[h], best.i(h), best.j(h), best.k(h))) {
          best.bsc[h] = mh; best.i(h) = i; best.j(h) = j0 + fr; best.k(h) = k0 + fc;
        }
      }
    }
  }
}

// Global mode: cell (n1, n2, n3) where the square holds it (OFF: its offset 2g (n1 + n2 + n3) given back).
template <bool OFF, class L, int R>
__device__ __forceinline__ void global_end(BestCells<L::H>& best, const typename L::V (&hv)[R][R],
                                           const Item<L::H>& it, const Scoring& sc, int i, int j0, int k0) {
  using V = typename L::V;
  constexpr int H = L::H;
#pragma unroll
  for (int h = 0; h < H; ++h) {
    const int rr = it.n2[h] - j0, cc = it.n3[h] - k0;
    if (it.track[h] && i == it.n1[h] && rr >= 0 && rr < R && cc >= 0 && cc < R) {
      V e = hv[0][0];
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int cx = 0; cx < R; ++cx)
          if (r == rr && cx == cc) e = hv[r][cx];
      best.bsc[h] = L::half(e, h) - (OFF ? 2 * sc.gap_extend * (it.n1[h] + it.n2[h] + it.n3[h]) : 0);
      best.i(h) = it.n1[h]; best.j(h) = it.n2[h]; best.k(h) = it.n3[h];
    }
  }
}

// The end cells of the lane's square after slice i, by mode.
template <int MODE, bool OFF, class L, int R>
__device__ __forceinline__ void square_end_cells(BestCells<L::H>& best, const typename L::V (&hv)[R][R],
                                                 const Item<L::H>& it, const int (&gbest)[L::H], const Scoring& sc,
                                                 int i, int j0, int k0) {
  if (MODE == LOCAL) local_end<L, R>(best, hv, it, gbest, i, j0, k0);
  if (MODE == SEMI && i > 0) semi_end<L, R>(best, hv, it, gbest, i, j0, k0);
  if (MODE == GLOBAL) global_end<OFF, L, R>(best, hv, it, sc, i, j0, k0);
}

// Semi-global and local, every BEST_EVERY steps y: the group's best end-cell score.
template <int MODE, int T, int H>
__device__ __forceinline__ void refresh_group_best(int (&gbest)[H], const BestCells<H>& best, int y) {
  if (MODE != GLOBAL && y % BEST_EVERY == 0) {
#pragma unroll
    for (int h = 0; h < H; ++h) gbest[h] = warp_max<T>(best.bsc[h]);
  }
}

// After the sweep: the group's best cell of each half, by the end-cell order (every lane gets it).
template <int T, int H>
__device__ __forceinline__ void group_end_cells(BestCells<H>& best, int (&bi)[H], int (&bj)[H], int (&bk)[H]) {
#pragma unroll
  for (int h = 0; h < H; ++h) {
    bi[h] = best.i(h); bj[h] = best.j(h); bk[h] = best.k(h);
    group_best4<T>(best.bsc[h], bi[h], bj[h], bk[h]);
  }
}

// Each half's score and end cell into out (triplet p's row: score, i, j, k), by the lane that writes (write); a
// semi-global triplet with an empty sequence scores 0 at (0, 0, 0). WIN: a window below the last (wq > 0)
// leaves out alone (the end cells are window 0's).
template <bool WIN, int H>
__device__ __forceinline__ void write_end_cells(int* __restrict__ out, const Item<H>& it, const int (&bsc)[H],
                                                const int (&bi)[H], const int (&bj)[H], const int (&bk)[H],
                                                bool write, int wq) {
#pragma unroll
  for (int h = 0; h < H; ++h) {
    if (it.p[h] >= 0 && write && !(WIN && wq > 0)) {
      int* o = out + 4 * (int64_t)it.p[h];
      if (it.track[h]) { o[0] = bsc[h]; o[1] = bi[h]; o[2] = bj[h]; o[3] = bk[h]; }
      else { o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0; }  // semi-global with an empty sequence
    }
  }
}

}  // namespace tri
