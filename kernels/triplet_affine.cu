// triplet_affine.cu: exact 3-way (triplet) alignment with affine gaps (quasi-natural costs), one block a triplet.
//
// Computes, exactly as the CPU engine does (seqalign_cli/families/triplet/cpu_affine.py; definition, modes
// and tie rules: the README's section "Triplets"), the seven values D_t(i, j, k) of every cell of the cube
// (n1+1) x (n2+1) x (n3+1) of sequences A, B, C, one for each kind t of the last column (0..6: M a b c A B C):
// the column's sum-of-pairs score (gap_extend for each residue facing a gap) plus the best over the
// previous kinds s of D_s at the cell the column comes from, less gap_open times opens(s, t) (the gaps
// that s then t opens), or a start there (opens(7, t): the first column opens every gap it has). Values at
// or below NEG / 2 stand for minus infinity. Global: a start only from (0, 0, 0), the end is the best kind
// of (n1, n2, n3). Semi-global: cells with a zero coordinate hold no value and every column may start
// from them; the end is the best value above 0 on an end face (i = n1, j = n2 or k = n3). Local: a start
// from any cell; the end is the best value above 0. Ties: candidates compared with strict > in kind
// order, so the first previous kind s wins; a start wins ties with every s; the end is the first best
// (cell in (i, j, k) order, then kind). No end (nothing above 0, or three empty sequences): score 0,
// end (0, 0, 0), end kind -1.
//
// Kernel triplet_affine<MODE, TRACE>  (one block a triplet, any block size up to MAX_THREADS, whole warps)
//   a, b, c            uint8 codes of all triplets' A, B and C, flat (A C G T = 0..3, other = 4)
//   aoff, boff, coff   int64 (ntriplets+1): triplet p's A is a[aoff[p] .. aoff[p+1])
//   order              int32 (grid): the triplet block x aligns (-1: none)
//   match, mismatch, gap_open, gap_extend, n_penalty  int32 scoring (pair scores as in `pair`)
//   kw                 int: the cells of a chunk along k (below)
//   ring               int32 scratch: at ring + ring_off[p], 4 x (n3+1) x 7 x (n2+1) ints, the values of
//                      the last four wavefront steps, [step % 4][k][t][j] (so a warp's rows coalesce)
//   ring_off           int64 (ntriplets)
//   out                int32 (ntriplets, 4): score, end i, j, k
//   info               int32 (ntriplets, 4), TRACE only: info[4p + 3] gets the end kind (for the walk)
//   words              uint32, TRACE only: at words + word_off[p] the word of every cell (i, j, k) at
//                      (i * (n2+1) + j) * (n3+1) + k: seven 3-bit fields, field t the previous kind of a
//                      column of kind t ending there (7: the alignment starts before that column; 0 where
//                      D_t has no value)
//   word_off           int64 (ntriplets), TRACE only
//   wslices, wq        TRACE only: int32 (ntriplets) or null, and the window: a triplet whose words pass the
//                      budget keeps those of m = wslices[p] > 0 slices at a time, window wq holding slices
//                      [max(0, hi - m), hi), hi = n1 + 1 - wq * m, at ((i - lo) * (n2+1) + j) * (n3+1) + k
//                      (one launch a window from the last slices down, each followed by the walk of that
//                      window; a window below the first returns at once where the walk has ended). The
//                      end kind goes to info in window 0 only (the walk's state in the others)
// Thread mapping: a wavefront over (i, j, kc), kc = k / kw the chunk of kw cells along k: at step s the
// block computes every row chunk (i, j, kc) with i + j + kc = s, the threads taking the (kc, j) of the
// step in turn (neighbouring threads, neighbouring rows), each chunk's cells k in order. A chunk finds
// the chunks above it in j and i and its own chunk kc of slice i - 1 among those of steps s - 1 and
// s - 2, and column k0 - 1 (the chunk before) in steps s - 1 to s - 3, in the ring (a barrier between
// steps). Chunks keep the threads busy where rows alone would leave most of them idle, in steps of kw
// cells rather than n3 + 1. Each thread keeps the first best end cell it meets by (value desc, i, j, k,
// t asc); the block reduces them. The opening costs are the table opens(s, t) times gap_open, constants
// of the unrolled loops (only two products are live).
//
// Kernel triplet_affine_walk<MODE>  (one thread a triplet)
//   order, nwork       int32: the triplets to walk (-1: none)
//   aoff, boff, coff, out, words, word_off: as above (out: the end cells)
//   run_off            int64 (ntriplets): triplet p's first run slot (room for n1 + n2 + n3 + 1 runs)
//   run_op, run_len    uint8 / int32: the runs (kind, length) from the start of the alignment to its end
//   info               int32 (ntriplets, 4): in, the end kind at [3]; out, start i, j, k and the run count
//   wslices, wq        as for triplet_affine: the window whose words the launch holds
//   From the end cell and kind the walk reads each cell's field of the current kind: the previous kind,
//   or 7 (the column just taken is the first). In windows: the walk of window 0 starts at the end cell,
//   the others where the walk above left the triplet; a walk that leaves its window (a cell of slice
//   lo - 1) writes that cell and -1 - (8 * runs + kind) in info (the runs so far, from the end back, and
//   the kind of the column that ends at the cell), and the next window's walk goes on from there.

#include "common.cuh"

namespace aff {

using sa::GLOBAL;
using sa::LOCAL;
using sa::SEMI;

// the most threads a block (the host's MAX_THREADS)
constexpr int MAX_THREADS = 256;
constexpr int KINDS = 7;
constexpr int START = 7;
// minus infinity, and the level below which a value stands for it (the CPU engine's int32 cells)
constexpr int NEG = -(1 << 29);
constexpr int REAL = NEG / 2;
// the key of no end cell
constexpr long long NO_KEY = 0x7fffffffffffffffLL;

// The gaps a column of kind t opens after a column of kind s (s = 7: the first column): the README's
// quasi-natural rule, the host's results.opening_costs(1) (a host test compares them).
__device__ __forceinline__ constexpr int opens(int s, int t) {
  constexpr int OPENS[8][7] = {
      {0, 2, 2, 2, 2, 2, 2}, {0, 0, 2, 2, 2, 1, 1}, {0, 2, 0, 2, 1, 2, 1}, {0, 2, 2, 0, 1, 1, 2},
      {0, 2, 1, 1, 0, 2, 2}, {0, 1, 2, 1, 2, 0, 2}, {0, 1, 1, 2, 2, 2, 0}, {0, 2, 2, 2, 2, 2, 2}};
  return OPENS[s][t];
}

// the residues a column of kind t takes from A, B and C (M a b c A B C)
__device__ __forceinline__ int step_i(int t) { return t == 0 || t == 2 || t == 3 || t == 4; }
__device__ __forceinline__ int step_j(int t) { return t == 0 || t == 1 || t == 3 || t == 5; }
__device__ __forceinline__ int step_k(int t) { return t == 0 || t == 1 || t == 2 || t == 6; }

__device__ __forceinline__ int pair_score(int x, int y, int match, int mismatch, int n_penalty) {
  return (x > 3 || y > 3) ? -n_penalty : (x == y ? match : -mismatch);
}

template <int MODE>
__device__ __forceinline__ bool starts(int i, int j, int k) {
  if (MODE == LOCAL) return true;
  if (MODE == SEMI) return i == 0 || j == 0 || k == 0;
  return i == 0 && j == 0 && k == 0;
}

// (value, cell key) pairs: the better is the larger value, then the smaller key (the (i, j, k, t) order)
__device__ __forceinline__ bool better(int v, long long key, int bv, long long bkey) {
  return v > bv || (v == bv && key < bkey);
}

}  // namespace aff

// ring is written and read by the block in one launch: not __restrict__ (no read-only cache path)
template <int MODE, int TRACE>
__global__ void __launch_bounds__(aff::MAX_THREADS)
    triplet_affine(const uint8_t* __restrict__ a, const int64_t* __restrict__ aoff, const uint8_t* __restrict__ b,
                   const int64_t* __restrict__ boff, const uint8_t* __restrict__ c, const int64_t* __restrict__ coff,
                   const int* __restrict__ order, int match, int mismatch, int gap_open, int gap_extend,
                   int n_penalty, int kw, int* ring, const int64_t* __restrict__ ring_off, int* __restrict__ out,
                   int* __restrict__ info, uint32_t* __restrict__ words, const int64_t* __restrict__ word_off,
                   const int* __restrict__ wslices, int wq) {
  using namespace aff;
  __shared__ int red_v[32];
  __shared__ long long red_k[32];
  const int p = order[blockIdx.x];
  if (p < 0) return;  // the whole block
  // TRACE in windows: a window below the first whose walk has ended has nothing to do
  const int m = TRACE && wslices != nullptr ? wslices[p] : 0;
  if (m > 0 && wq > 0 && info[4 * (int64_t)p + 3] >= 0) return;
  const int n1 = (int)(aoff[p + 1] - aoff[p]), n2 = (int)(boff[p + 1] - boff[p]), n3 = (int)(coff[p + 1] - coff[p]);
  const uint8_t* A = a + aoff[p];
  const uint8_t* B = b + boff[p];
  const uint8_t* C = c + coff[p];
  int* rg = ring + ring_off[p];
  // a triplet's ring (at most BORDER_BYTES) and words (at most the trace budget) take int indices
  const int rows = n2 + 1, slot = (n3 + 1) * KINDS * rows;
  uint32_t* wd = TRACE ? words + word_off[p] : nullptr;
  int lo = 0, hi = n1 + 1;  // the slices whose words this launch keeps
  if (TRACE) sa::window_slices(n1, m, wq, lo, hi);
  const int g2 = 2 * gap_extend;
  const int init = MODE == GLOBAL ? NEG : 0;
  int bv = init;
  long long bkey = NO_KEY;
  const int KC = (n3 + kw) / kw;  // chunks of kw cells along k
  for (int s = 0; s <= n1 + n2 + KC - 1; ++s) {
    // cell (i, j, k) is computed at step i + j + k / kw, into ring slot (that step) % 4
    int* cur = rg + (s & 3) * slot;
    const int* up = rg + ((s + 3) & 3) * slot;    // step s - 1
    const int* diag = rg + ((s + 2) & 3) * slot;  // step s - 2
    const int* back = rg + ((s + 1) & 3) * slot;  // step s - 3
    // the step's chunks by kc, then j (neighbouring threads take neighbouring rows: their ring reads coalesce)
    const int jlo = max(0, s - n1 - (KC - 1)), width = min(n2, s) - jlo + 1;
    for (int v = threadIdx.x; v < KC * width; v += blockDim.x) {
      const int kc = v / width, j = jlo + v - kc * width, i = s - j - kc;
      if (i < 0 || i > n1) continue;
      const int k0 = kc * kw, k1 = min(n3, k0 + kw - 1);
      const int x = i > 0 ? min((int)A[i - 1], 4) : 4;
      const int y = j > 0 ? min((int)B[j - 1], 4) : 4;
      const int ab = pair_score(x, y, match, mismatch, n_penalty);
      // the sources of the seven kinds at k - 1 (kept from the last cell, or the chunk before: column k0 - 1
      // of steps s - 1, s - 2 and s - 3) and at k (read from steps s - 1 and s - 2)
      int src[KINDS][KINDS];  // src[t]: the cell kind t comes from
      int left[KINDS], pi1[KINDS], pj1[KINDS], pij1[KINDS];
#pragma unroll
      for (int t = 0; t < KINDS; ++t) {
        const int at = ((k0 - 1) * KINDS + t) * rows;
        left[t] = k0 > 0 ? up[at + j] : NEG;
        pi1[t] = k0 > 0 && i > 0 ? diag[at + j] : NEG;
        pj1[t] = k0 > 0 && j > 0 ? diag[at + j - 1] : NEG;
        pij1[t] = k0 > 0 && i > 0 && j > 0 ? back[at + j - 1] : NEG;
      }
      for (int k = k0; k <= k1; ++k) {
        const int z = k > 0 ? min((int)C[k - 1], 4) : 4;
        const int ac = pair_score(x, z, match, mismatch, n_penalty);
        const int bc = pair_score(y, z, match, mismatch, n_penalty);
        int pi[KINDS], pj[KINDS], pij[KINDS];
#pragma unroll
        for (int t = 0; t < KINDS; ++t) {
          const int at = (k * KINDS + t) * rows;
          pi[t] = i > 0 ? up[at + j] : NEG;
          pj[t] = j > 0 ? up[at + j - 1] : NEG;
          pij[t] = i > 0 && j > 0 ? diag[at + j - 1] : NEG;
        }
#pragma unroll
        for (int u = 0; u < KINDS; ++u) {
          src[0][u] = pij1[u];  // M: (i-1, j-1, k-1)
          src[1][u] = pj1[u];   // a: (i, j-1, k-1)
          src[2][u] = pi1[u];   // b: (i-1, j, k-1)
          src[3][u] = pij[u];   // c: (i-1, j-1, k)
          src[4][u] = pi[u];    // A: (i-1, j, k)
          src[5][u] = pj[u];    // B: (i, j-1, k)
          src[6][u] = left[u];  // C: (i, j, k-1)
        }
        const bool computed = !(MODE == SEMI && (i == 0 || j == 0 || k == 0));
        const int col[KINDS] = {ab + ac + bc, bc - g2, ac - g2, ab - g2, -g2, -g2, -g2};
        uint32_t word = 0;
        int value[KINDS];
#pragma unroll
        for (int t = 0; t < KINDS; ++t) {
          const int di = step_i(t), dj = step_j(t), dk = step_k(t);
          value[t] = NEG;
          if (computed && i >= di && j >= dj && k >= dk) {
            int top = NEG, how = 0;
#pragma unroll
            for (int u = 0; u < KINDS; ++u) {
              const int cand = src[t][u] - opens(u, t) * gap_open;
              if (cand > top) { top = cand; how = u; }
            }
            if (starts<MODE>(i - di, j - dj, k - dk) && -opens(START, t) * gap_open >= top) {
              top = -opens(START, t) * gap_open;
              how = START;
            }
            if (top > REAL) {
              value[t] = top + col[t];
              word |= (uint32_t)how << (3 * t);
            }
          }
        }
        const bool end = MODE == LOCAL || (MODE == SEMI && (i == n1 || j == n2 || k == n3)) ||
                         (i == n1 && j == n2 && k == n3);
        int top = value[0], kind = 0;  // the cell's first best kind
#pragma unroll
        for (int t = 1; t < KINDS; ++t)
          if (value[t] > top) { top = value[t]; kind = t; }
        if (end && top > init) {
          const long long key = (((long long)i * rows + j) * (n3 + 1) + k) * 8 + kind;
          if (better(top, key, bv, bkey)) { bv = top; bkey = key; }
        }
#pragma unroll
        for (int t = 0; t < KINDS; ++t) {
          cur[(k * KINDS + t) * rows + j] = value[t];
          left[t] = value[t];
          pi1[t] = pi[t];
          pj1[t] = pj[t];
          pij1[t] = pij[t];
        }
        if (TRACE && i >= lo && i < hi) wd[((i - lo) * rows + j) * (n3 + 1) + k] = word;
      }
    }
    __syncthreads();
  }
  // the block's first best end: each warp's, then the first warp's over them
  for (int d = SA_WARP / 2; d > 0; d /= 2) {
    const int ov = SA_SHFL_DOWN(bv, d);
    const long long ok = SA_SHFL_DOWN(bkey, d);
    if (better(ov, ok, bv, bkey)) { bv = ov; bkey = ok; }
  }
  const int lane = threadIdx.x % SA_WARP, warp = threadIdx.x / SA_WARP, warps = (blockDim.x + SA_WARP - 1) / SA_WARP;
  if (lane == 0) { red_v[warp] = bv; red_k[warp] = bkey; }
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < warps; ++w)
    if (better(red_v[w], red_k[w], bv, bkey)) { bv = red_v[w]; bkey = red_k[w]; }
  int* o = out + 4 * (int64_t)p;
  if (bkey == NO_KEY) {  // no end: the empty alignment
    o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0;
    if (TRACE && wq == 0) info[4 * (int64_t)p + 3] = -1;
    return;
  }
  long long cell = bkey / 8;
  o[0] = bv;
  o[3] = (int)(cell % (n3 + 1));
  cell /= n3 + 1;
  o[2] = (int)(cell % rows);
  o[1] = (int)(cell / rows);
  if (TRACE && wq == 0) info[4 * (int64_t)p + 3] = (int)(bkey % 8);
}

// One thread a triplet: from the end cell and kind that triplet_affine<MODE, 1> found, back through the
// words to the first column, then the runs of kinds in forward order.
template <int MODE>
__global__ void triplet_affine_walk(const int* __restrict__ order, int nwork, const int64_t* __restrict__ aoff,
                                    const int64_t* __restrict__ boff, const int64_t* __restrict__ coff,
                                    const int* __restrict__ out,
                                    const uint32_t* __restrict__ words, const int64_t* __restrict__ word_off,
                                    const int64_t* __restrict__ run_off, uint8_t* __restrict__ run_op,
                                    int* __restrict__ run_len, int* __restrict__ info,
                                    const int* __restrict__ wslices, int wq) {
  using namespace aff;
  const int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (w >= nwork) return;
  const int p = order[w];
  if (p < 0) return;
  int* inf = info + 4 * (int64_t)p;
  const int n1 = (int)(aoff[p + 1] - aoff[p]);
  const int64_t rows = boff[p + 1] - boff[p] + 1, cols = coff[p + 1] - coff[p] + 1;
  const uint32_t* wd = words + word_off[p];
  uint8_t* op = run_op + run_off[p];
  int* len = run_len + run_off[p];
  const int m = wslices != nullptr ? wslices[p] : 0;
  int lo, hi;
  sa::window_slices(n1, m, wq, lo, hi);
  int t, i, j, k, nr = 0, count = 0, cur = -1;
  if (m > 0 && wq > 0) {  // a window below the first: the walk goes on where the window above left it
    if (inf[3] >= 0 || hi <= 0) return;  // the walk has ended
    const int state = -inf[3] - 1;
    i = inf[0]; j = inf[1]; k = inf[2]; nr = state >> 3; t = state & 7;
    if (nr > 0) { --nr; cur = op[nr]; count = len[nr]; }  // the last run may go on
  } else {
    t = inf[3];
    if (t < 0) {  // the empty alignment
      inf[0] = 0; inf[1] = 0; inf[2] = 0; inf[3] = 0;
      return;
    }
    i = out[4 * (int64_t)p + 1]; j = out[4 * (int64_t)p + 2]; k = out[4 * (int64_t)p + 3];
  }
  while (true) {  // runs from the end back (room: one a column)
    if (i < lo) {  // below the window: where the walk stands, its runs so far and the kind to follow
      if (cur >= 0) { op[nr] = (uint8_t)cur; len[nr] = count; ++nr; }
      inf[0] = i; inf[1] = j; inf[2] = k; inf[3] = -1 - (8 * nr + t);
      return;
    }
    const int how = (int)((wd[((int64_t)(i - lo) * rows + j) * cols + k] >> (3 * t)) & 7u);
    if (t == cur) {
      ++count;
    } else {
      if (cur >= 0) { op[nr] = (uint8_t)cur; len[nr] = count; ++nr; }
      cur = t;
      count = 1;
    }
    i -= step_i(t);
    j -= step_j(t);
    k -= step_k(t);
    if (how == START) break;
    t = how;
  }
  op[nr] = (uint8_t)cur; len[nr] = count; ++nr;
  sa::reverse_runs(op, len, nr);  // forward order: start to end
  inf[0] = i; inf[1] = j; inf[2] = k; inf[3] = nr;
}
