// triplet/small.cuh: the sweep of triplet_small16, one thread a work item of two triplets (16-bit halves),
// score only. Every triplet of the launch has n2 < Q and n3 < Q: the thread holds the whole (j, k) slice of
// both triplets (Q x Q registers, rows j and columns k from 0, those past a triplet's ends computed with the pad
// code) and sweeps i, each slice in one pass of its cells in row-major order, no shuffles, no borders. Row 0,
// column 0 and slice 0 take only the moves that exist there (semi-global: 0 without DP). B-C pair scores of
// rows and columns 1..Q-1 in shared memory, as the lane groups' sweep keeps them. Global mode holds
// D + 2g (i + j + k) (six instructions a cell); semi-global and local take each row's largest candidate and
// search for the first best cell only in the rows whose largest beats the best so far.
#pragma once
#include "common.cuh"
#include "triplet/args.cuh"
#include "triplet/lanes.cuh"
#include "triplet/cell.cuh"

namespace tri {
using namespace sa;

// A thread's two triplets (item_triplet's, -1: none) and the loop's extent N1 (the largest n1 with a DP), with
// the selectors of the B codes of rows 1..Q-1 and the C codes of columns 1..Q-1.
template <int Q>
struct SmallItem {
  static constexpr int H = 2;
  int p[H], n1[H], n2[H], n3[H];
  const uint8_t *as[H], *bs[H], *cs[H];
  bool track[H];
  int N1;
  uint32_t bsel[Q][H], csel[Q][H];
};

// Work item w's triplets (order[2w], order[2w + 1]).
template <int MODE, int Q>
__device__ __forceinline__ void small_item(SmallItem<Q>& it, int64_t w, const int* __restrict__ order,
                                           const uint8_t* __restrict__ a, const int64_t* __restrict__ aoff,
                                           const uint8_t* __restrict__ b, const int64_t* __restrict__ boff,
                                           const uint8_t* __restrict__ c, const int64_t* __restrict__ coff) {
  using L = Lane16;
  constexpr int H = 2;
  it.N1 = 0;
#pragma unroll
  for (int h = 0; h < H; ++h) {
    it.p[h] = order[H * w + h];
    const ItemTriplet t = item_triplet<MODE>(it.p[h], a, aoff, b, boff, c, coff);
    it.n1[h] = t.n1; it.n2[h] = t.n2; it.n3[h] = t.n3;
    it.as[h] = t.a; it.bs[h] = t.b; it.cs[h] = t.c;
    it.track[h] = t.track;
    it.N1 = max(it.N1, it.track[h] ? it.n1[h] : 0);
  }
#pragma unroll
  for (int r = 1; r < Q; ++r) {
    int cb[H], cc[H];
#pragma unroll
    for (int h = 0; h < H; ++h) {
      cb[h] = r <= it.n2[h] ? it.bs[h][r - 1] : PAD;
      cc[h] = r <= it.n3[h] ? it.cs[h][r - 1] : PAD;
    }
#pragma unroll
    for (int h = 0; h < H; ++h) {
      it.bsel[r][h] = L::selector(cb[h], h);
      it.csel[r][h] = L::selector(cc[h], h);
    }
  }
}

// The B-C pair scores (+ g2) of rows and columns 1..Q-1, row-major, cell e in component e % 4 of word e / 4 (word
// q at mybc[q * THREADS]).
template <int Q>
__device__ __forceinline__ void small_bc_scores(uint4* mybc, const SmallItem<Q>& it, const Scoring& sc, Lane16::V g2) {
  using L = Lane16;
  constexpr int H = 2;
  constexpr int E = (Q - 1) * (Q - 1), BQ = (E + 3) / 4;
#pragma unroll
  for (int q = 0; q < BQ; ++q) {
    uint32_t word[4];
#pragma unroll
    for (int e = 4 * q; e < 4 * q + 4; ++e) {
      uint32_t x = 0;
      if (e < E) {
        // C's profile against B's selector (pair scores are symmetric)
        const int r = e / (Q - 1) + 1, cx = e % (Q - 1) + 1;
        int cc[H];
#pragma unroll
        for (int h = 0; h < H; ++h) cc[h] = cx <= it.n3[h] ? it.cs[h][cx - 1] : PAD;
        uint32_t lo[H], hi;
        L::profiles(sc, cc, lo, hi);
        x = L::add(L::score(lo, hi, it.bsel[r]), g2);
      }
      word[e % 4] = x;
    }
    mybc[q * THREADS] = make_uint4(word[0], word[1], word[2], word[3]);
  }
}

// Slice 0: the moves within the slice (a, B, C); global's origin 0, local floored at 0.
template <int MODE, bool OFF, int Q>
__device__ __forceinline__ void small_slice0(Lane16::V (&hv)[Q][Q], const uint4* mybc, Lane16::V vng2) {
  using L = Lane16;
  using V = L::V;
#pragma unroll
  for (int r = 0; r < Q; ++r) {
#pragma unroll
    for (int cx = 0; cx < Q; ++cx) {
      V x;
      if (MODE == SEMI || (r == 0 && cx == 0)) {
        x = L::splat(0);
      } else {
        V y;
        if (r > 0 && cx > 0) {
          const int e = (r - 1) * (Q - 1) + cx - 1;
          const uint4 wd = mybc[(e / 4) * THREADS];
          const V sbc = e % 4 == 0 ? wd.x : e % 4 == 1 ? wd.y : e % 4 == 2 ? wd.z : wd.w;
          y = L::addmax(hv[r - 1][cx - 1], sbc, L::vmax(hv[r - 1][cx], hv[r][cx - 1]));
        } else {
          y = r > 0 ? hv[r - 1][cx] : hv[r][cx - 1];
        }
        x = MODE == LOCAL ? L::vmax(L::add(y, vng2), L::splat(0)) : OFF ? y : L::add(y, vng2);
      }
      hv[r][cx] = x;
    }
  }
}

// Slice i > 0, row by row: A's letter in each half and its pair scores against the rows and the columns, then
// the cells (row 0, column 0: the moves that exist there).
template <int MODE, bool OFF, int Q>
__device__ __forceinline__ void small_slice(Lane16::V (&hv)[Q][Q], const uint4* mybc, const SmallItem<Q>& it,
                                            const Scoring& sc, int i, Lane16::V g2, Lane16::V vng2) {
  using L = Lane16;
  using V = L::V;
  V sab[Q], sac[Q];
  a_pair_scores<L, Q, 1>(sc, it.as, it.n1, i, it.bsel, it.csel, sab, sac);
  if (OFF) {
#pragma unroll
    for (int r = 1; r < Q; ++r) {
      sab[r] = L::add(sab[r], g2);
      sac[r] = L::add(sac[r], g2);
    }
  }
  V prow[Q];  // row r-1 of slice i-1 (hv held it before row r-1 took slice i)
#pragma unroll
  for (int r = 0; r < Q; ++r) {
    V old[Q];  // row r of slice i-1
#pragma unroll
    for (int cx = 0; cx < Q; ++cx) old[cx] = hv[r][cx];
    uint4 wd;
#pragma unroll
    for (int cx = 0; cx < Q; ++cx) {
      const V pv = old[cx];
      V x;
      if (MODE == SEMI && (r == 0 || cx == 0)) {
        x = L::splat(0);  // start faces
      } else if (r > 0 && cx > 0) {
        const int e = (r - 1) * (Q - 1) + cx - 1;
        if (cx == 1 || e % 4 == 0) wd = load_shared_here(mybc + (e / 4) * THREADS);
        const V sbc = e % 4 == 0 ? wd.x : e % 4 == 1 ? wd.y : e % 4 == 2 ? wd.z : wd.w;
        x = cell<MODE, OFF, L>({prow[cx - 1], prow[cx], old[cx - 1], pv, hv[r - 1][cx - 1], hv[r - 1][cx],
                                hv[r][cx - 1]}, sab[r], sac[cx], sbc, vng2);
      } else {
        // column 0: A, c and B; row 0: A, b and C; the corner: A
        V y = pv;
        if (r > 0) y = L::vmax(L::addmax(prow[0], sab[r], pv), hv[r - 1][0]);
        if (cx > 0) y = L::vmax(L::addmax(old[cx - 1], sac[cx], pv), hv[0][cx - 1]);
        x = MODE == LOCAL ? L::addmax0(y, vng2, L::neg()) : OFF ? y : L::add(y, vng2);
      }
      hv[r][cx] = x;
    }
#pragma unroll
    for (int cx = 0; cx < Q; ++cx) prow[cx] = old[cx];
  }
}

// Global mode, slice i: cell (n2, n3) of each half at its slice n1, the offset given back.
template <int Q>
__device__ __forceinline__ void small_global_end(const Lane16::V (&hv)[Q][Q], const SmallItem<Q>& it, int i,
                                                 const Scoring& sc, int (&bsc)[2], int (&bi)[2], int (&bj)[2],
                                                 int (&bk)[2]) {
  using L = Lane16;
  using V = L::V;
  constexpr int H = 2;
  if (i == it.n1[0] || i == it.n1[1]) {
    // cell (n2, n3) of each half by masks (an index into the registers would copy them to memory)
    V e = L::neg();
#pragma unroll
    for (int r = 0; r < Q; ++r)
#pragma unroll
      for (int cx = 0; cx < Q; ++cx)
        e = L::vmax(e, L::select(L::mask(r == it.n2[0] && cx == it.n3[0], r == it.n2[1] && cx == it.n3[1]),
                                 hv[r][cx], L::neg()));
#pragma unroll
    for (int h = 0; h < H; ++h) {
      if (it.track[h] && i == it.n1[h]) {
        bsc[h] = L::half(e, h) - 2 * sc.gap_extend * (it.n1[h] + it.n2[h] + it.n3[h]);
        bi[h] = i; bj[h] = it.n2[h]; bk[h] = it.n3[h];
      }
    }
  }
}

// Semi-global (slices i > 0) and local mode, slice i: the best cell of each half, where it beats the best so far.
template <int MODE, int Q>
__device__ __forceinline__ void small_best_cells(const Lane16::V (&hv)[Q][Q], const SmallItem<Q>& it, int i,
                                                 bool side_q, int last, int (&bsc)[2], int (&bi)[2], int (&bj)[2],
                                                 int (&bk)[2]) {
  using L = Lane16;
  using V = L::V;
  constexpr int H = 2;
  // local: every cell; semi-global: the end faces (rows j >= n2, columns k >= n3, every cell of slices
  // i >= n1). Cells past a triplet's ends never exceed the cell they project on, which comes first.
  // Each row's largest candidate, then the slice's; a row is searched only where its largest is the best.
  // semi-global, both triplets of side Q before their last slice: row and column Q-1
  const bool fast = MODE == SEMI && side_q && i < last;
  V rowm[Q];
  if (MODE == LOCAL) {
#pragma unroll
    for (int r = 0; r < Q; ++r) rowm[r] = tree_max<L, Q>(hv[r]);
  } else if (fast) {
#pragma unroll
    for (int r = 0; r < Q - 1; ++r) rowm[r] = hv[r][Q - 1];
    rowm[Q - 1] = tree_max<L, Q>(hv[Q - 1]);
  } else {
    // cells off the faces count as 0, which never passes a face's best (each slice's face holds the
    // start-face cell (i, n2, 0) = 0)
    V cm[Q];
#pragma unroll
    for (int cx = 0; cx < Q; ++cx) cm[cx] = L::mask(cx >= it.n3[0], cx >= it.n3[1]);
#pragma unroll
    for (int r = 0; r < Q; ++r) {
      const V rm = L::mask(r >= it.n2[0] || i >= it.n1[0], r >= it.n2[1] || i >= it.n1[1]);
      V x[Q];
#pragma unroll
      for (int cx = 0; cx < Q; ++cx) x[cx] = hv[r][cx] & (rm | cm[cx]);
      rowm[r] = tree_max<L, Q>(x);
    }
  }
  const V m = tree_max<L, Q>(rowm);
#pragma unroll
  for (int h = 0; h < H; ++h) {
    const int mh = L::half(m, h);
    if (it.track[h] && mh > bsc[h]) {  // a later slice wins only by a larger score
      int fr = -1, fc = -1;
      if (fast) {  // rows 0 .. Q-2: their last cell
#pragma unroll
        for (int r = 0; r < Q - 1; ++r)
          if (fr < 0 && L::eq(rowm[r], mh, h)) { fr = r; fc = Q - 1; }
        if (fr < 0) {
          fr = Q - 1;
#pragma unroll
          for (int cx = 0; cx < Q; ++cx)
            if (fc < 0 && L::eq(hv[Q - 1][cx], mh, h)) fc = cx;
        }
      } else {
#pragma unroll
        for (int r = 0; r < Q; ++r) {
          if (fc < 0 && L::eq(rowm[r], mh, h)) {
#pragma unroll
            for (int cx = 0; cx < Q; ++cx)
              if (fc < 0 && (MODE == LOCAL || r >= it.n2[h] || cx >= it.n3[h] || i >= it.n1[h]) &&
                  L::eq(hv[r][cx], mh, h)) {
                fr = r;
                fc = cx;
              }
          }
        }
      }
      bsc[h] = mh; bi[h] = i; bj[h] = fr; bk[h] = fc;
    }
  }
}

// The end cells of slice i (bsc, bi, bj, bk: each half's best so far); semi-global: side_q, every triplet fills
// the slice, before slice last, the first of their last ones.
template <int MODE, int Q>
__device__ __forceinline__ void small_end_cells(const Lane16::V (&hv)[Q][Q], const SmallItem<Q>& it, int i,
                                                bool side_q, int last, const Scoring& sc, int (&bsc)[2], int (&bi)[2],
                                                int (&bj)[2], int (&bk)[2]) {
  if (MODE == GLOBAL) small_global_end<Q>(hv, it, i, sc, bsc, bi, bj, bk);
  else if (MODE == LOCAL || i > 0) small_best_cells<MODE, Q>(hv, it, i, side_q, last, bsc, bi, bj, bk);
}

// The sweep of triplet_small16<MODE, Q> (its arguments: triplet.cu).
template <int MODE, int Q>
__device__ __forceinline__ void small_sweep(const uint8_t* __restrict__ a, const int64_t* __restrict__ aoff,
                                            const uint8_t* __restrict__ b, const int64_t* __restrict__ boff,
                                            const uint8_t* __restrict__ c, const int64_t* __restrict__ coff,
                                            const int* __restrict__ order, int nwork, const Scoring& sc,
                                            int* __restrict__ out) {
  using L = Lane16;
  using V = L::V;
  constexpr int H = 2;
  static_assert(MODE == GLOBAL || MODE == SEMI || MODE == LOCAL, "triplet modes: global, semi-global, local");
  static_assert(Q >= 2 && Q <= 12, "Q: 2 .. 12");
  const int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (w >= nwork) return;
  SmallItem<Q> it;
  small_item<MODE, Q>(it, w, order, a, aoff, b, boff, c, coff);
  // Global mode holds D + 2g (i + j + k) (OFF): a residue against two gaps then costs nothing, each pair score
  // is s + 2g (g2), and a cell takes six instructions, not eight; the end cell gives the offset back. Such a
  // value lies in [0, (match + 2g) (i + j + k)] (D is at least the alignment of every residue alone, at most
  // match a residue), below 2 max(match, 2g) (N1 + 2Q): what fits16 keeps under 2 x 16000.
  constexpr bool OFF = MODE == GLOBAL;
  const V g2 = L::splat(OFF ? 2 * sc.gap_extend : 0);
  constexpr int E = (Q - 1) * (Q - 1), BQ = (E + 3) / 4;
  __shared__ uint4 bcs[BQ * THREADS];
  uint4* const mybc = bcs + threadIdx.x;
  small_bc_scores<Q>(mybc, it, sc, g2);

  // best end cell of each half: semi-global starts at (0, 0, n3), the first end-face cell (0)
  int bsc[H], bi[H], bj[H], bk[H];
#pragma unroll
  for (int h = 0; h < H; ++h) {
    bsc[h] = MODE == GLOBAL ? NEG : 0;
    bi[h] = 0; bj[h] = 0;
    bk[h] = MODE == SEMI && it.track[h] ? it.n3[h] : 0;
  }
  // semi-global: whether every triplet of the item fills the slice (its end faces: row and column Q-1), and the
  // slices before the first of their last ones
  bool side_q = true;
  int last = it.N1;
#pragma unroll
  for (int h = 0; h < H; ++h) {
    side_q &= !it.track[h] || (it.n2[h] == Q - 1 && it.n3[h] == Q - 1);
    last = it.track[h] ? min(last, it.n1[h]) : last;
  }
  const V vng2 = L::splat(-2 * sc.gap_extend);
  V hv[Q][Q];
  for (int i = 0; i <= it.N1; ++i) {
    if (i == 0) small_slice0<MODE, OFF, Q>(hv, mybc, vng2);
    else small_slice<MODE, OFF, Q>(hv, mybc, it, sc, i, g2, vng2);
    small_end_cells<MODE, Q>(hv, it, i, side_q, last, sc, bsc, bi, bj, bk);
  }
#pragma unroll
  for (int h = 0; h < H; ++h) {
    if (it.p[h] >= 0) {
      int* o = out + 4 * (int64_t)it.p[h];
      if (it.track[h]) { o[0] = bsc[h]; o[1] = bi[h]; o[2] = bj[h]; o[3] = bk[h]; }
      else { o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0; }  // semi-global with an empty sequence
    }
  }
}

}  // namespace tri
