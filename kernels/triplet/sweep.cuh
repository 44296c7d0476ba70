// triplet/sweep.cuh: the sweep of the lane groups' kernels (triplet_score, triplet_score16, triplet_trace,
// triplet_trace16): a driver (sweep) over named phases, each a forced-inline function.
//
// The thread mapping: triplet.cu, above triplet_score (a group of T lanes a work item, each lane's R x R square
// in registers, Square; the group sweeps i as an anti-diagonal wavefront over the squares, a tile after the
// other, or the tile wave, triplet/wave.cuh). Cells past a sequence's end (j > n2, k > n3, or i > n1 in a
// 16-bit half) are computed with a pad code whose pair scores are -g: such a cell never exceeds the cell it
// projects on (j, k clamped to n2, n3), which comes before it in (i, j, k) order, so end cells need no masks in
// local mode and the face masks of semi-global mode are per row and column (semi-global triplets with an empty
// sequence score 0 at (0, 0, 0) without any DP).
//
// The phases, in the order of a step:
//   wave_gate (the wave: whether the tiles this one reads are far enough), tile_profiles and slice_before (a
//   new tile: profiles, B-C scores, slice -1 or a window's checkpoint), neighbour_borders and borders_ahead /
//   borders_at_step (the row above and the column on the left), slice_pair_scores (A's letter against the
//   rows and columns),
//   square_cells (the R x R cells, with traceback their codes or values' bytes: triplet/layout.cuh),
//   store_checkpoints (traceback in windows), square_end_cells (triplet/ends.cuh), write_borders,
//   publish_step (the warp's fence; the wave's progress).
// Per slice: one byte profile lookup for each of the lane's R rows (B) and R columns (C) against A's letter;
// the B-C pair score of each cell does not change along i: R*R of them in shared memory, written at a tile's
// start (TRIPLET_OPT_BC; registers for R <= 6 without it). Global mode starts the origin through the corner of
// slice -1 (3g, so the pad-pad-pad column gives D(0,0,0) = 0); its score kernels hold D + 2g (i + j + k)
// instead (six instructions a cell; the corner -3g, the end cell gives 2g (n1 + n2 + n3) back: OFF).
#pragma once
#include "common.cuh"
#include "triplet/switches.cuh"
#include "triplet/args.cuh"
#include "triplet/lanes.cuh"
#include "triplet/layout.cuh"
#include "triplet/cell.cuh"
#include "triplet/ends.cuh"
#include "triplet/borders.cuh"
#include "triplet/wave.cuh"

namespace tri {
using namespace sa;

// What a sweep is: its mode, squares of R x R, groups of T lanes, lane type L; WAVE: the tile wave; TRACE:
// traceback (codes, or VALS: the values' low bytes), WIN: in windows of slices. The choices they imply:
template <int MODE_, int R_, int T_, class L_, bool WAVE_, bool TRACE_, bool WIN_, bool VALS_>
struct Config {
  static constexpr int MODE = MODE_, R = R_, T = T_;
  using L = L_;
  using V = typename L::V;
  static constexpr int H = L::H, S = Side<T>::S, SR = S * R;
  static constexpr bool WAVE = WAVE_, TRACE = TRACE_, WIN = WIN_, VALS = VALS_;
  // the B-C pair scores held in shared memory (TRIPLET_OPT_BC, every R), else in registers or looked up every
  // cell
  static constexpr bool BC_SMEM = TRIPLET_OPT_BC != 0;
  static constexpr bool BC_REGS = !BC_SMEM && R * R <= 36;
  // BC_SMEM: the lane's R x R B-C scores (row-major bits) as BQ uint4 words
  static constexpr int BQ = (R * R + 3) / 4;
  // Global score kernels hold D + 2g (i + j + k) (OFF), as triplet_small16 does: a residue against two gaps
  // costs nothing, each pair score is s + 2g (g2), a cell takes six instructions instead of eight, and the
  // left neighbour enters in the last one; the end cell gives the offset back. The values lie in
  // [0, (match + 2g) (i + j + k)] (cells past the ends too: their pair scores are -g + 2g), within twice the
  // bound fits16 keeps below 16000 for the item's cube and tiles. (Semi-global, where the end faces' maxima
  // would take the offset off every cell of a face square each step: 6-9 % slower,
  // benchmarks/decisions/triplet_offset_form.md.) Traceback with values (VALS) too: its bytes and checkpoints
  // are those of the offset values, as triplet_walk reads them.
  static constexpr bool OFF = MODE == GLOBAL && (!TRACE || VALS) && TRIPLET_OPT_OFF;
  // the border buffers (two steps' of each lane, in shared memory) and their copy a step ahead
  // (triplet/borders.cuh; groups of 4 lanes: 15-18 % faster at 32 bp on an H100)
  static constexpr bool ASYNC = (T < 16 || (TRIPLET_OPT_ASYNC16 && R <= 7)) && !WIN;
  static constexpr int CW = Codes<R>::WORDS;
};

// The slices the launch sweeps: lo0 .. stop. WIN: window 0 (the last slices) sweeps them all and keeps each
// half's checkpoints (ck + ck_off[p], slot q: slice lo_q - 1 of window q, every window with lo_q > 0, the
// (n2 + 1) x (n3 + 1) values row-major); window wq > 0 stops at its last slice (its halves' largest) and
// starts from its checkpoint where every half that has the window starts it at the same lo > 0, else at 0.
template <class L, bool WIN>
struct Slices {
  static constexpr int H = L::H;
  int lo0, stop;
  int* ckw[WIN ? H : 1];  // WIN: each half's checkpoint slot of window wq (nullptr: none)
  const int* wslices;

  // WIN: half h's window length m and the last slice its windows count from (n1, or the item's largest n1
  // where the host put both halves in the same windows)
  __device__ __forceinline__ int m(const Item<H>& it, int h) const {
    return WIN && it.track[h] ? wslices[2 * it.p[h]] : 0;
  }
  __device__ __forceinline__ int last(const Item<H>& it, int h) const {
    return WIN && it.track[h] ? wslices[2 * it.p[h] + 1] : it.n1[h];
  }

  // (it.work: whether a half has slices of window wq)
  __device__ __forceinline__ void init(Item<H>& it, const int* __restrict__ ws, int wq, int* __restrict__ ck,
                                       const int64_t* __restrict__ ck_off) {
    lo0 = 0;
    stop = it.N1;
    wslices = ws;
#pragma unroll
    for (int h = 0; h < (WIN ? H : 1); ++h) ckw[h] = nullptr;
    if constexpr (WIN) {
      int last_ = -1, start = -1;
      bool same = true;
#pragma unroll
      for (int h = 0; h < H; ++h) {
        const int mh = m(it, h), top = last(it, h);
        if (mh <= 0) continue;
        int l, hh;
        sa::window_slices(top, mh, wq, l, hh);
        if (hh <= 0) continue;
        same &= start < 0 || l == start;
        start = l;
        last_ = max(last_, hh - 1);
        if (ck != nullptr && wq < top / mh)
          ckw[h] = ck + ck_off[it.p[h]] + (int64_t)wq * (it.n2[h] + 1) * (it.n3[h] + 1);
      }
      if (wq > 0) {
        stop = last_;
        lo0 = ck != nullptr && same && start > 0 ? start : 0;
        it.work &= last_ >= 0;
      }
    }
  }

  // WIN: the value of cell (j, k) at slice lo0 - 1 from the checkpoint (minus infinity outside a half's cube)
  __device__ __forceinline__ typename L::V ck_cell(const Item<H>& it, int j, int k) const {
    int x[H];
#pragma unroll
    for (int h = 0; h < H; ++h) {
      const int* src = WIN ? ckw[WIN ? h : 0] : nullptr;
      x[h] = src != nullptr && j >= 0 && k >= 0 && j <= it.n2[h] && k <= it.n3[h]
                 ? src[(int64_t)j * (it.n3[h] + 1) + k]
                 : L::half(L::neg(), h);
    }
    if constexpr (H == 1) return L::from_bits(x[0]);
    else return L::from_bits((int)pk16(x[0], x[H - 1]));
  }
};

// A lane's B and C profiles of its rows and columns (a tile's), and the B-C pair scores of its square: in
// shared memory (BC_SMEM: word q at mybc[q * THREADS]), in registers (BC_REGS: bc) or C selectors to look them
// up (csel).
template <class C>
struct Profiles {
  static constexpr int R = C::R, H = C::H;
  uint32_t blo[R][H], bhi[R], clo[R][H], chi[R];
  typename C::V bc[C::BC_REGS ? R : 1][C::BC_REGS ? R : 1];
  uint32_t csel[C::BC_REGS || C::BC_SMEM ? 1 : R][H];
  uint4* mybc;
};

// ---- the phases ----

// A new tile, the lane's rows j0.. and columns k0..: the B and C profiles of its rows and columns, and the
// B-C pair scores of its square (+ g2).
template <class C>
__device__ __forceinline__ void tile_profiles(Profiles<C>& pf, const Item<C::H>& it, const Scoring& sc,
                                              typename C::V g2, int j0, int k0) {
  using L = typename C::L;
  constexpr int R = C::R, H = C::H;
  constexpr bool BC_REGS = C::BC_REGS, BC_SMEM = C::BC_SMEM;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int cb[H], cc[H];
#pragma unroll
    for (int h = 0; h < H; ++h) {
      const int j = j0 + r, k = k0 + r;
      cb[h] = (j >= 1 && j <= it.n2[h]) ? it.bs[h][j - 1] : PAD;
      cc[h] = (k >= 1 && k <= it.n3[h]) ? it.cs[h][k - 1] : PAD;
      if (!BC_REGS && !BC_SMEM) pf.csel[BC_REGS || BC_SMEM ? 0 : r][h] = L::selector(cc[h], h);
    }
    L::profiles(sc, cb, pf.blo[r], pf.bhi[r]);
    L::profiles(sc, cc, pf.clo[r], pf.chi[r]);
  }
  if (BC_REGS) {
#pragma unroll
    for (int cx = 0; cx < R; ++cx) {
      uint32_t sel[H];
      int cc[H];
#pragma unroll
      for (int h = 0; h < H; ++h) {
        const int k = k0 + cx;
        cc[h] = (k >= 1 && k <= it.n3[h]) ? it.cs[h][k - 1] : PAD;
        sel[h] = L::selector(cc[h], h);
      }
#pragma unroll
      for (int r = 0; r < R; ++r)
        pf.bc[BC_REGS ? r : 0][BC_REGS ? cx : 0] = L::add(L::score(pf.blo[r], pf.bhi[r], sel), g2);
    }
  }
  if constexpr (BC_SMEM) {
    // row-major: cell e = r * R + cx in component e % 4 of word e / 4
    uint32_t word[4];
#pragma unroll
    for (int q = 0; q < C::BQ; ++q) {
#pragma unroll
      for (int e = 4 * q; e < 4 * q + 4; ++e) {
        uint32_t x = 0;
        if (e < R * R) {
          const int r = e / R, cx = e % R;
          uint32_t sel[H];
#pragma unroll
          for (int h = 0; h < H; ++h) {
            const int k = k0 + cx;
            sel[h] = L::selector((k >= 1 && k <= it.n3[h]) ? it.cs[h][k - 1] : PAD, h);
          }
          x = (uint32_t)L::bits(L::add(L::score(pf.blo[r], pf.bhi[r], sel), g2));
        }
        word[e % 4] = x;
      }
      pf.mybc[q * THREADS] = make_uint4(word[0], word[1], word[2], word[3]);
    }
  }
}

// A new tile (J, K): the square and its borders before the tile's first slice: slice -1 (minus infinity), or
// a window's slice lo0 - 1 from its checkpoint.
template <class C>
__device__ __forceinline__ void slice_before(Square<typename C::L, C::R>& sq, const Item<C::H>& it,
                                             const Slices<typename C::L, C::WIN>& win, const Scoring& sc, int J,
                                             int K, int u, int v, int j0, int k0) {
  using L = typename C::L;
  constexpr int R = C::R;
  // semi-global: slice 0 is a start face (0), set here and left alone at its step (a square written in
  // one branch only, so the branches need not move its registers to meet)
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int cx = 0; cx < R; ++cx) sq.hv[r][cx] = C::MODE == SEMI ? L::splat(0) : L::neg();
    sq.upc[r] = sq.lfc[r] = L::neg();
  }
  sq.upc[R] = L::neg();
  // global: D(0,0,0) = 0 through the pad-pad-pad column from the corner of slice -1
  // (OFF: -3g, whose offset is -6g; the three pad pairs then score 3g)
  if (C::MODE == GLOBAL && J == 0 && K == 0 && u == 0 && v == 0)
    sq.upc[0] = L::splat((C::OFF ? -3 : 3) * sc.gap_extend);
  if (C::WIN && win.lo0 > 0) {  // a window from its checkpoint: the square and its borders at slice lo0 - 1
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int cx = 0; cx < R; ++cx) sq.hv[r][cx] = win.ck_cell(it, j0 + r, k0 + cx);
      sq.lfc[r] = win.ck_cell(it, j0 + r, k0 - 1);
    }
#pragma unroll
    for (int r = 0; r <= R; ++r) sq.upc[r] = win.ck_cell(it, j0 - 1, k0 + r - 1);
  }
}

// A's letter of slice i in each half, and its pair scores against the rows (sab) and columns (sac); OFF: + g2.
template <class C>
__device__ __forceinline__ void slice_pair_scores(const Profiles<C>& pf, const Item<C::H>& it, int i,
                                                  typename C::V g2, typename C::V (&sab)[C::R],
                                                  typename C::V (&sac)[C::R]) {
  using L = typename C::L;
  constexpr int R = C::R, H = C::H;
  uint32_t asel[H];
#pragma unroll
  for (int h = 0; h < H; ++h) asel[h] = L::selector((i >= 1 && i <= it.n1[h]) ? it.as[h][i - 1] : PAD, h);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    sab[r] = L::score(pf.blo[r], pf.bhi[r], asel);
    sac[r] = L::score(pf.clo[r], pf.chi[r], asel);
  }
  if constexpr (C::OFF) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      sab[r] = L::add(sab[r], g2);
      sac[r] = L::add(sac[r], g2);
    }
  }
}

// The B-C pair score (+ g2) of cell (r, cx) of the square; BC_SMEM: from the word bcw, read at a row's first
// cell and every fourth.
template <class C>
__device__ __forceinline__ typename C::V bc_score(const Profiles<C>& pf, uint4& bcw, int r, int cx,
                                                  typename C::V g2) {
  using L = typename C::L;
  constexpr int R = C::R;
  constexpr bool BC_REGS = C::BC_REGS, BC_SMEM = C::BC_SMEM;
  typename C::V sbc;
  if constexpr (BC_SMEM) {
    const int e = r * R + cx;
    if (cx == 0 || e % 4 == 0) bcw = pf.mybc[(e / 4) * THREADS];
    const uint32_t b4 = e % 4 == 0 ? bcw.x : e % 4 == 1 ? bcw.y : e % 4 == 2 ? bcw.z : bcw.w;
    sbc = L::from_bits((int)b4);
  } else {
    sbc = BC_REGS ? pf.bc[BC_REGS ? r : 0][BC_REGS ? cx : 0]
                  : L::add(L::score(pf.blo[r], pf.bhi[r], pf.csel[BC_REGS || BC_SMEM ? 0 : cx]), g2);
  }
  return sbc;
}

// Row r of the square at slice i (rows j0.., columns k0..): each cell from the row above (prow: slice i-1,
// crow: slice i, column -1 first), the column on the left and the square's slice i-1 (hv before it is
// overwritten; nprow gets that row for the next), and with codes (TRACE without VALS) its kind (code). The
// origin of global mode and the start face column 0 of semi-global mode (left) start the alignment.
template <class C>
__device__ __forceinline__ void row_cells(Square<typename C::L, C::R>& sq, const Profiles<C>& pf,
                                          const typename C::V (&prow)[C::R + 1], const typename C::V (&crow)[C::R + 1],
                                          typename C::V (&nprow)[C::R + 1],
                                          int (&code)[C::TRACE ? C::H : 1][C::TRACE ? C::R : 1], uint4& bcw,
                                          const typename C::V (&sab)[C::R], const typename C::V (&sac)[C::R],
                                          const typename C::V (&sabg)[C::TRACE && C::H == 2 ? C::R : 1],
                                          typename C::V g2, typename C::V vng2, int ng2, int i, int j0, int k0, int r,
                                          bool left) {
  using L = typename C::L;
  using V = typename C::V;
  constexpr int MODE = C::MODE, R = C::R, H = C::H;
  constexpr bool TRACE = C::TRACE, VALS = C::VALS;
  V pl = sq.lfp[r], cl = sq.lfc[r];
  nprow[0] = sq.lfp[r];
#pragma unroll
  for (int cx = 0; cx < R; ++cx) {
    const V pv = sq.hv[r][cx];
    const V sbc = bc_score<C>(pf, bcw, r, cx, g2);
    V hn;
    if constexpr (TRACE && !VALS && H == 2) {
      int d0, d1;
      const V best = code_cell16<MODE, L>({prow[cx], prow[cx + 1], pl, pv, crow[cx], crow[cx + 1], cl}, sabg[r],
                                          sab[r], sac[cx], sbc, vng2, d0, d1);
      if ((MODE == GLOBAL && i == 0 && j0 + r == 0 && k0 + cx == 0) || (left && cx == 0)) {
        d0 = START;
        d1 = START;
      }
      hn = left && cx == 0 ? L::splat(0) : best;
      code[0][cx] = d0;
      code[TRACE ? H - 1 : 0][cx] = d1;
    } else if constexpr (TRACE && !VALS) {
      int d;
      int best = code_cell32<MODE, L>({prow[cx], prow[cx + 1], pl, pv, crow[cx], crow[cx + 1], cl}, sab[r], sac[cx],
                                      sbc, ng2, d);
      // global: the origin (0 through the corner of slice -1) is where every alignment starts
      if (MODE == GLOBAL && i == 0 && j0 + r == 0 && k0 + cx == 0) d = START;
      if (left && cx == 0) { best = 0; d = START; }
      hn = best;
      code[0][TRACE ? cx : 0] = d;
    } else {
      hn = score_cell<MODE, C::OFF, L>({prow[cx], prow[cx + 1], pl, pv, crow[cx], crow[cx + 1], cl}, sab[r], sac[cx],
                                       sbc, vng2);
      if (left && cx == 0) hn = L::splat(0);
    }
    nprow[cx + 1] = pv;
    pl = pv;
    sq.hv[r][cx] = hn;
    cl = hn;
  }
}

// The square's cells at slice i (not semi-global slice 0), row by row; the start face row 0 of semi-global
// mode (top) is 0. Traceback: each row's codes or values' bytes stored as the words they complete (step ts of
// tile (J, K): codes.block).
template <class C>
__device__ __forceinline__ void square_cells(Square<typename C::L, C::R>& sq, const Profiles<C>& pf,
                                             const CodeStore<C::R, C::T, C::H>& codes, const typename C::V (&sab)[C::R],
                                             const typename C::V (&sac)[C::R], typename C::V g2, typename C::V vng2,
                                             int ng2, int i, int j0, int k0, bool top, bool left, int J, int K,
                                             int ts) {
  using L = typename C::L;
  using V = typename C::V;
  constexpr int R = C::R, T = C::T, H = C::H, CW = C::CW;
  constexpr bool TRACE = C::TRACE, VALS = C::VALS;
  V prow[R + 1], crow[R + 1];  // the row above: slice i-1, slice i (column -1 first)
  // TRACE: this step's block of each half's direction words, and the words being filled
  uint32_t* dst[TRACE ? H : 1];
  uint32_t word[TRACE ? H : 1][TRACE ? CW : 1];
  if constexpr (TRACE) {
#pragma unroll
    for (int h = 0; h < H; ++h) dst[h] = codes.block(h, J, K, ts);
  }
  // TRACE in 16-bit lanes: the moves' candidates are compared without the -2g of the six gap kinds
  // (added to the winner), so M's pair scores take +2g once a row
  V sabg[TRACE && H == 2 ? R : 1];
  if constexpr (TRACE && H == 2) {
#pragma unroll
    for (int r = 0; r < R; ++r) sabg[r] = L::add(sab[r], L::splat(-ng2));
  }
#pragma unroll
  for (int cx = 0; cx <= R; ++cx) { prow[cx] = sq.upp[cx]; crow[cx] = sq.upc[cx]; }
  uint4 bcw;  // BC_SMEM: the word of B-C scores being read
#pragma unroll
  for (int r = 0; r < R; ++r) {
    V nprow[R + 1];
    int code[TRACE ? H : 1][TRACE ? R : 1];  // TRACE: the row's direction codes
    row_cells<C>(sq, pf, prow, crow, nprow, code, bcw, sab, sac, sabg, g2, vng2, ng2, i, j0, k0, r, left);
    if (top && r == 0) {
#pragma unroll
      for (int cx = 0; cx < R; ++cx) sq.hv[0][cx] = L::splat(0);
      if constexpr (TRACE && !VALS) {
#pragma unroll
        for (int h = 0; h < H; ++h)
#pragma unroll
          for (int cx = 0; cx < R; ++cx) code[TRACE ? h : 0][TRACE ? cx : 0] = START;
      }
    }
    if constexpr (VALS) store_value_words<L, R, T>(dst, sq.hv, r);
    else if constexpr (TRACE) store_code_row<R, T, H>(dst, word, code, r);
#pragma unroll
    for (int cx = 0; cx <= R; ++cx) prow[cx] = nprow[cx];
    crow[0] = sq.lfc[r];
#pragma unroll
    for (int cx = 0; cx < R; ++cx) crow[cx + 1] = sq.hv[r][cx];
  }
}

// Semi-global slice 0 with traceback: the square holds slice 0's zeros since the tile's start (slices before 0
// compute nothing); its codes are START (values: 0).
template <class C>
__device__ __forceinline__ void start_face_codes(const CodeStore<C::R, C::T, C::H>& codes, int J, int K, int ts) {
#pragma unroll
  for (int h = 0; h < C::H; ++h) {
    uint32_t* dst = codes.block(h, J, K, ts);
    if (dst != nullptr) store_start_block<C::R, C::T, C::VALS>(dst);
  }
}

// WIN: window 0 sweeps every slice: the slices below the other windows (slice i) to their checkpoints.
template <class C>
__device__ __forceinline__ void store_checkpoints(const Square<typename C::L, C::R>& sq, const Item<C::H>& it,
                                                  const Slices<typename C::L, C::WIN>& win, int wq,
                                                  int* __restrict__ ck, const int64_t* __restrict__ ck_off, int i,
                                                  int j0, int k0) {
  using L = typename C::L;
  constexpr int R = C::R;
#pragma unroll
  for (int h = 0; h < C::H; ++h) {
    const int m = win.m(it, h), d = win.last(it, h) - i;
    if (wq == 0 && ck != nullptr && m > 0 && d >= m && d % m == 0) {
      int* dst = ck + ck_off[it.p[h]] + (int64_t)(d / m - 1) * (it.n2[h] + 1) * (it.n3[h] + 1);
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int cx = 0; cx < R; ++cx)
          if (j0 + r <= it.n2[h] && k0 + cx <= it.n3[h])
            dst[(int64_t)(j0 + r) * (it.n3[h] + 1) + k0 + cx] = L::half(sq.hv[r][cx], h);
    }
  }
}

// ---- the driver ----

// The kernels' arguments (triplet.cu): the work items of order (the wave: the tiles of the tile table) swept by
// groups of T lanes, their end cells into out; TRACE: codes (or values' bytes) into dirs, in windows (WIN) from
// wslices, wq, ck, ck_off.
template <int MODE, int R, int T, class L, bool WAVE, bool TRACE = false, bool WIN = false, bool VALS = false>
__device__ __forceinline__ void sweep(const uint8_t* __restrict__ a, const int64_t* __restrict__ aoff,
                                      const uint8_t* __restrict__ b, const int64_t* __restrict__ boff,
                                      const uint8_t* __restrict__ c, const int64_t* __restrict__ coff,
                                      const int* __restrict__ order, int nwork, const Scoring& sc,
                                      int* __restrict__ border, const int64_t* __restrict__ border_off,
                                      int* __restrict__ out, const int* __restrict__ tiles, int ntiles,
                                      int* __restrict__ sync, uint8_t* __restrict__ dirs = nullptr,
                                      const int64_t* __restrict__ dir_off = nullptr,
                                      const int* __restrict__ wslices = nullptr, int wq = 0,
                                      int* __restrict__ ck = nullptr, const int64_t* __restrict__ ck_off = nullptr) {
  using C = Config<MODE, R, T, L, WAVE, TRACE, WIN, VALS>;
  using V = typename L::V;
  constexpr int H = L::H, S = C::S, SR = C::SR;
  static_assert(MODE == GLOBAL || MODE == SEMI || MODE == LOCAL, "triplet modes: global, semi-global, local");
  static_assert(R >= 1 && R <= 16, "R: 1 .. 16");
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int lane = (int)(threadIdx.x % T);
  const int u = lane / S, v = lane % S;
  // the work item; in the tile wave also its tile (J0, K0) and the item's first slot
  Wave wv;
  wv.J0 = 0;
  wv.K0 = 0;
  wv.first = 0;
  int w;
  if (WAVE) {
    if (!take_tile<T>(wv, w, sync, tiles, ntiles, nwork)) return;  // the whole warp is idle
  } else {
    w = (int)(tid / T);
    if ((tid / SA_WARP) * (SA_WARP / T) >= nwork) return;  // the whole warp is idle
  }
  const bool item = w < nwork;
  Item<H> it;  // the item's triplets (one per half), their lengths and the loop's extent
  load_item<MODE, H>(it, item, w, order, a, aoff, b, boff, c, coff);
  Slices<L, WIN> win;
  win.init(it, wslices, wq, ck, ck_off);
  const int lo0 = win.lo0, stop = win.stop;
  const int JT = (it.N2 + SR) / SR, KT = (it.N3 + SR) / SR;  // tiles covering rows 0..N2, columns 0..N3
  const int passes = it.work ? (WAVE ? 1 : JT * KT) : 0;
  const bool multi = it.work && JT * KT > 1;  // borders between tiles
  const int steps = stop - lo0 + 2 * S - 1;  // slices lo0..stop and the wavefront's fill and drain
  const int total = passes * steps;
  const bool multi_w = warp_any(multi);
  Borders<R, S> bd;
  bd.template init<WAVE, H>(border, border_off, multi, it, KT, wv.J0);
  wave_counts(wv, sync, nwork, KT);
  CodeStore<R, T, H> codes = {};
  if constexpr (TRACE) codes.init(it, win, wq, dirs, dir_off, lane);
  __shared__ int bcell[3 * H * THREADS];
  BestCells<H> best;  // the best end cell seen by this lane, per half
  best.template init<MODE>(bcell, it);

  const int ng2 = -2 * sc.gap_extend;
  const V vng2 = L::splat(ng2);
  const V g2 = L::splat(C::OFF ? 2 * sc.gap_extend : 0);
  Square<L, R> sq;
  Profiles<C> pf;
  __shared__ uint4 bcs[C::BC_SMEM ? C::BQ * THREADS : 1];  // word q of a lane's B-C scores at bcs[q * THREADS + x]
  pf.mybc = bcs + (C::BC_SMEM ? threadIdx.x : 0);
  int t = 0, J = wv.J0, K = wv.K0, j0 = 0, k0 = 0;
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int x = 0; x < R; ++x) sq.hv[r][x] = L::neg();
    sq.upc[r] = sq.upp[r] = sq.lfc[r] = sq.lfp[r] = L::neg();
  }
  sq.upc[R] = sq.upp[R] = L::neg();
  __shared__ int4 bord[C::ASYNC ? 2 * Borders<R, S>::NQ * THREADS : 1];  // two steps' borders of each lane
  bool ahead = false;  // this step's borders were copied at the step before
  int x = 0;  // the steps this group has taken (every step but in the wave, where groups wait)
  const int total_w = warp_max(total);
  // semi-global and local: the best end-cell score any lane of the group has recorded (refreshed every
  // few steps); a square whose largest value is below it cannot hold the group's end cell, and skips the
  // search for its first cell
  int gbest[H];
#pragma unroll
  for (int h = 0; h < H; ++h) gbest[h] = best.bsc[h];
  wv.unfenced = false;
  for (int y = 0; WAVE ? warp_any(x < total) : y < total_w; ++y) {
    bool on = x < total;
    if (WAVE && multi_w && !wave_gate<T, C::ASYNC>(wv, on, t, stop - lo0, J, K, KT)) continue;
    if (on && t == 0) {  // a new tile: codes, profiles, slice -1
      j0 = J * SR + u * R;
      k0 = K * SR + v * R;
      tile_profiles<C>(pf, it, sc, g2, j0, k0);
      slice_before<C>(sq, it, win, sc, J, K, u, v, j0, k0);
    }
    const int i = lo0 + t - u - v;

    // borders from the neighbours (their squares after the last step), and from memory
    V nup[R + 1], nlf[R];
    neighbour_borders<L, R, S, T>(sq, nup, nlf);
    const bool in = i >= lo0 && i <= stop;
    const int* row = bd.row(i, K, v);
    const int* col = bd.col(i, u);
    if (on) {
#pragma unroll
      for (int r = 0; r <= R; ++r) sq.upp[r] = sq.upc[r];
#pragma unroll
      for (int r = 0; r < R; ++r) sq.lfp[r] = sq.lfc[r];
      // lanes of the tile's top row (left column) read memory where the tile has one above (on its
      // left), minus infinity elsewhere; the other lanes take their neighbours'
      const bool fu = u == 0 && J > 0 && in, fl = v == 0 && K > 0 && in;
      const bool fc = fu && (v > 0 || K > 0);  // the corner: row J*SR - 1, column k0 - 1
      if (C::ASYNC)
        borders_ahead<WAVE>(sq, nup, nlf, bord, x, ahead, bd, row, col, fu, fl, fc, wv, t, steps, stop - lo0, i,
                            it.N1, u, v, J, K);
      else
        borders_at_step<WIN, L, R, S>(sq, nup, nlf, row, col, fu, fl, fc, win, it, i, u, v, j0, k0);
    }
    if (multi_w) step_fence();  // border reads of this step before its writes

    if (on && in) {
      V sab[R], sac[R];
      slice_pair_scores<C>(pf, it, i, g2, sab, sac);
      const bool top = MODE == SEMI && J == 0 && u == 0;    // holds row j = 0
      const bool left = MODE == SEMI && K == 0 && v == 0;   // holds column k = 0
      if (MODE == SEMI && i == 0) {
        if constexpr (TRACE) start_face_codes<C>(codes, J, K, lo0 + t);
      } else {
        square_cells<C>(sq, pf, codes, sab, sac, g2, vng2, ng2, i, j0, k0, top, left, J, K, lo0 + t);
      }
      if constexpr (WIN) store_checkpoints<C>(sq, it, win, wq, ck, ck_off, i, j0, k0);
      square_end_cells<MODE, C::OFF, L, R>(best, sq.hv, it, gbest, sc, i, j0, k0);
      write_borders<L, R, S>(sq, row, col, J, JT, K, KT, u, v);
    }
    publish_step<WAVE, S>(wv, on, multi_w, t, stop - lo0, lane);
    refresh_group_best<MODE, T, H>(gbest, best, y);
    if (on) {
      ++x;
      if (++t == steps) {
        t = 0;
        if (++K == KT) { K = 0; ++J; }
      }
    }
  }

  int bi[H], bj[H], bk[H];
  group_end_cells<T, H>(best, bi, bj, bk);
  bool write = lane == 0;
  // the wave: the tile's best end cells; the group that finishes the item's last tile reduces every tile's
  if (WAVE) write = reduce_tiles<H>(wv, item, lane, sync, w, ntiles, JT, KT, best.bsc, bi, bj, bk);
  write_end_cells<WIN, H>(out, it, best.bsc, bi, bj, bk, write, wq);
}

}  // namespace tri
