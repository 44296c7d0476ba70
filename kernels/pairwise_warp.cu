// pairwise_warp.cu: exact pairwise alignment, one warp per pair (int32 scores).
//
// Computes the same Gotoh recurrence, end cell and direction bytes as the CPU
// engine (seqalign_cli/families/pairwise/cpu_dp.py), so results agree bit for bit.
// The backend runs it for scoring values above 127, which the byte profile
// of pairwise_subwarp.cu cannot hold (SUB = SUB_COMPUTED here computes each
// substitution score), and for substitution matrices (SUB = SUB_MATRIX);
// everything else goes to pairwise_subwarp.cu, whose whole-warp shapes are
// this kernel's layout with up to 32 rows a lane.
//
// Kernel pairwise_warp<MODE, TRACE, R, SUB>
//   q, t       uint8 codes of all pairs, flat (A C G T = 0..3, other = 4)
//   qoff, toff int64 (npairs+1): pair p's query is q[qoff[p] .. qoff[p+1])
//   order      int32 (nwork): which pair each warp aligns (length-sorted)
//   match, mismatch, gap_open, gap_extend, n_penalty: int32 scoring;
//              SUB (common.cuh): SUB_PROFILE (all five at most 127):
//              substitution scores come from a per-row query profile of
//              signed bytes, one byte permute a cell; SUB_COMPUTED: computed
//              a cell; SUB_MATRIX: read from ``mat``
//   mat        int32 (MATRIX_CODES x MATRIX_CODES), SUB_MATRIX only: the
//              substitution matrix, row = query code (codes below 32),
//              copied to shared memory by the block's threads
//   border     int32 scratch, per pair 2*(n+1) at border_off[p]: H and F of
//              the last row of a stage, read by the next stage (queries
//              longer than 32*R rows)
//   dirs       uint32, per pair at dir_off[p] (TRACE only): word
//              ((k*(n+31) + s)*32 + lane) holds the 4-bit direction codes of
//              the lane's R rows (R <= 8) at step s of stage k; bits 0-1
//              source of H (0 diagonal, 1 I, 2 D, 3 stop), bit 2 D extends,
//              bit 3 I extends
//   out        int32 (npairs, 3): score, query end, target end
//
// Thread mapping: lane l of the warp owns R consecutive query rows of a
// stage of 32*R rows and sweeps the target; at step s it computes column
// j = s - l + 1, so the warp works along an anti-diagonal. Row values stay
// in registers; the bottom row of lane l-1 (H and F at column j) reaches
// lane l through a shuffle; lane 0 reads the row above the stage from the
// border buffer (or the matrix's row 0).
//
// Kernel pairwise_trace<R>: one thread per pair walks the direction codes
// back from the end cell and writes the CIGAR as runs (op 0 '=', 1 'X',
// 2 'I', 3 'D') at run_off[p], with starts (query, target) and stats
// (matches, mismatches, inserted bases, deleted bases); eq_all: equal codes
// are '=' whatever they are (proteins), else only codes below 4 (DNA).
#include "common.cuh"
#include "traceback.cuh"

using namespace sa;

template <int MODE, bool TRACE, int R, int SUB>
__global__ void pairwise_warp(const uint8_t* __restrict__ q, const int64_t* __restrict__ qoff,
                              const uint8_t* __restrict__ t, const int64_t* __restrict__ toff,
                              const int* __restrict__ order, int nwork, int match, int mismatch,
                              int gap_open, int gap_extend, int n_penalty, const int* __restrict__ mat,
                              int* __restrict__ border, const int64_t* __restrict__ border_off,
                              uint32_t* __restrict__ dirs, const int64_t* __restrict__ dir_off,
                              int* __restrict__ out) {
  __shared__ int smat[SUB == SUB_MATRIX ? MATRIX_CODES * MATRIX_CODES : 1];
  if (SUB == SUB_MATRIX) {  // every thread of the block, before any leaves
    for (int k = threadIdx.x; k < MATRIX_CODES * MATRIX_CODES; k += blockDim.x) smat[k] = mat[k];
    __syncthreads();
  }
  const int warp = (int)((blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / SA_WARP);
  const int lane = threadIdx.x % SA_WARP;
  if (warp >= nwork) return;
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty, false};
  const int p = order[warp];
  const int m = (int)(qoff[p + 1] - qoff[p]);
  const int n = (int)(toff[p + 1] - toff[p]);
  const uint8_t* qs = q + qoff[p];
  const uint8_t* ts = t + toff[p];
  const int goe = gap_open + gap_extend;
  // the stage, lane and register of the last query row (end cells in row m)
  const int rows = SA_WARP * R;
  const int k_m = (m - 1) / rows, lane_m = ((m - 1) % rows) / R, r_m = (m - 1) % R;

  // best allowed end cell seen by this lane
  int bs = NEG, bi = 0x7fffffff, bj = 0x7fffffff;
  if (lane == 0) initial_end(MODE, m, n, sc, bs, bi, bj);

  const int nst = (m + rows - 1) / rows;
  int* brow = border + border_off[p];
  for (int k = 0; k < nst; ++k) {
    const int i0 = k * rows + lane * R + 1;  // first row of this lane
    uint8_t qc[R];
    uint32_t plo[R], phi[R];
    int hl[R], el[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      qc[r] = (i0 + r <= m) ? qs[i0 + r - 1] : 4;
      if (SUB == SUB_PROFILE) profile(sc, qc[r], plo[r], phi[r]);
      hl[r] = left_value(MODE, i0 + r, sc);
      el[r] = NEG;
    }
    int rb[R], rj[R];  // local mode: best of each row in this stage, and its column
#pragma unroll
    for (int r = 0; r < R; ++r) { rb[r] = 0; rj[r] = 0; }
    const bool owns_m = (k == k_m && lane == lane_m);
    int up_prev = left_value(MODE, i0 - 1, sc);  // H[i0-1][j-1]
    int bot_h = 0, bot_f = NEG;
    for (int s = 0; s < n + SA_WARP - 1; ++s) {
      const int j = s - lane + 1;
      int up_h = SA_SHFL_UP(bot_h, 1);
      int up_f = SA_SHFL_UP(bot_f, 1);
      if (j < 1 || j > n) continue;
      if (lane == 0) {
        if (k == 0) { up_h = top_value(MODE, j, sc); up_f = NEG; }
        else { up_h = brow[j]; up_f = brow[n + 1 + j]; }
      }
      const uint8_t tc = ts[j - 1];
      const uint32_t sel = profile_selector(tc);
      int hdiag = up_prev, hup = up_h, fup = up_f;
      uint32_t word = 0;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int diag = hdiag + (SUB == SUB_PROFILE  ? profile_score(plo[r], phi[r], sel)
                                  : SUB == SUB_MATRIX ? smat[qc[r] * MATRIX_CODES + tc]
                                                      : subst(sc, qc[r], tc));
        const int f_open = hup - goe, f_ext = fup - gap_extend;
        const int f = max(f_open, f_ext);
        const int e_open = hl[r] - goe, e_ext = el[r] - gap_extend;
        const int e = max(e_open, e_ext);
        const int h = (MODE == LOCAL) ? max(max3(diag, f, e), 0) : max3(diag, f, e);
        if (TRACE) {
          uint32_t src = (h == diag) ? 0u : ((h == f) ? 1u : 2u);
          if (MODE == LOCAL && h == 0) src = 3u;
          src |= (e_ext > e_open ? 4u : 0u) | (f_ext > f_open ? 8u : 0u);
          word |= src << (4 * r);
        }
        if (MODE == LOCAL && h > rb[r]) { rb[r] = h; rj[r] = j; }  // first j wins a tie
        hdiag = hl[r];
        hl[r] = h;
        el[r] = e;
        hup = h;
        fup = f;
      }
      if (TRACE) dirs[dir_off[p] + ((int64_t)k * (n + SA_WARP - 1) + s) * SA_WARP + lane] = word;
      end_cells<MODE, R>(hl, j, i0, m, n, owns_m, r_m, bs, bi, bj);
      bot_h = hup;
      bot_f = fup;
      up_prev = up_h;
      if (lane == SA_WARP - 1 && k + 1 < nst) { brow[j] = hup; brow[n + 1 + j] = fup; }
    }
    SA_SYNCWARP();
    if (MODE == LOCAL) {
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (i0 + r <= m && better(rb[r], i0 + r, rj[r], bs, bi, bj)) { bs = rb[r]; bi = i0 + r; bj = rj[r]; }
    }
  }
  group_best<SA_WARP>(bs, bi, bj);
  if (lane == 0) { out[3 * p] = bs; out[3 * p + 1] = bi; out[3 * p + 2] = bj; }
}

template <int R>
__global__ void pairwise_trace(const uint8_t* __restrict__ q, const int64_t* __restrict__ qoff,
                               const uint8_t* __restrict__ t, const int64_t* __restrict__ toff,
                               const int* __restrict__ order, int nwork, int mode,
                               const uint32_t* __restrict__ dirs, const int64_t* __restrict__ dir_off,
                               const int* __restrict__ ends, const int64_t* __restrict__ run_off,
                               uint8_t* __restrict__ run_op, int* __restrict__ run_len,
                               int* __restrict__ info, int eq_all) {
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= nwork) return;
  const int p = order[w];
  walk_back<Nibbles<SA_WARP, R>>(q + qoff[p], t + toff[p], (int)(toff[p + 1] - toff[p]), mode, dirs + dir_off[p],
                                 ends[3 * p], ends[3 * p + 1], ends[3 * p + 2], run_op + run_off[p],
                                 run_len + run_off[p], info + 7 * p, Scoring{0, 0, 0, 0, 0, eq_all != 0});
}
