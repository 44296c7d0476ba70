// pairwise_subwarp.cu: exact pairwise alignment, one group of G lanes per pair.
//
// Subwarp scheduling: a warp is split into 32/G groups (G = 1, 4, 8, 16 or
// 32), each aligning its own pair, so that short pairs do not leave most of
// a warp idle in the fill and drain of the anti-diagonal sweep. Computes the
// same Gotoh recurrence, end cell and direction codes as the CPU engine
// (seqalign_cli/families/pairwise/cpu_dp.py), so results agree bit for bit.
//
// Kernel pairwise_subwarp<MODE, TRACE, G, R, WB>  (int32 scores)
//   q, t        uint8 codes of all pairs, flat (A C G T = 0..3, other = 4)
//   qoff, toff  int64 (npairs+1): pair p's query is q[qoff[p] .. qoff[p+1])
//   order       int32 (nwork): the pair each group aligns (length-sorted, so
//               the groups of a warp have similar lengths)
//   match, mismatch, gap_open, gap_extend, n_penalty: int32 scoring, each at
//               most 127 (substitution scores come from a query profile of
//               signed bytes, one byte permute a cell)
//   border      int32 scratch, per pair 2*(n+1) at border_off[p]: H and F of
//               the last row of a stage, read by the next one (queries longer
//               than G*R rows)
//   dirs        uint32 direction codes (TRACE), per pair at dir_off[p], laid
//               out as traceback.cuh describes
//   out         int32 (npairs, 3): score, query end, target end
//   stage_sel   int32 (nwork) or null: compute only stage stage_sel[w] of
//               group w (none when negative), writing its direction codes
//               as stage 0 and no end cell (the checkpointed traceback)
//   keep        1: the last row of every stage k is kept at border row k
//               (2*(n+1) ints each), so any stage can be recomputed later;
//               0: one border row, reused
//
// Thread mapping: lane l of a group owns R consecutive query rows of a stage
// of G*R rows and sweeps the target; at step s it computes column
// j = s - l + 1, so the group works along an anti-diagonal. Row values stay
// in registers; H and F of the row above reach lane l from lane l-1 through
// a shuffle of width G; lane 0 reads row 0 or the border row of the stage
// above. Loop bounds are the warp's largest, so shuffles stay convergent.
// WB > 1 (long pairs, score only, G = warp size, blockDim = WB warps): the
// WB warps of a block share one pair, warp w taking stages w, w + WB, ...;
// the last row of each stage goes to the next warp through a ring of WB
// border rows, and a warp starts a block of 32 columns only once the warp
// above has published (shared memory) that it wrote them: the stages run
// as a pipeline a few dozen columns apart, so a few long pairs fill the GPU.
//
// Kernel pairwise_subwarp16<MODE, TRACE, G, R, WB>  (two pairs a group)
//   The same sweep with 16-bit scores: each register holds the cells of two
//   pairs (work item w aligns pairs order[2w] in the low halves and
//   order[2w+1] in the high halves, -1: none), so one DPX instruction
//   updates two cells. WB = 1: used only when every value of both pairs is
//   bounded by 2^14 (the host checks); out as above. TRACE: the signs of
//   packed differences give the direction codes of both halves; each
//   pair's codes go to its own dir_off[p] in the plane layout of
//   traceback.cuh (its own n and stages), which subwarp_trace walks.
//   WB > 1 (long pairs, score only; G = warp size, blockDim = WB warps):
//   the stages of the item's two pairs go to the WB warps as in
//   pairwise_subwarp, the border ring holding int32 values (H and F of each
//   half, 4 * (n + 1) ints a row); each warp keeps its values relative to an
//   offset per half that it moves to its largest H every 32 steps, so the
//   values of any length fit 16 bits when neighbouring cells are close
//   (the host checks the scoring: pairwise_subwarp.shared16_fits). Local
//   mode floors H at each half's relative 0, and folds its row maxima into
//   the lane's int32 best at every move.
//
// Kernel subwarp_trace<G, R, PLANES>: one thread per pair of order (-1:
// none) walks the direction codes back (traceback.cuh: the plane layout of
// the 16-bit kernel, or the nibbles of the int32 one); match .. n_penalty:
// the scoring, for the walk over planes (its local stop).
#include "common.cuh"
#include "traceback.cuh"

using namespace sa;

// Gap costs as the cell loops use them: one value per lane width.
template <class T>
struct Gaps {
  T ngoe, nge, neg;  // -(gap_open + gap_extend), -gap_extend, minus infinity
};

// One step of a lane's R rows, int32: column j of rows i0 .. i0+R-1.
// In: hdiag = H[i0-1][j-1], hupg = H[i0-1][j] - goe, fup = F[i0-1][j];
// hl/hg/el hold H, H - goe and E of each row at column j-1. Out: the same at
// column j, fup = F of the bottom row; word holds the direction codes.
template <int MODE, bool TRACE, int R>
__device__ __forceinline__ void cells32(const uint32_t (&plo)[R], uint32_t phi, uint32_t sel, int (&hl)[R],
                                        int (&hg)[R], int (&el)[R], int (&rb)[R], int (&rj)[R], int hdiag,
                                        int hupg, int& fup, const Gaps<int>& g, int j,
                                        uint32_t (&word)[(R + 7) / 8]) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int diag = hdiag + profile_score(plo[r], phi, sel);
    const int f_ext = fup + g.nge, e_ext = el[r] + g.nge;
    int f, e, h;
    if (TRACE) {
      // the same choices as the CPU engine: opening before extending, then
      // diagonal before I (f) before D (e); bits as traceback.cuh describes
      bool f_open, e_open, f_over_e, is_diag;
      f = max_which(hupg, f_ext, f_open);
      e = max_which(hg[r], e_ext, e_open);
      const int fe = max_which(f, e, f_over_e);
      h = max_which(diag, fe, is_diag);
      uint32_t src = is_diag ? 0u : (f_over_e ? 1u : 2u);
      if (MODE == LOCAL) {
        if (h <= 0) src = 3u;
        h = max(h, 0);
      }
      src |= (e_open ? 0u : 4u) | (f_open ? 0u : 8u);
      word[r / 8] |= src << (4 * (r % 8));
    } else {
      f = max(hupg, f_ext);
      e = max(hg[r], e_ext);
      h = (MODE == LOCAL) ? max(max3(diag, f, e), 0) : max3(diag, f, e);
    }
    if (MODE == LOCAL && h > rb[r]) { rb[r] = h; rj[r] = j; }  // first j wins a tie
    hdiag = hl[r];
    hl[r] = h;
    hg[r] = h + g.ngoe;
    el[r] = e;
    hupg = hg[r];
    fup = f;
  }
}

// Blocks of a shared-pair launch (WB > 1) resident per multiprocessor: the
// register budget each thread gets (65536 / (WB * 32 * SHARED_BLOCKS)).
#ifndef SHARED_BLOCKS
#define SHARED_BLOCKS 2
#endif
// Blocks of a traceback forward launch (TRACE, WB = 1) resident per
// multiprocessor: caps registers at 65536 / (128 * TRACE_BLOCKS).
#ifndef TRACE_BLOCKS
#define TRACE_BLOCKS 1
#endif
// The other launches take SA_THREADS a block (common.cuh); score-only one-warp launches have no register cap.

// A border cell: read past the L1 cache when another warp of the block wrote it.
template <int WB>
__device__ __forceinline__ int load_border(const int* p) {
  return WB > 1 ? *(const volatile int*)p : *p;
}

// The hand-over of border rows between the warps sharing a pair (WB > 1):
// done[w] says up to where warp w has written the bottom row of its stage
// k (as k * (n + 1) + column); the warp of stage k waits on the warp of k-1.
template <int WB, int G>
struct StageLink {
  volatile int* done;
  int wib, lane, k, n, nst;
  bool live;
  // wait until the warp of stage k-1 has written the border up to column col
  __device__ void wait(int col) const {
    if (WB > 1 && live && k > 0) {
      const int target = (k - 1) * (n + 1) + min(col, n);
      while (SA_SHFL(done[(wib + WB - 1) % WB], 0) < target) {
      }
      __threadfence_block();
    }
  }
  // say that this stage's bottom row is written up to column col
  __device__ void publish(int col) const {
    if (WB > 1 && live && k + 1 < nst) {
      SA_SYNCWARP();
      if (lane == G - 1) {
        __threadfence_block();
        done[wib] = k * (n + 1) + max(min(col, n), 0);
      }
    }
  }
};

template <int MODE, bool TRACE, int G, int R, int WB>
__global__ void __launch_bounds__(WB > 1 ? WB * SA_WARP : SA_THREADS, WB > 1 ? SHARED_BLOCKS : (TRACE ? TRACE_BLOCKS : 1))
    pairwise_subwarp(const uint8_t* __restrict__ q, const int64_t* __restrict__ qoff,
                                 const uint8_t* __restrict__ t, const int64_t* __restrict__ toff,
                                 const int* __restrict__ order, int nwork, int match, int mismatch,
                                 int gap_open, int gap_extend, int n_penalty, int* __restrict__ border,
                                 const int64_t* __restrict__ border_off, uint32_t* __restrict__ dirs,
                                 const int64_t* __restrict__ dir_off, int* __restrict__ out,
                                 const int* __restrict__ stage_sel, int keep) {
  constexpr int ROWS = G * R, W = (R + 7) / 8;
  static_assert(WB == 1 || (G == SA_WARP && !TRACE), "a pair shared by several warps: whole warps, score only");
  const int tid = (int)(blockIdx.x * (int64_t)blockDim.x + threadIdx.x);
  // several warps a pair: block b aligns work item b, warp wib takes stages wib, wib + WB, ...
  const int w = WB > 1 ? (int)blockIdx.x : tid / G;
  const int wib = WB > 1 ? (int)threadIdx.x / SA_WARP : 0;
  const int lane = threadIdx.x % G;
  if (WB > 1 ? w >= nwork : (tid / SA_WARP) * (SA_WARP / G) >= nwork) return;  // the whole warp is idle
  const bool active = w < nwork;
  // columns of the bottom row each warp has written, as stage * (n + 1) + column
  __shared__ volatile int done[WB];
  __shared__ int best[WB][3];
  if (WB > 1) {
    if (threadIdx.x < WB) done[threadIdx.x] = -1;
    __syncthreads();
  }
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  const Gaps<int> g{-(gap_open + gap_extend), -gap_extend, NEG};
  const int p = active ? order[w] : 0;
  const int m = active ? (int)(qoff[p + 1] - qoff[p]) : 0;
  const int n = active ? (int)(toff[p + 1] - toff[p]) : 0;
  const uint8_t* qs = q + qoff[p];
  const uint8_t* ts = t + toff[p];
  const int k_m = (m - 1) / ROWS, lane_m = ((m - 1) % ROWS) / R, r_m = (m - 1) % ROWS % R;

  int bs = NEG, bi = 0x7fffffff, bj = 0x7fffffff;
  if (lane == 0 && wib == 0) initial_end(MODE, m, n, sc, bs, bi, bj);

  const int nst = (m + ROWS - 1) / ROWS;
  // the stages this group computes: all, or the one stage_sel names (none when negative)
  const int kf = (stage_sel != nullptr && active) ? stage_sel[w] : 0;
  const int kl = stage_sel == nullptr ? nst : (active && kf >= 0 ? kf + 1 : kf);
  const int nk_w = warp_max(kl - kf);
  const int steps_w = warp_max(nst > 0 && kl > kf ? n + G - 1 : 0);
  int* brow = border + (active && nst > 1 ? border_off[p] : 0);
  const int64_t brow_size = 2 * (int64_t)(n + 1);
  uint32_t* dp = dirs + (TRACE && active ? dir_off[p] : 0);
  // byte 4 of every profile: any letter against N scores -n_penalty
  const uint32_t phi = (uint32_t)(-n_penalty) & 0xffu;
  for (int kk = wib; kk < nk_w; kk += WB) {
    const int k = kf + kk;
    const bool live = k < kl;
    // border rows: one per stage (keep), a ring of one per warp (WB > 1), or one reused
    const int* brow_in = brow + (keep ? k - 1 : (k - 1 + WB) % WB) * brow_size;  // the last row of stage k-1
    int* brow_out = brow + (keep ? k : k % WB) * brow_size;
    const StageLink<WB, G> link{done, wib, lane, k, n, nst, live};
    const int i0 = k * ROWS + lane * R + 1;  // first row of this lane
    uint32_t plo[R];
    int hl[R], hg[R], el[R], rb[R], rj[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const uint8_t qc = (live && i0 + r <= m) ? qs[i0 + r - 1] : 4;
      uint32_t unused;
      profile(sc, qc, plo[r], unused);
      hl[r] = left_value(MODE, i0 + r, sc);
      hg[r] = hl[r] + g.ngoe;
      el[r] = NEG;
      rb[r] = 0;  // local mode: best of each row in this stage, and its column
      rj[r] = 0;
    }
    const bool owns_m = live && k == k_m && lane == lane_m;
    int up_prev = left_value(MODE, i0 - 1, sc);  // H[i0-1][j-1]
    int bot_h = 0, bot_f = NEG;
    // lane 0 of a later stage: the border cell of the next step, loaded one step ahead
    int nb_h = 0, nb_f = NEG;
    link.wait(SA_WARP + 1);
    if (lane == 0 && live && k > 0 && n > 0) { nb_h = load_border<WB>(brow_in + 1); nb_f = load_border<WB>(brow_in + n + 2); }
    for (int s = 0; s < steps_w; ++s) {
      const int j = s - lane + 1;
      if (WB > 1 && (s & (SA_WARP - 1)) == 0 && s > 0) {
        link.publish(s - SA_WARP);  // the last lane wrote up to column s - 31 - 1 + 1
        link.wait(s + SA_WARP + 1);  // lane 0 reads up to column s + 32 + 1 in the next 32 steps
      }
      int up_h = SA_SHFL_UP_W(bot_h, 1, G);
      int up_f = SA_SHFL_UP_W(bot_f, 1, G);
      if (!live || j < 1 || j > n) continue;
      if (lane == 0) {
        if (k == 0) { up_h = top_value(MODE, j, sc); up_f = NEG; }
        else {
          up_h = nb_h; up_f = nb_f;
          if (j < n) { nb_h = load_border<WB>(brow_in + j + 1); nb_f = load_border<WB>(brow_in + n + 2 + j); }
        }
      }
      const uint32_t sel = (uint32_t)ts[j - 1] * 0x1111u + 0x8880u;  // byte c, sign replicated
      uint32_t word[W];
#pragma unroll
      for (int x = 0; x < W; ++x) word[x] = 0;
      int fup = up_f;
      cells32<MODE, TRACE, R>(plo, phi, sel, hl, hg, el, rb, rj, up_prev, up_h + g.ngoe, fup, g, j, word);
      if (TRACE) {
        const int64_t base = dir_base<G, R>(n, k - kf, s) + lane;
#pragma unroll
        for (int x = 0; x < W; ++x) dp[base + x * G] = word[x];
      }
      end_cells<MODE, R>(hl, j, i0, m, n, owns_m, r_m, bs, bi, bj);
      bot_h = hl[R - 1];
      bot_f = fup;
      up_prev = up_h;
      if (lane == G - 1 && k + 1 < nst) { brow_out[j] = bot_h; brow_out[n + 1 + j] = bot_f; }
    }
    link.publish(n);
    SA_SYNCWARP();
    if (MODE == LOCAL && live) {
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (i0 + r <= m && better(rb[r], i0 + r, rj[r], bs, bi, bj)) { bs = rb[r]; bi = i0 + r; bj = rj[r]; }
    }
  }
  group_best<G>(bs, bi, bj);
  if (WB > 1) {  // the best of the block's warps
    if (lane == 0) { best[wib][0] = bs; best[wib][1] = bi; best[wib][2] = bj; }
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (int x = 1; x < WB; ++x)
      if (better(best[x][0], best[x][1], best[x][2], bs, bi, bj)) { bs = best[x][0]; bi = best[x][1]; bj = best[x][2]; }
  }
  if (active && lane == 0 && stage_sel == nullptr) { out[3 * p] = bs; out[3 * p + 1] = bi; out[3 * p + 2] = bj; }
}

// The end of a cell of row r, 16-bit lanes (h, e, f: its values): the local
// row maxima, then the values that the next row and the next column read.
// Row maxima are kept in every column, a half's padding columns (past its
// own target) included: a padding cell's value never exceeds that of a real
// cell before it (smaller i, or the same row further left), so it cannot
// hide the best end cell; the fold skips padding columns.
template <int MODE>
__device__ __forceinline__ void advance16(uint32_t h, uint32_t e, uint32_t f, uint32_t jj,
                                          const Gaps<uint32_t>& g, uint32_t& hl, uint32_t& hg, uint32_t& el,
                                          uint32_t& rb, uint32_t& rj, uint32_t& hdiag, uint32_t& hupg, uint32_t& fup) {
  if (MODE == LOCAL) {
    // first j wins a tie; h and rb lie in [NEG16, 8000], so h - rb fits 16 bits
    const uint32_t up = gt16(h, rb);
    rb = (rb & ~up) | (h & up);
    rj = (rj & ~up) | (jj & up);
  }
  hdiag = hl;
  hl = h;
  hg = add_max16(h, g.ngoe, g.neg);
  el = e;
  hupg = hg;
  fup = f;
}

// One step of a lane's R rows, 16-bit lanes (two pairs): as cells32, every
// value packed; NMASK: some half's target letter is N (nmask selects those
// halves, whose scores are -n_penalty). FLOOR (local mode, values relative to
// offsets): H is floored at zero, each half's 0 as a relative value,
// instead of at 0.
template <int MODE, int R, bool NMASK, bool FLOOR = false>
__device__ __forceinline__ void cells16(const uint32_t (&pa)[R], const uint32_t (&pb)[R], uint32_t sel,
                                        uint32_t nmask, uint32_t npen, uint32_t (&hl)[R], uint32_t (&hg)[R],
                                        uint32_t (&el)[R], uint32_t (&rb)[R], uint32_t (&rj)[R], uint32_t hdiag,
                                        uint32_t hupg, uint32_t& fup, const Gaps<uint32_t>& g, uint32_t jj,
                                        uint32_t zero = 0) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    uint32_t sub = profile_score16(pa[r], pb[r], sel);
    if (NMASK) sub = (sub & ~nmask) | (npen & nmask);
    const uint32_t f = add_max16(fup, g.nge, hupg);   // max(F_up - ge, H_up - goe)
    const uint32_t e = add_max16(el[r], g.nge, hg[r]);  // max(E_left - ge, H_left - goe)
    const uint32_t d = add_max16(hdiag, sub, e);
    const uint32_t h = (MODE == LOCAL) ? (FLOOR ? max3_16(d, f, zero) : max16_relu(d, f)) : max16(d, f);
    advance16<MODE>(h, e, f, jj, g, hl[r], hg[r], el[r], rb[r], rj[r], hdiag, hupg, fup);
  }
}

// One step of a lane's R rows with direction codes (16-bit lanes, two
// pairs): as cells16, and each comparison is also taken as a difference
// whose sign says which side won (no wrap: the values compared are
// neighbours in the matrix, a few gap costs apart). The signs go to the
// plane layout of traceback.cuh: x01 gets bytes (not diagonal, D over I)
// of the low pair then the high pair, x23 (D extends, I extends), bit r % 8
// of each byte; the ties are cells32's (opening before extending, then
// diagonal before I before D).
template <int MODE, int R, bool NMASK>
__device__ __forceinline__ void cells16_trace(const uint32_t (&pa)[R], const uint32_t (&pb)[R], uint32_t sel,
                                              uint32_t nmask, uint32_t npen, uint32_t (&hl)[R], uint32_t (&hg)[R],
                                              uint32_t (&el)[R], uint32_t (&rb)[R], uint32_t (&rj)[R],
                                              uint32_t hdiag, uint32_t hupg, uint32_t& fup, const Gaps<uint32_t>& g,
                                              uint32_t jj, uint32_t (&x01)[(R + 7) / 8],
                                              uint32_t (&x23)[(R + 7) / 8]) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    uint32_t sub = profile_score16(pa[r], pb[r], sel);
    if (NMASK) sub = (sub & ~nmask) | (npen & nmask);
    const uint32_t f = add_max16(fup, g.nge, hupg);     // max(F_up - ge, H_up - goe)
    const uint32_t i_ext = sub16(hupg, f);              // < 0: I extends
    const uint32_t e = add_max16(el[r], g.nge, hg[r]);  // max(E_left - ge, H_left - goe)
    const uint32_t d_ext = sub16(hg[r], e);             // < 0: D extends
    const uint32_t fe = max16(f, e);
    const uint32_t d_over_i = sub16(f, e);              // < 0: D rather than I
    const uint32_t diag = add16(hdiag, sub);
    const uint32_t h = (MODE == LOCAL) ? max16_relu(diag, fe) : max16(diag, fe);
    const uint32_t not_diag = sub16(diag, h);           // < 0: H comes from a gap
    // the sign bytes (1 and 3 of each difference), replicated: low pair in bytes 0-1, high pair in 2-3
    const uint32_t bit = 0x01010101u << (r % 8);
    x01[r / 8] |= byte_perm(not_diag, d_over_i, 0xfbd9u) & bit;
    x23[r / 8] |= byte_perm(d_ext, i_ext, 0xfbd9u) & bit;
    advance16<MODE>(h, e, f, jj, g, hl[r], hg[r], el[r], rb[r], rj[r], hdiag, hupg, fup);
  }
}

// End cells of half X (16-bit lanes) at column j: row m (glocal, semi), column n
// (semi), (m, n) (global). owns: this lane holds row m of the half's pair.
// off: the half's offset (shared pairs: values are kept relative to it).
template <int MODE, int R, int X>
__device__ __forceinline__ void end_cells16(const uint32_t (&hl)[R], int j, int i0, int jn, int mx, bool owns, int rm,
                                            int& bs, int& bi, int& bj, int off) {
  if (j > jn) return;
  if ((MODE == GLOCAL || MODE == SEMI || (MODE == GLOBAL && j == jn)) && mx > 0 && owns) {
    uint32_t v = hl[0];
#pragma unroll
    for (int r = 1; r < R; ++r) v = (r == rm) ? hl[r] : v;
    const int sv = (X ? hi16(v) : lo16(v)) + off;
    if (better(sv, mx, j, bs, bi, bj)) { bs = sv; bi = mx; bj = j; }
  }
  if (MODE == SEMI && j == jn) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int sv = (X ? hi16(hl[r]) : lo16(hl[r])) + off;
      if (i0 + r < mx && better(sv, i0 + r, jn, bs, bi, bj)) { bs = sv; bi = i0 + r; bj = jn; }
    }
  }
}

// Launch bounds: blocks of 16 warps (long pairs) one a multiprocessor (128
// registers a thread), of 2 to 8 warps SHARED_BLOCKS; one-warp launches
// with traceback at least one block (up to 255 registers), score-only ones
// no minimum (0: the compiler's own choice, 167 registers for 20 rows, so
// three blocks fit a multiprocessor; a minimum of one took 211 and cost
// a fifth of the speed at 150 bp).
template <int MODE, bool TRACE, int G, int R, int WB>
__global__ void __launch_bounds__(WB > 1 ? WB * SA_WARP : SA_THREADS,
                                  WB > 8 ? 1 : (WB > 1 ? SHARED_BLOCKS : (TRACE ? 1 : 0)))
    pairwise_subwarp16(const uint8_t* __restrict__ q, const int64_t* __restrict__ qoff,
                       const uint8_t* __restrict__ t, const int64_t* __restrict__ toff,
                       const int* __restrict__ order, int nwork, int match, int mismatch, int gap_open,
                       int gap_extend, int n_penalty, int* __restrict__ border,
                       const int64_t* __restrict__ border_off, uint32_t* __restrict__ dirs,
                       const int64_t* __restrict__ dir_off, int* __restrict__ out) {
  constexpr int ROWS = G * R, W = (R + 7) / 8;
  // several warps a pair (WB > 1): values relative to a per-warp offset
  constexpr bool OFF = WB > 1;
  static_assert(WB == 1 || (G == SA_WARP && !TRACE), "a pair shared by several warps: whole warps, score only");
  const int tid = (int)(blockIdx.x * (int64_t)blockDim.x + threadIdx.x);
  const int w = WB > 1 ? (int)blockIdx.x : tid / G;
  const int wib = WB > 1 ? (int)threadIdx.x / SA_WARP : 0;
  const int lane = threadIdx.x % G;
  if (WB > 1 ? w >= nwork : (tid / SA_WARP) * (SA_WARP / G) >= nwork) return;  // the whole warp is idle
  __shared__ volatile int done[WB];
  __shared__ int best[WB][2][3];
  if (WB > 1) {
    if (threadIdx.x < WB) done[threadIdx.x] = -1;
    __syncthreads();
  }
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  const int goe = gap_open + gap_extend;
  const Gaps<uint32_t> g{pk16(-goe, -goe), pk16(-gap_extend, -gap_extend), pk16(NEG16, NEG16)};
  const uint32_t npen = pk16(-n_penalty, -n_penalty);
  // the two pairs: half 0 (low) and half 1 (high); a missing pair (-1) is empty
  int pp[2], mm[2], nn[2];
  const uint8_t* qs[2];
  const uint8_t* ts[2];
#pragma unroll
  for (int x = 0; x < 2; ++x) {
    const int item = 2 * w + x;
    pp[x] = (w < nwork) ? order[item] : -1;
    const int p = pp[x] >= 0 ? pp[x] : 0;
    mm[x] = pp[x] >= 0 ? (int)(qoff[p + 1] - qoff[p]) : 0;
    nn[x] = pp[x] >= 0 ? (int)(toff[p + 1] - toff[p]) : 0;
    qs[x] = q + qoff[p];
    ts[x] = t + toff[p];
  }
  const int m = max(mm[0], mm[1]), n = max(nn[0], nn[1]);
  // TRACE: each pair's direction codes, and its stages; held: this lane's
  // words of the current 8 steps (shared memory, a row per lane, padded
  // against bank conflicts)
  __shared__ uint32_t held[2][TRACE ? W : 1][TRACE ? SA_THREADS : 1][9];
  const int me = TRACE ? threadIdx.x : 0;
  uint32_t* dp[2];
  int nst_x[2];
#pragma unroll
  for (int x = 0; x < 2; ++x) {
    dp[x] = dirs + (TRACE && pp[x] >= 0 ? dir_off[pp[x]] : 0);
    nst_x[x] = (mm[x] + ROWS - 1) / ROWS;
  }

  int bs[2], bi[2], bj[2], km[2], lanem[2], rm[2];
#pragma unroll
  for (int x = 0; x < 2; ++x) {
    bs[x] = NEG; bi[x] = 0x7fffffff; bj[x] = 0x7fffffff;
    if (lane == 0 && wib == 0) initial_end(MODE, mm[x], nn[x], sc, bs[x], bi[x], bj[x]);
    km[x] = (mm[x] - 1) / ROWS; lanem[x] = ((mm[x] - 1) % ROWS) / R; rm[x] = (mm[x] - 1) % ROWS % R;
  }

  const int nst = (m + ROWS - 1) / ROWS;
  const int nst_w = warp_max(nst);
  const int steps_w = warp_max(nst > 0 ? n + G - 1 : 0);
  // the border rows of a work item sit at its first pair's offset: one row of
  // both halves packed (WB = 1), or a ring of WB rows of int32 values
  // (H and F of the low half, then of the high half: 4 * (n + 1) ints a row)
  uint32_t* brow = (uint32_t*)border + (nst > 1 ? border_off[pp[0]] : 0);
  const int64_t ring = 4 * (int64_t)(n + 1);
  for (int k = wib; k < nst_w; k += WB) {
    const bool live = k < nst;
    const int i0 = k * ROWS + lane * R + 1;
    // OFF: the absolute value of each half is its 16-bit value plus off[x]
    // (warp-uniform); it starts at H[k * ROWS][0] and follows the warp's
    // largest H every 32 steps (rebase)
    int off[2] = {0, 0};
    if (OFF) off[0] = off[1] = left_value(MODE, k * ROWS, sc);
    // local mode: each half's 0 relative to its offset (the floor of H); far
    // below, where no H of the warp can be 0, the kernel's minus infinity
    auto floor16 = [&]() { return pk16(max(-off[0], NEG16), max(-off[1], NEG16)); };
    uint32_t zero = floor16();
    const int* brow_in = (const int*)brow + ((k - 1 + WB) % WB) * ring;
    int* brow_out = (int*)brow + (k % WB) * ring;
    const StageLink<WB, G> link{done, wib, lane, k, n, nst, live};
    // an absolute border value of half x, relative to this warp's offset
    auto rel = [&](int v, int x) { return min(max(v - off[x], NEG16), 16383); };
    // H and F of the border row of stage k-1 at column c (lane 0)
    auto read_border = [&](int c, uint32_t& h, uint32_t& f) {
      if (OFF) {
        h = pk16(rel(load_border<WB>(brow_in + c), 0), rel(load_border<WB>(brow_in + 2 * (n + 1) + c), 1));
        f = pk16(rel(load_border<WB>(brow_in + n + 1 + c), 0), rel(load_border<WB>(brow_in + 3 * (n + 1) + c), 1));
      } else {
        h = brow[c];
        f = brow[n + 1 + c];
      }
    };
    uint32_t pa[R], pb[R], hl[R], hg[R], el[R], rb[R], rj[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      uint32_t unused;
      profile(sc, (live && i0 + r <= mm[0]) ? qs[0][i0 + r - 1] : (uint8_t)4, pa[r], unused);
      profile(sc, (live && i0 + r <= mm[1]) ? qs[1][i0 + r - 1] : (uint8_t)4, pb[r], unused);
      const int left = left_value(MODE, i0 + r, sc) - off[0];
      hl[r] = pk16(left, left);
      hg[r] = pk16(left - goe, left - goe);
      el[r] = g.neg;
      rb[r] = OFF ? g.neg : 0;  // OFF: no row maximum yet (those of WB = 1 start at H[i][0] = 0)
      rj[r] = 0;
    }
    const int left0 = left_value(MODE, i0 - 1, sc) - off[0];
    uint32_t up_prev = pk16(left0, left0);
    uint32_t bot_h = 0, bot_f = g.neg;
    uint32_t nb_h = 0, nb_f = g.neg;  // as in pairwise_subwarp: the next border cell
    link.wait(SA_WARP + 1);
    if (lane == 0 && live && k > 0 && n > 0) read_border(1, nb_h, nb_f);
    // local mode: each row's maximum so far, folded into the lane's best end
    // (absolute values); a column is rebuilt from its low 16 bits, being at
    // most 65535 columns before jref, the lane's last column. Unset maxima
    // (NEG16) and padding columns are skipped. The rows start again with no
    // maximum.
    auto fold = [&](int jref) {
      // first the lane's largest row maximum: a half whose maxima cannot reach its best skips the rest
      uint32_t top = rb[0];
#pragma unroll
      for (int r = 1; r < R; ++r) top = max16(top, rb[r]);
      const bool look[2] = {lo16(top) > NEG16 && lo16(top) + off[0] >= bs[0],
                            hi16(top) > NEG16 && hi16(top) + off[1] >= bs[1]};
#pragma unroll
      for (int r = 0; r < R; ++r) {
#pragma unroll
        for (int x = 0; x < 2; ++x) {
          if (!look[x]) continue;
          const int v = x ? hi16(rb[r]) : lo16(rb[r]);  // relative to off[x]
          const int j16 = x ? (int)(rj[r] >> 16) : (int)(rj[r] & 0xffffu);
          const int jv = jref - ((jref - j16) & 0xffff);
          if (v > NEG16 && i0 + r <= mm[x] && jv <= nn[x] && better(v + off[x], i0 + r, jv, bs[x], bi[x], bj[x])) {
            bs[x] = v + off[x]; bi[x] = i0 + r; bj[x] = jv;
          }
        }
        rb[r] = g.neg;
      }
    };
    // OFF: move both offsets to the warp's largest H (every value drops by
    // the same amount); local mode folds the row maxima first (jref: the
    // lane's last column)
    auto rebase = [&](int jref) {
      if (MODE == LOCAL) fold(jref);
      uint32_t mx = hl[0];
#pragma unroll
      for (int r = 1; r < R; ++r) mx = max16(mx, hl[r]);
#pragma unroll
      for (int o = SA_WARP / 2; o > 0; o /= 2) mx = max16(mx, (uint32_t)SA_SHFL_XOR((int)mx, o));
      const int da = lo16(mx), db = hi16(mx);
      const uint32_t nd = pk16(-da, -db);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        hl[r] = add_max16(hl[r], nd, g.neg);
        hg[r] = add_max16(hg[r], nd, g.neg);
        el[r] = add_max16(el[r], nd, g.neg);
      }
      up_prev = add_max16(up_prev, nd, g.neg);
      bot_h = add_max16(bot_h, nd, g.neg);
      bot_f = add_max16(bot_f, nd, g.neg);
      nb_h = add_max16(nb_h, nd, g.neg);
      nb_f = add_max16(nb_f, nd, g.neg);
      off[0] += da;
      off[1] += db;
      zero = floor16();
    };
    // TRACE: write the chunk c of 8 steps of each pair (its own stages and steps only)
    auto flush = [&](int c) {
#pragma unroll
      for (int x = 0; x < 2; ++x) {
        if (!live || k >= nst_x[x] || c >= (nn[x] + G + 6) / 8) continue;
#pragma unroll
        for (int w2 = 0; w2 < W; ++w2) {
          const uint32_t* src = held[x][w2][me];
          uint4* dst = (uint4*)(dp[x] + Planes<G, R>::chunk(nn[x], k, 8 * c, w2, lane));
          dst[0] = make_uint4(src[0], src[1], src[2], src[3]);
          dst[1] = make_uint4(src[4], src[5], src[6], src[7]);
        }
      }
    };
    for (int s = 0; s < steps_w; ++s) {
      const int j = s - lane + 1;
      if (OFF && (s & (SA_WARP - 1)) == 0 && s > 0) {
        link.publish(s - SA_WARP);          // the last lane wrote up to column s - 31 - 1 + 1
        link.wait(s + SA_WARP + 1);  // lane 0 reads up to column s + 32 + 1 in the next 32 steps
        rebase(s - lane);
      }
      uint32_t up_h = (uint32_t)SA_SHFL_UP_W((int)bot_h, 1, G);
      uint32_t up_f = (uint32_t)SA_SHFL_UP_W((int)bot_f, 1, G);
      if (TRACE && s > 0 && (s & 7) == 0) flush(s / 8 - 1);
      if (!live || j < 1 || j > n) continue;
      if (lane == 0) {
        if (k == 0) { up_h = pk16(top_value(MODE, j, sc) - off[0], top_value(MODE, j, sc) - off[1]); up_f = g.neg; }
        else {
          up_h = nb_h; up_f = nb_f;
          if (j < n) read_border(j + 1, nb_h, nb_f);
        }
      }
      const uint32_t ta = j <= nn[0] ? ts[0][j - 1] : 4u, tb = j <= nn[1] ? ts[1][j - 1] : 4u;
      const uint32_t sel = profile_selector16(ta & 3u, tb & 3u);
      // a target N scores -n_penalty against every row: those halves are masked
      const uint32_t nmask = (ta > 3u ? 0xffffu : 0u) | (tb > 3u ? 0xffff0000u : 0u);
      const uint32_t hupg = add_max16(up_h, g.ngoe, g.neg);
      uint32_t fup = up_f;
      if (TRACE) {
        uint32_t x01[W], x23[W];
#pragma unroll
        for (int x = 0; x < W; ++x) x01[x] = x23[x] = 0;
        if (nmask)
          cells16_trace<MODE, R, true>(pa, pb, sel, nmask, npen, hl, hg, el, rb, rj, up_prev, hupg, fup, g,
                                       pk16(j, j), x01, x23);
        else
          cells16_trace<MODE, R, false>(pa, pb, sel, nmask, npen, hl, hg, el, rb, rj, up_prev, hupg, fup, g,
                                        pk16(j, j), x01, x23);
        // each pair's plane words of this step, held until its chunk of 8 steps is whole
#pragma unroll
        for (int x = 0; x < W; ++x) {
          held[0][x][me][s & 7] = byte_perm(x01[x], x23[x], 0x5410u);
          held[1][x][me][s & 7] = byte_perm(x01[x], x23[x], 0x7632u);
        }
      } else if (nmask) {
        cells16<MODE, R, true, OFF>(pa, pb, sel, nmask, npen, hl, hg, el, rb, rj, up_prev, hupg, fup, g,
                                    pk16(j, j), zero);
      } else {
        cells16<MODE, R, false, OFF>(pa, pb, sel, nmask, npen, hl, hg, el, rb, rj, up_prev, hupg, fup, g,
                                     pk16(j, j), zero);
      }
      end_cells16<MODE, R, 0>(hl, j, i0, nn[0], mm[0], live && k == km[0] && lane == lanem[0], rm[0], bs[0], bi[0],
                              bj[0], off[0]);
      end_cells16<MODE, R, 1>(hl, j, i0, nn[1], mm[1], live && k == km[1] && lane == lanem[1], rm[1], bs[1], bi[1],
                              bj[1], off[1]);
      bot_h = hl[R - 1];
      bot_f = fup;
      up_prev = up_h;
      if (lane == G - 1 && k + 1 < nst) {
        if (OFF) {
          brow_out[j] = lo16(bot_h) + off[0];
          brow_out[n + 1 + j] = lo16(bot_f) + off[0];
          brow_out[2 * (n + 1) + j] = hi16(bot_h) + off[1];
          brow_out[3 * (n + 1) + j] = hi16(bot_f) + off[1];
        } else {
          brow[j] = bot_h;
          brow[n + 1 + j] = bot_f;
        }
      }
    }
    link.publish(n);
    if (TRACE && steps_w > 0) flush((steps_w - 1) / 8);
    SA_SYNCWARP();
    if (MODE == LOCAL && live) fold(steps_w - lane);
  }
#pragma unroll
  for (int x = 0; x < 2; ++x) {
    group_best<G>(bs[x], bi[x], bj[x]);
    if (WB > 1 && lane == 0) { best[wib][x][0] = bs[x]; best[wib][x][1] = bi[x]; best[wib][x][2] = bj[x]; }
  }
  if (WB > 1) {  // the best of the block's warps
    __syncthreads();
    if (threadIdx.x != 0) return;
#pragma unroll
    for (int x = 0; x < 2; ++x)
      for (int v = 1; v < WB; ++v)
        if (better(best[v][x][0], best[v][x][1], best[v][x][2], bs[x], bi[x], bj[x])) {
          bs[x] = best[v][x][0]; bi[x] = best[v][x][1]; bj[x] = best[v][x][2];
        }
  }
#pragma unroll
  for (int x = 0; x < 2; ++x)
    if (pp[x] >= 0 && lane == 0) { out[3 * pp[x]] = bs[x]; out[3 * pp[x] + 1] = bi[x]; out[3 * pp[x] + 2] = bj[x]; }
}

template <int G, int R, bool PLANES>
__global__ void subwarp_trace(const uint8_t* __restrict__ q, const int64_t* __restrict__ qoff,
                              const uint8_t* __restrict__ t, const int64_t* __restrict__ toff,
                              const int* __restrict__ order, int nwork, int mode,
                              const uint32_t* __restrict__ dirs, const int64_t* __restrict__ dir_off,
                              const int* __restrict__ ends, const int64_t* __restrict__ run_off,
                              uint8_t* __restrict__ run_op, int* __restrict__ run_len, int* __restrict__ info,
                              int match, int mismatch, int gap_open, int gap_extend, int n_penalty) {
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= nwork) return;
  const int p = order[w];
  if (p < 0) return;  // the empty half of a 16-bit work item
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  const int n = (int)(toff[p + 1] - toff[p]);
  if (PLANES)
    walk_back<Planes<G, R>>(q + qoff[p], t + toff[p], n, mode, dirs + dir_off[p], ends[3 * p], ends[3 * p + 1],
                            ends[3 * p + 2], run_op + run_off[p], run_len + run_off[p], info + 7 * p, sc);
  else
    walk_back<Nibbles<G, R>>(q + qoff[p], t + toff[p], n, mode, dirs + dir_off[p], ends[3 * p], ends[3 * p + 1],
                             ends[3 * p + 2], run_op + run_off[p], run_len + run_off[p], info + 7 * p, sc);
}

// Kernel subwarp_walk<G, R>: the checkpointed traceback of pairs too large
// for all their direction codes at once. The forward kernel ran with keep=1
// (the last row of every stage kept in border); each round recomputes one
// stage per pair (pairwise_subwarp with TRACE and stage_sel), then this
// kernel walks the pair back through that stage. walk holds each pair's
// walker (see traceback.cuh) at 11*p; stage_sel[w] becomes the stage the
// walker goes on in, or -1 once the pair is done, when info is written.
template <int G, int R>
__global__ void subwarp_walk(const uint8_t* __restrict__ q, const int64_t* __restrict__ qoff,
                             const uint8_t* __restrict__ t, const int64_t* __restrict__ toff,
                             const int* __restrict__ order, int nwork, int mode,
                             const uint32_t* __restrict__ dirs, const int64_t* __restrict__ dir_off,
                             const int* __restrict__ ends, int* __restrict__ stage_sel, int* __restrict__ walk,
                             const int64_t* __restrict__ run_off, uint8_t* __restrict__ run_op,
                             int* __restrict__ run_len, int* __restrict__ info) {
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= nwork || stage_sel[w] < 0) return;
  const int p = order[w];
  Walker wk = Walker::load(walk + 11 * p, ends + 3 * p);
  const int row0 = stage_sel[w] * G * R;
  const bool done = walk_until<Nibbles<G, R>>(q + qoff[p], t + toff[p], (int)(toff[p + 1] - toff[p]), mode,
                                              dirs + dir_off[p], row0, wk, run_op + run_off[p], run_len + run_off[p],
                                              Scoring{0, 0, 0, 0, 0});
  if (done) {
    wk.finish(run_op + run_off[p], run_len + run_off[p], info + 7 * p);
    stage_sel[w] = -1;
  } else {
    stage_sel[w] = (wk.i - 1) / (G * R);
  }
  wk.store(walk + 11 * p);
}
