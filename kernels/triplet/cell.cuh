// triplet/cell.cuh: the cell recursion of linear-gap triplets. Cell (i, j, k) takes the largest of seven
// candidates, one a column kind (M: three residues; a, b, c: two residues and a gap, a missing A, B or C;
// A, B, C: one residue and two gaps), each a neighbour's value plus the column's sum-of-pairs score (pair
// scores from the lanes' byte profiles, -g a residue facing a gap). Score kernels take the value only
// (cell: a chain of 3-way add-max instructions); traceback kernels also the kind that won, the first of equal
// ones in the order M a b c A B C (code_cell32, code_cell16), or START where the alignment starts. Where a
// cell sits (origin, start faces) is the sweep's to apply.
#pragma once
#include "common.cuh"
#include "triplet/switches.cuh"
#include "triplet/lanes.cuh"
#include "triplet/layout.cuh"

namespace tri {
using namespace sa;

// A's letter of slice i in each half (PAD outside 1..n1) and its pair scores against the selectors of rows
// (bsel) and columns (csel) F .. N-1: A's profile against their codes (pair scores are symmetric).
template <class L, int N, int F = 0>
__device__ __forceinline__ void a_pair_scores(const Scoring& sc, const uint8_t* const (&as)[L::H],
                                              const int (&n1)[L::H], int i, const uint32_t (&bsel)[N][L::H],
                                              const uint32_t (&csel)[N][L::H], typename L::V (&sab)[N],
                                              typename L::V (&sac)[N]) {
  int ac[L::H];
  uint32_t alo[L::H], ahi;
#pragma unroll
  for (int h = 0; h < L::H; ++h) ac[h] = (i >= 1 && i <= n1[h]) ? as[h][i - 1] : PAD;
  L::profiles(sc, ac, alo, ahi);
#pragma unroll
  for (int r = F; r < N; ++r) {
    sab[r] = L::score(alo, ahi, bsel[r]);
    sac[r] = L::score(alo, ahi, csel[r]);
  }
}

// The neighbours a cell (i, j, k) takes its seven candidates from: slice i-1 (dd = D(i-1, j-1, k-1),
// du = D(i-1, j-1, k), dl = D(i-1, j, k-1), dh = D(i-1, j, k)) and slice i (cd = D(i, j-1, k-1),
// cu = D(i, j-1, k), cl = D(i, j, k-1), the left neighbour).
template <class L>
struct Around {
  typename L::V dd, du, dl, dh, cd, cu, cl;
};

// Cell (i, j, k) from its neighbours and its pair scores (sab = s(A_i, B_j), sac, sbc), score only; slice i-1
// first, the left neighbour in the last instructions. OFF (D + 2g (i + j + k), global mode; pair scores
// + 2g): A, B, C free; M and a share the B-C score (six instructions). Else moves A, B, C take -2g; a (B-C
// pair), b (A-C), c (A-B) their pair score - 2g; M three pairs (eight; local mode floored at 0).
template <int MODE, bool OFF, class L>
__device__ __forceinline__ typename L::V cell(const Around<L>& n, typename L::V sab, typename L::V sac,
                                              typename L::V sbc, typename L::V vng2) {
  typename L::V y = L::addmax(n.dl, sac, n.dh);
  y = L::addmax(n.du, sab, y);
  if constexpr (OFF) {
    const typename L::V q = L::addmax(n.dd, L::add(sab, sac), n.cd);
    y = L::addmax(q, sbc, y);
    return L::vmax3(y, n.cu, n.cl);
  } else {
    const typename L::V m = L::add(L::add(L::add(n.dd, sab), sac), sbc);
    y = L::addmax(n.cd, sbc, y);
    y = L::vmax3(y, n.cu, n.cl);
    return MODE == LOCAL ? L::addmax0(y, vng2, m) : L::addmax(y, vng2, m);
  }
}

// cell with the left neighbour in the first instruction (TRIPLET_OPT_CHAIN=0; six instructions on a row's
// chain of cells instead of two)
template <int MODE, class L>
__device__ __forceinline__ typename L::V cell_left_first(const Around<L>& n, typename L::V sab, typename L::V sac,
                                                         typename L::V sbc, typename L::V vng2) {
  typename L::V y = L::vmax3(n.dh, n.cu, n.cl);
  y = L::addmax(n.cd, sbc, y);
  y = L::addmax(n.dl, sac, y);
  y = L::addmax(n.du, sab, y);
  y = L::add(y, vng2);
  const typename L::V m = L::add(L::add(n.dd, sab), sac);
  return MODE == LOCAL ? L::addmax0(m, sbc, y) : L::addmax(m, sbc, y);
}

// A score kernel's cell: the chain of TRIPLET_OPT_CHAIN (the offset form has only its own).
template <int MODE, bool OFF, class L>
__device__ __forceinline__ typename L::V score_cell(const Around<L>& n, typename L::V sab, typename L::V sac,
                                                    typename L::V sbc, typename L::V vng2) {
  if constexpr (TRIPLET_OPT_CHAIN != 0 || OFF) return cell<MODE, OFF, L>(n, sab, sac, sbc, vng2);
  else return cell_left_first<MODE, L>(n, sab, sac, sbc, vng2);
}

// TRACE: candidate x of kind d replaces the best so far only when strictly larger (the first of equal kinds wins)
__device__ __forceinline__ void take_first(int& best, int& d, int x, int kind) {
  if (x > best) { best = x; d = kind; }
}

// A traceback cell in int32 lanes: its value and (d) its code, the seven kinds in tie order M a b c A B C, the
// first of the largest wins (the CPU engine's rule); local mode floored at 0, where the alignment starts
// (START). ng2 = -2g.
template <int MODE, class L>
__device__ __forceinline__ int code_cell32(const Around<L>& n, int sab, int sac, int sbc, int ng2, int& d) {
  static_assert(L::H == 1, "int32 lanes");
  int best = n.dd + sab + sac + sbc;
  d = 0;
  take_first(best, d, n.cd + sbc + ng2, 1);
  take_first(best, d, n.dl + sac + ng2, 2);
  take_first(best, d, n.du + sab + ng2, 3);
  take_first(best, d, n.dh + ng2, 4);
  take_first(best, d, n.cu + ng2, 5);
  take_first(best, d, n.cl + ng2, 6);
  if (MODE == LOCAL && best <= 0) { best = 0; d = START; }
  return best;
}

// A traceback cell in 16-bit lanes: the seven kinds in tie order M a b c A B C, per half the first of the
// largest (max16_which: a later kind replaces only when strictly larger, the CPU engine's rule), codes d0 and
// d1 of the halves. The candidates are compared without the -2g (vng2) of the six gap kinds, added to the
// winner: M's pair scores take +2g once a row (sabg = sab + 2g).
template <int MODE, class L>
__device__ __forceinline__ typename L::V code_cell16(const Around<L>& n, typename L::V sabg, typename L::V sab,
                                                     typename L::V sac, typename L::V sbc, typename L::V vng2,
                                                     int& d0, int& d1) {
  using V = typename L::V;
  V best = L::add(L::add(L::add(n.dd, sabg), sac), sbc);
  d0 = 0;
  d1 = 0;
  const V cand[6] = {L::add(n.cd, sbc), L::add(n.dl, sac), L::add(n.du, sab), n.dh, n.cu, n.cl};
#pragma unroll
  for (int q = 0; q < 6; ++q) {
    bool kept0, kept1;
    best = max16_which(best, cand[q], kept0, kept1);
    d0 = kept0 ? d0 : q + 1;
    d1 = kept1 ? d1 : q + 1;
  }
  best = L::add(best, vng2);
  if (MODE == LOCAL) {
    // floored at 0: the alignment starts where the best is <= 0 (not max16_which against the
    // constant: ptxas 13.0 moves the zero to the second operand without swapping the predicates)
    const uint32_t pos = gt16(best, 0u);  // 0xffff in the halves above 0
    d0 = (pos & 0xffffu) ? d0 : START;
    d1 = (pos >> 16) ? d1 : START;
    best = L::vmax(best, L::splat(0));
  }
  return best;
}

}  // namespace tri
