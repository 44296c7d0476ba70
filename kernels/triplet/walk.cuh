// triplet/walk.cuh: the walk of triplet_walk, one thread a triplet: from the end cell that triplet_trace (or
// triplet_trace16) found, back through the triplet's bytes in dirs (triplet/layout.cuh) to the first START,
// then the runs of kinds in forward order. With the values' low bytes (vals) the walk knows the value X of the
// cell it stands on (the end cell's is the score) and takes the first kind in tie order whose neighbour's
// byte is (X - the kind's column score) & 0xff, the neighbour's value then; exact while no candidate falls 256
// or more below its cell (the host's values_fit). In windows: the walk of window 0 starts at the end cell, the
// others where the walk above left the triplet; a walk that leaves its window (slice lo - 1) writes that cell
// and -1 - runs in info (the runs so far, from the end back), and the next window's walk goes on from there.
#pragma once
#include "common.cuh"
#include "triplet/switches.cuh"
#include "triplet/args.cuh"
#include "triplet/layout.cuh"

namespace tri {
using namespace sa;

// The arguments of triplet_walk (triplet.cu), thread w walking triplet order[w].
template <int MODE, int R, int T>
__device__ __forceinline__ void walk(const int* __restrict__ order, int nwork, const int64_t* __restrict__ aoff,
                                     const int64_t* __restrict__ boff, const int64_t* __restrict__ coff,
                                     const int* __restrict__ out, const uint8_t* __restrict__ dirs,
                                     const int64_t* __restrict__ dir_off, const int64_t* __restrict__ run_off,
                                     uint8_t* __restrict__ run_op, int* __restrict__ run_len, int* __restrict__ info,
                                     const int* __restrict__ wslices, int wq, const int* __restrict__ ck,
                                     const int64_t* __restrict__ ck_off, const uint8_t* __restrict__ a,
                                     const uint8_t* __restrict__ b, const uint8_t* __restrict__ c, int match,
                                     int mismatch, int gap_extend, int n_penalty, int vals) {
  const int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (w >= nwork) return;
  const int p = order[w];
  if (p < 0) return;
  const int n1 = (int)(aoff[p + 1] - aoff[p]), n2 = (int)(boff[p + 1] - boff[p]), n3 = (int)(coff[p + 1] - coff[p]);
  int* inf = info + 4 * (int64_t)p;
  if (MODE == SEMI && (n1 == 0 || n2 == 0 || n3 == 0)) {  // no DP: the empty alignment at (0, 0, 0)
    inf[0] = 0; inf[1] = 0; inf[2] = 0; inf[3] = 0;
    return;
  }
  // the layout of triplet_trace<MODE, R, T, W>: tile, step, word, lane (triplet/layout.cuh), of window wq
  constexpr int SR = CodeLayout<R, T>::SR;
  const uint8_t* base = dirs + dir_off[p];
  const int m = wslices != nullptr ? wslices[2 * p] : 0;
  const int last = m > 0 ? wslices[2 * p + 1] : n1;  // the slice its windows count from
  int lo, hi;
  const int64_t KT = (n3 + SR) / SR, steps = window_of<CodeLayout<R, T>::S>(last, m, wq, lo, hi);
  uint8_t* op = run_op + run_off[p];
  int* len = run_len + run_off[p];
  int i, j, k, nr = 0, cur = -1, count = 0;
  if (m > 0 && wq > 0) {  // a window below the first: the walk goes on where the window above left it
    if (inf[3] >= 0 || hi <= 0) return;  // the walk has ended
    i = inf[0]; j = inf[1]; k = inf[2]; nr = -inf[3] - 1;
    if (nr > 0) { --nr; cur = op[nr]; count = len[nr]; }  // the last run may go on
  } else {
    i = out[4 * (int64_t)p + 1]; j = out[4 * (int64_t)p + 2]; k = out[4 * (int64_t)p + 3];
  }
  // the byte of cell (i, j, k): its code, or (vals) the low byte of its value
  auto at = [&](int i, int j, int k) -> int { return base[CodeLayout<R, T>::byte(i, j, k, KT, steps, lo)]; };
  const Scoring sc{match, mismatch, 0, gap_extend, n_penalty};
  const uint8_t *as = a + aoff[p] - 1, *bs = b + boff[p] - 1, *cs = c + coff[p] - 1;  // residue i at as[i]
  // vals in windows: the checkpoints triplet_trace kept (slot q: slice lo_q - 1 of window q, (n2 + 1) x (n3 + 1))
  const int64_t area = (int64_t)(n2 + 1) * (n3 + 1);
  const int* ckp = vals && m > 0 ? ck + ck_off[p] : nullptr;
  // vals: the value X of the cell the walk stands on: the end cell's score, or where the walk left the window
  // above (slice lo - 1 of that window: its checkpoint). Global mode: the sweep held D + 2g (i + j + k) (its
  // offset form, TRIPLET_OPT_OFF), and so do the bytes and the checkpoints; X is D.
  constexpr bool OFF = MODE == GLOBAL && TRIPLET_OPT_OFF;
  int X = out[4 * (int64_t)p];
  if (ckp != nullptr && wq > 0 && nr + (cur >= 0) > 0)
    X = ckp[(wq - 1) * area + (int64_t)j * (n3 + 1) + k] - (OFF ? 2 * gap_extend * (i + j + k) : 0);
  // runs from the end back (a triplet's room: n1 + n2 + n3 + 1 runs, at most one a column)
  bool done = true;
  while (i >= 0 && j >= 0 && k >= 0) {
    if (i < lo) { done = false; break; }  // below the window: the next window's walk goes on
    int d = START;
    if (vals) {
      // the first kind in tie order whose candidate is the cell's value: its neighbour's low byte is that of
      // X minus the kind's column score (exact: no candidate falls 256 or more below X, values_fit)
      if (MODE == GLOBAL ? (i | j | k) == 0 : MODE == SEMI ? (i == 0 || j == 0 || k == 0) : X <= 0) break;
      const int g2 = 2 * gap_extend;
      const int sab = i && j ? sa::subst(sc, as[i], bs[j]) : 0, sac = i && k ? sa::subst(sc, as[i], cs[k]) : 0;
      const int sbc = j && k ? sa::subst(sc, bs[j], cs[k]) : 0;
      const int di[7] = {1, 0, 1, 1, 1, 0, 0}, dj[7] = {1, 1, 0, 1, 0, 1, 0}, dk[7] = {1, 1, 1, 0, 0, 0, 1};
      const int col[7] = {sab + sac + sbc, sbc - g2, sac - g2, sab - g2, -g2, -g2, -g2};
      int nb[7];  // the neighbours' bytes, loaded together (one wait a step), -1 outside the cube
#pragma unroll
      for (int q = 0; q < 7; ++q)
        nb[q] = i < di[q] || j < dj[q] || k < dk[q] ? -1
                : i - di[q] >= lo ? at(i - di[q], j - dj[q], k - dk[q])
                                  : ckp[wq * area + (int64_t)(j - dj[q]) * (n3 + 1) + k - dk[q]] & 0xff;
#pragma unroll
      for (int q = 6; q >= 0; --q)
        d = nb[q] == ((X - col[q] + (OFF ? g2 * (i - di[q] + j - dj[q] + k - dk[q]) : 0)) & 0xff) ? q : d;
      if (d < START) X -= col[d];
    } else {
      d = at(i, j, k);
    }
    if (d >= START) break;
    if (d == cur) {
      ++count;
    } else {
      if (cur >= 0) { op[nr] = (uint8_t)cur; len[nr] = count; ++nr; }
      cur = d;
      count = 1;
    }
    i -= (d == 0 || d == 2 || d == 3 || d == 4);
    j -= (d == 0 || d == 1 || d == 3 || d == 5);
    k -= (d == 0 || d == 1 || d == 2 || d == 6);
  }
  if (cur >= 0) { op[nr] = (uint8_t)cur; len[nr] = count; ++nr; }
  if (!done) {  // where the walk stands, and its runs so far (count -1 - runs: not ended)
    inf[0] = i; inf[1] = j; inf[2] = k; inf[3] = -1 - nr;
    return;
  }
  sa::reverse_runs(op, len, nr);  // forward order: start to end
  inf[0] = i; inf[1] = j; inf[2] = k; inf[3] = nr;
}

}  // namespace tri
