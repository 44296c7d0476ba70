// graph.cu: reads against a DAG (the graph family), exact affine DP, score and traceback.
//
// The recurrence and tie rules are the CPU engine's (seqalign_cli/families/graph/cpu_dp.py,
// README "Graphs"): rows are the graph's bases in topological order, columns the read
// prefix lengths 0..m; a row takes its predecessors' rows merged column by column (the
// virtual start row S first, then the predecessors in ascending order, a later one only
// when strictly better); H = max(D, F, E) with ties in that order; local mode floors at 0.
//
// Thread mapping: one warp per work item (a read and a section of the rows), persistent
// warps taking items from a counter. Sections (host: families/graph/gpu.py `sections`) are
// runs of rows no edge enters from outside (the two strands of most graphs): their sweeps
// are independent, and graph_best keeps each read's best end cell over them. Lane l holds
// the K columns c0 + l*K .. c0 + l*K + K - 1 of the current stripe in registers (c0 = 1 +
// stripe*32*K). The warp sweeps the section's rows as a skewed wavefront with no barrier:
// at step t lane l computes row t - l, taking from lane l - 1 (one shuffle a value: its last
// column's merged predecessor H, its H and its F) what lane l - 1 computed for the same row
// one step before. The row just before is kept in registers (a row whose one predecessor is
// that row takes a short path); rows a later node start reads are kept in slots (per-warp
// scratch, `Graph.slot`), each lane reading and writing its own columns only, so no lane
// waits for another. Row records (`meta`) come through shared memory a chunk of 32 rows
// ahead; the lanes' column constants (byte profiles of the read's bases, S's H) sit in a
// shared-memory table read every row. End cells are kept per column and folded once a
// stripe. Reads longer than 32*K columns run in stripes; a stripe leaves, per row, its last
// column's H and F for the next (`border`: H and F in, H and F out, swapped per stripe; 4n
// ints a warp). Where a launch's items would leave warps idle, the host asks for the stripe
// pipeline instead: each stripe of an item its own warp, a ring of rows behind the stripe before
// (its last column's merged predecessor H, H and F), waiting on counters (`link_wait`).
//
// 16-bit cells (graph_score16): two reads an item, one in the low
// and one in the high 16-bit half of every register, one DPX instruction updating both; the rows
// (the graph) and so the sweep are the same for both, only the columns' constants differ (each
// half's byte profile, one byte permute giving both halves' substitution scores). Values stay
// within a bound of the columns (glocal, local: every row may start at S) or of the columns and
// the graph's bases (global) that the host checks (fits16); slots,
// borders, checkpoints and the left lane's values hold both halves in one int (the walk, in int32
// cells, restores its read's half). The int32 cells (Cells32) and the 16-bit ones (Cells16) share
// every function of the sweep.
//
// Layouts (int32): a slot row is 2*SROW ints, SROW = (K+1)*32: H[k*32 + lane] for the K
// columns of each lane, then at k = K, lane 0, column 0; then E the same way.
// Checkpoints (traceback): at every step t that is a multiple of B and whose lane-0 row lies
// in the item's section, each lane copies its columns of the row before, of all slots and
// what it took from its left neighbour (CPROW = (n_slots + 1) * 2*SROW + 96 ints a
// checkpoint, per read and stripe: stripe s's at cp + s*ceil((n + 31)/B)*CPROW); restored at
// step t, the sweep goes on exactly as it went. Direction
// bytes (walk kernel): one per cell, (K+1)*32 bytes a row in the slot layout, rows from t -
// 31; rows with several predecessors also keep, per cell, which predecessor gave PH and PE
// (uint16, 0xFFFF = S).
//
// Kernels (graph arrays, then sec/nsec: the sections' first rows and their count, the reads,
// `count` items, the scoring and use_prof: scores fit the byte profile):
//  graph_score<K, MODE, CP, LINKED>(graph..., reads..., scoring, ws, ws_stride, border,
//      border_stride, cp, cp_stride, B, ends, pipe): item i = section i % nsec of read order[i / nsec];
//      ends[i*3 + 0..2] = the section's best end cell (score, row, column; row -1: none). LINKED (K =
//      STRIPED_K), the stripe pipeline of pipe = P stripes: `count` = items x P, unit u = stripe u % P
//      of item u / P, each on a warp of its own, ends[(i*P + s)*3 + 0..2] per stripe s (graph_best
//      takes nsec x P), border the links (border_stride ints each, zeroed: link s of item i at (i*P +
//      s) x border_stride, rings of LINK_ROWS rows of PH, H and F from stripe s - 1 to stripe s, then
//      its two counters).
//  graph_score16<K, MODE, CP, LINKED>(the arguments of graph_score): the same with order[2w], order[2w + 1]
//      (-1: none) the reads of items w*nsec .. w*nsec + nsec - 1, count = (entries / 2) x nsec;
//      ends[((2w + h)*nsec + s)*3 + 0..2] for half h; pair w's checkpoints at cp + w*cp_stride.
//  graph_best<MODE>(ends, nsec, roff, order, count, oe, ge, out): one thread an entry of order
//      (-1: none); out[read*4 + 0..2] = score, end base, end column (end base -1: empty alignment).
//  graph_walk<K, MODE>(graph..., reads..., scoring, ws, ws_stride, cp, cp_stride, B, win, codes,
//      codes_stride, args, args_stride, out, run_off, run_op, run_len, node_off, nodes, info,
//      packed): one item an entry of order (-1: none; packed: the checkpoints of graph_score16,
//      entry i in half i % 2 of pair i / 2's); from the end row v, restores the checkpoint of step
//      B*floor(v/B) (or starts v's section afresh when that step lies before it), sweeps on to row
//      v with direction bytes and walks back to that step's row, then the checkpoint before, and so
//      on, stripe by stripe from the end column's (the stripes before it swept again over the same
//      rows for their borders: win, 6*(B + 64) ints a warp); every lane walks, lane 0 writes: runs
//      into the RunStore slots of the read, the path's
//      nodes into nodes[node_off[read]..node_off[read + 1]), info[read*4 + 0..3] = read start,
//      first base, runs, path nodes (more than the room: not written; the host aligns that read
//      again).
#include "common.cuh"

namespace sa {
namespace graph {

constexpr unsigned short FROM_S = 0xFFFF;
// the width whose reads run in stripes (host: WIDTHS[-1]); the walk of that width follows them
constexpr int STRIPED_K = 16;
// the stripe pipeline: rows a ring holds (host: LINK_ROWS; a link is 3 rings and 32 ints of counters),
// chunks of 32 steps between posts, the counters' value once a stripe is done
constexpr int LINK_ROWS = 4096;
constexpr int LINK_EVERY = 4;
constexpr int LINK_DONE = 1 << 30;
#ifndef GRAPH_LINK_SLEEP
#define GRAPH_LINK_SLEEP 100
#endif
// warps a block (the host launches SA_THREADS threads a block, 32 a warp)
constexpr int WARPS_PER_BLOCK = SA_THREADS / 32;
enum Move { DIAG = 0, INS = 1, DEL = 2, START = 3 };

struct Graph {
  const uint8_t* code;
  const int64_t* pred_off;
  const int* pred;
  const int* slot;
  const uint8_t* flags;  // bit 0 source, bit 1 sink
  const int* node;       // oriented node of each base
  const int64_t* multi;  // rows with several predecessors before each row (n + 1)
  const int4* meta;      // per row: first predecessor, packed fields, slot, the lone predecessor's slot
  const int* eslot;      // per predecessor entry: its slot, -1 for the row just before
  int n, n_slots;
};

// The per-row record (`meta`), one 16-byte load a chunk of rows ahead: x = first predecessor
// entry; y = predecessors (bits 0-11, 4095: that many or more, count them in pred_off) |
// flags << 12 | (the lone predecessor is the row just before) << 14 | the byte-profile
// selector of the base's code << 16 (common.cuh `profile_selector`); z = the row's slot (-1:
// none); w = the lone predecessor's slot (-1: none or the row before).
constexpr int MANY_PREDS = 4095;
__device__ __forceinline__ int meta_npred(const int4& t) { return t.y & MANY_PREDS; }
__device__ __forceinline__ int meta_flags(const int4& t) { return (t.y >> 12) & 3; }
__device__ __forceinline__ bool meta_lone_before(const int4& t) { return (t.y >> 14) & 1; }
__device__ __forceinline__ uint32_t meta_selector(const int4& t) { return (uint32_t)t.y >> 16; }
__device__ __forceinline__ int meta_code(const int4& t) { return (int)(meta_selector(t) & 7); }

struct Reads {
  const uint8_t* code;
  const int64_t* off;
  const int* order;
  int count;
  int* next;  // work counter (persistent warps)
};

__device__ __forceinline__ int subst_of(const Scoring& s, int g, int r) {
  return (g > 3 || r > 3) ? -s.n_penalty : (g == r ? s.match : -s.mismatch);
}

// S's H at column j (j >= 0): 0, then the cost of j inserted read bases; 0 in local mode.
template <int MODE>
__device__ __forceinline__ int start_h(int j, int oe, int ge) {
  return (MODE == LOCAL || j == 0) ? 0 : -(oe + (j - 1) * ge);
}

// ---- cells: one int32 cell a register, or the cells of two reads in the 16-bit halves of a
// register (graph_score16) ----

struct Cells32 : I32Cells {
  // cs = max(cs, r); bit h: half h of r was strictly greater
  __device__ static unsigned raise(V& cs, V r) {
    bool kept;
    cs = max_which(cs, r, kept);
    return kept ? 0u : 1u;
  }
};

// Two reads side by side (low half: the first), every value within +-16000 (host bound: INT16_LIMIT),
// so NEG16 minus a few gap costs never wraps and never wins.
struct Cells16 : S16x2Cells {
  // a half of the maximum differs from cs exactly where r was strictly greater
  __device__ static unsigned raise(V& cs, V r) {
    const V m = max16(cs, r), d = m ^ cs;
    cs = m;
    return (d & 0xffffu ? 1u : 0u) | (d >> 16 ? 2u : 0u);
  }
};

// One lane's state in the skewed sweep: its columns of the row before, and what it took
// from the lane on its left for the row it computes next.
template <int K, class L = Cells32>
struct Lane {
  using V = typename L::V;
  V H[K], E[K];
  V h0, e0;          // column 0 of the row before (lane 0, first stripe)
  V inPH, inH, inF;  // the left lane's last column: merged predecessor H, H, F
};

template <int K, class L>
__device__ __forceinline__ void clear_lane(Lane<K, L>& st) {
#pragma unroll
  for (int k = 0; k < K; ++k) st.H[k] = st.E[k] = L::neg();
  st.h0 = st.e0 = L::neg();
  st.inPH = st.inH = st.inF = L::neg();
}

// A checkpoint: the row before, the slots (each lane its own columns), the inbound values (16-bit
// cells: both reads' values in each int).
template <int K, class L>
__device__ __forceinline__ void save_lane(int* dst, const Lane<K, L>& st, const int* ws, int n_slots, int lane) {
  constexpr int SROW = (K + 1) * 32;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    dst[k * 32 + lane] = (int)st.H[k];
    dst[SROW + k * 32 + lane] = (int)st.E[k];
  }
  if (lane == 0) {
    dst[K * 32] = (int)st.h0;
    dst[SROW + K * 32] = (int)st.e0;
  }
  for (int q = 0; q < n_slots; ++q) {
    const int* src = ws + (int64_t)q * 2 * SROW;
    int* to = dst + (int64_t)(q + 1) * 2 * SROW;
#pragma unroll
    for (int k = 0; k <= K; ++k) {
      to[k * 32 + lane] = src[k * 32 + lane];
      to[SROW + k * 32 + lane] = src[SROW + k * 32 + lane];
    }
  }
  int* in = dst + (int64_t)(n_slots + 1) * 2 * SROW;
  in[lane] = (int)st.inPH;
  in[32 + lane] = (int)st.inH;
  in[64 + lane] = (int)st.inF;
}

// Ints of one checkpoint: the row before, the slots, the inbound values.
template <int K>
__device__ __forceinline__ int64_t checkpoint_ints(const Graph& g) {
  return (int64_t)(g.n_slots + 1) * 2 * (K + 1) * 32 + 96;
}

// Ints of one stripe's checkpoints, one every B steps of its n + 31 (host: CudaGraph.checkpoint_ints).
template <int K>
__device__ __forceinline__ int64_t stripe_checkpoint_ints(const Graph& g, int B) {
  return (int64_t)((g.n + 31 + B - 1) / B) * checkpoint_ints<K>(g);
}

// A value of a checkpoint into int32 cells: as it is (half < 0), or the read of 16-bit half `half`
// (within +-16000; minus infinity stays below every value, as it did in 16 bits).
__device__ __forceinline__ int cell_of(int x, int half) {
  return half < 0 ? x : (half ? hi16((uint32_t)x) : lo16((uint32_t)x));
}

// Restores a checkpoint into int32 cells (the walk), of int32 cells or of one half of 16-bit cells.
template <int K>
__device__ __forceinline__ void load_lane(const int* src, Lane<K>& st, int* ws, int n_slots, int lane, int half) {
  constexpr int SROW = (K + 1) * 32;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    st.H[k] = cell_of(src[k * 32 + lane], half);
    st.E[k] = cell_of(src[SROW + k * 32 + lane], half);
  }
  st.h0 = cell_of(src[K * 32], half);
  st.e0 = cell_of(src[SROW + K * 32], half);
  for (int q = 0; q < n_slots; ++q) {
    const int* from = src + (int64_t)(q + 1) * 2 * SROW;
    int* to = ws + (int64_t)q * 2 * SROW;
#pragma unroll
    for (int k = 0; k <= K; ++k) {
      to[k * 32 + lane] = cell_of(from[k * 32 + lane], half);
      to[SROW + k * 32 + lane] = cell_of(from[SROW + k * 32 + lane], half);
    }
  }
  const int* in = src + (int64_t)(n_slots + 1) * 2 * SROW;
  st.inPH = cell_of(in[lane], half);
  st.inH = cell_of(in[32 + lane], half);
  st.inF = cell_of(in[64 + lane], half);
}

// Where the sweep writes direction bytes (walk kernel only).
struct Codes {
  uint8_t* code;             // rows lo.. of the block, (K+1)*32 bytes a row
  unsigned short* argH;      // rows with several predecessors, (K+1)*32 a row
  unsigned short* argE;
  int64_t multi_lo;          // multi[lo]
  int lo;
};

// Merges one predecessor (slot es, or the row before when es < 0) into PH/PE (and, on lane 0,
// column 0 into bh/be), a later one only where strictly better.
template <int K, bool CODES, class L>
__device__ __forceinline__ void merge_pred(int es, int p, const Lane<K, L>& st, const int* ws, int lane,
                                           typename L::V (&PH)[K], typename L::V (&PE)[K],
                                           unsigned short (&aH)[K + 1], unsigned short (&aE)[K + 1], unsigned& aS,
                                           typename L::V& bh, typename L::V& be, bool& bS) {
  using V = typename L::V;
  constexpr int SROW = (K + 1) * 32;
  V hu[K], eu[K], hb, eb;
  if (es < 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      hu[k] = st.H[k];
      eu[k] = st.E[k];
    }
    hb = st.h0;
    eb = st.e0;
  } else {
    const int* src = ws + (int64_t)es * 2 * SROW;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      hu[k] = (V)src[k * 32 + lane];
      eu[k] = (V)src[SROW + k * 32 + lane];
    }
    hb = (V)src[K * 32];
    eb = (V)src[SROW + K * 32];
  }
  if constexpr (!CODES) {  // the values only
#pragma unroll
    for (int k = 0; k < K; ++k) {
      PH[k] = L::vmax(PH[k], hu[k]);
      PE[k] = L::vmax(PE[k], eu[k]);
    }
    bh = L::vmax(bh, hb);
    be = L::vmax(be, eb);
  } else {  // and which predecessor gave them
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (hu[k] > PH[k]) {
        PH[k] = hu[k];
        aH[k] = p;
        aS |= 1u << k;
      }
      if (eu[k] > PE[k]) {
        PE[k] = eu[k];
        aE[k] = p;
      }
    }
    // column 0: every lane merges it (no divergence); only lane 0's is used
    if (hb > bh) {
      bh = hb;
      aH[K] = p;
      bS = false;
    }
    if (eb > be) {
      be = eb;
      aE[K] = p;
    }
  }
}

// What one lane's sweep of one stripe reads and never changes (per half: each read of the cells).
template <int K, class L = Cells32>
struct Stripe {
  using V = typename L::V;
  int c0;             // the stripe's first column (1 + stripe*32*K)
  int m[L::H];        // the reads' lengths
  int rd[K];          // read codes of the lane's columns (4 past the read's end; int32 cells only)
  uint32_t* tbl;      // the warp's column table in shared memory (`put_columns`, `get_columns`)
  V s0;               // S's H at column c0 - 1
  int kend[L::H];     // k of column m when this lane holds it, else -1
  const V* hin;       // a later stripe: H and F of column c0 - 1, by row (the stripe before), at row - blo
  const V* fin;
  V* hout;            // more stripes to come: this stripe's last column, by row (lane 31), at row - blo
  V* fout;
  // windows of rows (the walk's, from blo) and rings (the pipeline's, row v at (v - blo) & rmask): the
  // stripe before's merged predecessor H of column c0 - 1 too (phin), so that lane 0 reads no row
  // outside (null: lane 0 merges hin's rows)
  const V* phin;
  V* phout;
  int blo, rmask;
  // the pipeline (null: none): the counters of the ring in (rows written, rows read; lane 0 waits for
  // the first) and of the ring out (lane 31 waits for its second), relative to blo
  int* lin;
  int* lout;
  bool first, more;
};

// The sweep's context: the graph, the scoring, the warp's slots and where direction bytes go.
struct Env {
  Graph g;
  Scoring sc;
  int oe, ge;
  uint32_t npen;  // -n_penalty in byte 0: graph code N (4) picks it from the profile's second word
  bool prof;      // scores fit the byte profile (else compares and selects)
  int* ws;
  int lane;
  Codes out;
};

// The best end cell so far (score, row, column); ties to the smaller row, then column.
struct Best {
  int s, v, j;
};

// A lane's end cells during one stripe's sweep, per half. Glocal and global (sink rows only):
// the best of each of its columns (cs[k], at row cv[k]), of which `close_ends` takes column m.
// Local: the lane's best (cs[0], row cv[0], column k cc), every row's candidate the largest of its
// columns, the first column holding it looked up only when it is strictly better (a lane's best
// seldom rises); the columns past the read's end (pad, scoring -n_penalty or a gap) take part: a
// cell there scores at most the cell where its alignment leaves column m, which comes first (a row
// no later, a smaller column), so it never wins. Rows come in ascending order and only a strictly
// higher score replaces the one kept, so each keeps its smallest (row, column).
template <int K, int MODE, class L>
struct Ends {
  static constexpr int N = MODE == LOCAL ? 1 : K;
  typename L::V cs[N];
  int cv[N][L::H], cc[L::H];
};

template <int K, int MODE, class L>
__device__ __forceinline__ void open_ends(Ends<K, MODE, L>& x) {
#pragma unroll
  for (int k = 0; k < x.N; ++k) {
    x.cs[k] = L::neg();
#pragma unroll
    for (int h = 0; h < L::H; ++h) x.cv[k][h] = -1;
  }
#pragma unroll
  for (int h = 0; h < L::H; ++h) x.cc[h] = -1;
}

// The row's end cells (H: the lane's columns of row v).
template <int K, int MODE, class L>
__device__ __forceinline__ void row_ends(Ends<K, MODE, L>& x, const typename L::V (&H)[K], int v) {
  if constexpr (MODE == LOCAL) {
    typename L::V r = H[0];
#pragma unroll
    for (int k = 1; k < K; ++k) r = L::vmax(r, H[k]);
    const unsigned up = L::raise(x.cs[0], r);
#pragma unroll
    for (int h = 0; h < L::H; ++h) {
      if ((up >> h) & 1) {
        int c = K - 1;
#pragma unroll
        for (int k = K - 2; k >= 0; --k)
          if (L::half(H[k], h) == L::half(x.cs[0], h)) c = k;
        x.cv[0][h] = v;
        x.cc[h] = c;
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const unsigned up = L::raise(x.cs[k], H[k]);
#pragma unroll
      for (int h = 0; h < L::H; ++h)
        if ((up >> h) & 1) x.cv[k][h] = v;
    }
  }
}

template <int K, int MODE, class L>
__device__ __forceinline__ void close_ends(const Ends<K, MODE, L>& x, const Stripe<K, L>& S, int lane,
                                           Best (&b)[L::H]) {
#pragma unroll
  for (int h = 0; h < L::H; ++h)
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int q = MODE == LOCAL ? 0 : k, cs = L::half(x.cs[q], h), j = S.c0 + lane * K + k;
      const bool end = k == (MODE == LOCAL ? x.cc[h] : S.kend[h]);
      if (end && x.cv[q][h] >= 0 && better(cs, x.cv[q][h], j, b[h].s, b[h].v, b[h].j)) {
        b[h].s = cs;
        b[h].v = x.cv[q][h];
        b[h].j = j;
      }
    }
}

// A lane's column constants, read every row: the byte profile of its read base (one word a half:
// the scores against graph codes 0..3) and S's H, in shared memory (Columns<K, H>::WORDS words a
// warp). Kept in registers, they were recomputed every row (the compiler rematerializes them).
// Layout: groups of G = 4, 2 or 1 columns, [group][lane], G words for the profiles of each half,
// then G for S's H, so that a lane reads (H + 1) G words in a few wide loads.
template <int K, int H>
struct Columns {
  static constexpr int G = K % 4 == 0 ? 4 : (K % 2 == 0 ? 2 : 1);
  static constexpr int WORDS = (H + 1) * K * 32;
};

template <int K, class L>
__device__ __forceinline__ void put_column(uint32_t* tbl, int lane, int k, const uint32_t (&prof)[L::H],
                                           typename L::V sh) {
  constexpr int G = Columns<K, L::H>::G;
  uint32_t* at = tbl + ((k / G) * 32 + lane) * (L::H + 1) * G + k % G;
#pragma unroll
  for (int h = 0; h < L::H; ++h) at[h * G] = prof[h];
  at[L::H * G] = (uint32_t)sh;
}

template <int K, class L>
__device__ __forceinline__ void get_columns(const uint32_t* tbl, int lane, uint32_t (&prof)[K][L::H],
                                            typename L::V (&sh)[K]) {
  constexpr int H = L::H, G = Columns<K, H>::G;
#pragma unroll
  for (int g = 0; g < K / G; ++g) {
    const uint32_t* at = tbl + (g * 32 + lane) * (H + 1) * G;
    uint32_t w[(H + 1) * G];
    if constexpr (G == 4 || (G == 2 && H == 1)) {  // 16-byte loads
#pragma unroll
      for (int q = 0; q < (H + 1) * G / 4; ++q) {
        const uint4 a = *(const uint4*)(at + 4 * q);
        w[4 * q] = a.x;
        w[4 * q + 1] = a.y;
        w[4 * q + 2] = a.z;
        w[4 * q + 3] = a.w;
      }
    } else if constexpr (G == 2) {  // 8-byte loads
#pragma unroll
      for (int q = 0; q < H + 1; ++q) {
        const uint2 a = *(const uint2*)(at + 2 * q);
        w[2 * q] = a.x;
        w[2 * q + 1] = a.y;
      }
    } else {
#pragma unroll
      for (int q = 0; q < H + 1; ++q) w[q] = at[q];
    }
#pragma unroll
    for (int c = 0; c < G; ++c) {
#pragma unroll
      for (int h = 0; h < H; ++h) prof[g * G + c][h] = w[h * G + c];
      sh[g * G + c] = (typename L::V)w[H * G + c];
    }
  }
}

// The stripe of columns c0 .. c0 + 32K - 1 of the reads read[h] (-1: none, every column past its end).
template <int K, int MODE, class L>
__device__ __forceinline__ void setup_stripe(const Env& e, const Reads& r, const int (&read)[L::H], int c0,
                                             uint32_t* tbl, Stripe<K, L>& S) {
  int64_t o[L::H];
  S.tbl = tbl;
  S.c0 = c0;
#pragma unroll
  for (int h = 0; h < L::H; ++h) {
    o[h] = read[h] >= 0 ? r.off[read[h]] : 0;
    S.m[h] = read[h] >= 0 ? (int)(r.off[read[h] + 1] - o[h]) : 0;
    S.kend[h] = -1;
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = c0 + e.lane * K + k;
    uint32_t prof[L::H];
#pragma unroll
    for (int h = 0; h < L::H; ++h) {
      const int rd = j <= S.m[h] ? r.code[o[h] + j - 1] : 4;
      if (h == 0) S.rd[k] = rd;
      uint32_t hi;
      profile(e.sc, (uint8_t)rd, prof[h], hi);
      if (j == S.m[h]) S.kend[h] = k;
    }
    put_column<K, L>(S.tbl, e.lane, k, prof, L::splat(start_h<MODE>(j, e.oe, e.ge)));
  }
  S.s0 = L::splat(start_h<MODE>(c0 - 1, e.oe, e.ge));
  S.hin = S.fin = S.phin = nullptr;
  S.hout = S.fout = S.phout = nullptr;
  S.blo = 0;
  S.rmask = -1;
  S.lin = S.lout = nullptr;
  S.first = true;
  S.more = false;
}

// The borders of a stripe as rows of three arrays (PH, H, F; `rows` ints apart), `in` from the stripe
// before and `to` for the next: the walk's windows (rmask -1) or the pipeline's rings (rmask rows - 1),
// row v at (v - blo) & rmask.
template <int K, class L>
__device__ __forceinline__ void border_rows(Stripe<K, L>& S, int* in, int* to, int64_t rows, int blo, int rmask) {
  using V = typename L::V;
  S.phin = (const V*)in;
  S.hin = S.phin + rows;
  S.fin = S.hin + rows;
  S.phout = (V*)to;
  S.hout = S.phout + rows;
  S.fout = S.hout + rows;
  S.blo = blo;
  S.rmask = rmask;
}

// Lane `e.lane` computes row v of its columns (step t = v + lane of the stripe). `st` holds
// its columns of row v - 1 (updated to row v) and what the left lane passed for row v.
// A row whose one predecessor is the row before (nearly every row) takes the short path;
// the others merge their predecessors from slots. Without direction bytes, the lane's end
// cells of the row update `b` (no branch on the lane: the row's candidates are selected).
// Returns, through outPH/outH/outF, what the right lane takes next step.
template <int K, int MODE, bool CODES, bool STRIPED, class L, bool LINKED = false>
__device__ __forceinline__ void lane_row(const Env& e, const Stripe<K, L>& S, const int4 mt, int v, Lane<K, L>& st,
                                         Ends<K, MODE, L>& x, typename L::V& outPH, typename L::V& outH,
                                         typename L::V& outF) {
  using V = typename L::V;
  static_assert(!CODES || L::H == 1, "direction bytes: int32 cells");
  constexpr int SROW = (K + 1) * 32;
  const int lane = e.lane;
  const bool first = !STRIPED || S.first, more = STRIPED && S.more;
  const int npred = meta_npred(mt);
  const bool use_s = MODE != GLOBAL || (meta_flags(mt) & 1);
  const int gv = meta_code(mt);
  const V noe = L::splat(-e.oe), nge = L::splat(-e.ge);
  V PH[K], PE[K];
  unsigned aS = 0;  // bit k: a real predecessor gave PH at column k (rows of at most one)
  unsigned short aH[K + 1], aE[K + 1];
  uint32_t prof[K][L::H];
  V sh[K];
  get_columns<K, L>(S.tbl, lane, prof, sh);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    PH[k] = use_s ? sh[k] : L::neg();
    PE[k] = L::neg();
    if (CODES) aH[k] = aE[k] = FROM_S;
  }
  // lane 0: the merged column c0 - 1 (column 0 on the first stripe)
  V bh = use_s ? S.s0 : L::neg(), be = L::neg();
  if (CODES) aH[K] = aE[K] = FROM_S;
  bool bS = true;
  if (meta_lone_before(mt)) {
    // one predecessor, the row before: its H against S's, its E as it is (E of a computed row,
    // or minus infinity before the first, never falls below it: that bound is checked on the host)
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if constexpr (CODES) {
        if (st.H[k] > PH[k]) {
          PH[k] = st.H[k];
          aH[k] = 0;
          aS |= 1u << k;
        }
        aE[k] = 0;
      } else {
        PH[k] = L::vmax(PH[k], st.H[k]);
      }
      PE[k] = st.E[k];
    }
    if constexpr (CODES) {
      if (st.h0 > bh) {
        bh = st.h0;
        aH[K] = 0;
        bS = false;
      }
      aE[K] = 0;
    } else {
      bh = L::vmax(bh, st.h0);
    }
    be = st.e0;
    if (lane == 0 && !first && !S.phin) bh = L::vmax(bh, S.hin[v - 1]);  // bS: no code past the first stripe
  } else {
    const int p0 = mt.x;
    const int count = npred < MANY_PREDS ? npred : (int)(e.g.pred_off[v + 1] - e.g.pred_off[v]);
    for (int p = 0; p < count; ++p) {
      const int es = npred > 1 ? e.g.eslot[p0 + p] : mt.w;
      merge_pred<K, CODES, L>(es, p, st, e.ws, lane, PH, PE, aH, aE, aS, bh, be, bS);
      // column c0 - 1 from the stripe before (slots hold no column 0 here)
      if (lane == 0 && !first && !S.phin) bh = L::vmax(bh, S.hin[e.g.pred[p0 + p]]);
    }
  }
  // row v of a window or ring; a ring (LINKED) another warp wrote, from L2
  const int bi = (v - S.blo) & S.rmask;
  auto border = [&](const V* p) { return LINKED ? (V)load_l2((const int*)p + bi) : p[bi]; };
  if (lane == 0 && !first && S.phin) bh = border(S.phin);  // merged by the stripe before (its PH)
  // what comes from the left: column c0 - 1 (lane 0) or the left lane's last column (selects, no branch)
  V h0 = L::neg(), e0 = L::neg(), bH = L::neg(), bF = L::neg();
  if (first) {
    e0 = L::vmax(L::add(bh, noe), L::add(be, nge));
    h0 = MODE == LOCAL ? L::vmax(e0, L::splat(0)) : e0;
    bH = h0;
  } else if (lane == 0) {
    bH = border(S.hin);
    bF = border(S.fin);
  }
  const bool edge = lane == 0;
  const V leftPH = edge ? bh : st.inPH;
  const V leftH = edge ? bH : st.inH;
  const V leftF = edge ? bF : st.inF;
  V sub[K];
  if constexpr (L::H == 2) {
    // both halves in one byte permute: byte c of the first read's profile word, byte c of the
    // second's, each sign-extended (common.cuh profile_selector16); an N of the graph scores -n_penalty
    const uint32_t c = (uint32_t)gv & 3u, sel = c * 0x1111u + 0xC480u;
    const V pn = L::splat(-e.sc.n_penalty);
#pragma unroll
    for (int k = 0; k < K; ++k) sub[k] = gv > 3 ? pn : byte_perm(prof[k][0], prof[k][1], sel);
  } else if (e.prof) {
    const uint32_t sel = meta_selector(mt);
#pragma unroll
    for (int k = 0; k < K; ++k) sub[k] = (int)byte_perm(prof[k][0], e.npen, sel);
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) sub[k] = subst_of(e.sc, gv, S.rd[k]);
  }
  V H[K], E[K], F[K];
  V hp = leftH, fp = leftF;
  uint8_t* crow = CODES ? e.out.code + (int64_t)(v - e.out.lo) * SROW : nullptr;
  const bool multi = npred >= 2;
  const int64_t mi = CODES ? e.g.multi[v] - e.out.multi_lo : 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    E[k] = L::vmax(L::add(PH[k], noe), L::add(PE[k], nge));
    const V d = L::add(k ? PH[k - 1] : leftPH, sub[k]);
    const V fo = L::add(hp, noe), fe = L::add(fp, nge);
    F[k] = L::vmax(fo, fe);
    V h = d;
    if constexpr (CODES) {  // the first of D, F, E on ties
      int src = DIAG;
      if (F[k] > h) { h = F[k]; src = INS; }
      if (E[k] > h) { h = E[k]; src = DEL; }
      if (MODE == LOCAL && h <= 0) { h = 0; src = START; }
      const bool s_won = use_s && !((aS >> k) & 1);
      crow[k * 32 + lane] = (uint8_t)(src | ((PE[k] - e.ge > PH[k] - e.oe) << 2) | ((fe > fo) << 3) |
                                      ((multi ? 0 : (int)s_won) << 4));
      if (multi) {
        e.out.argH[mi * SROW + k * 32 + lane] = aH[k];
        e.out.argE[mi * SROW + k * 32 + lane] = aE[k];
      }
    } else {  // only the value: F (the in-row chain) joins last
      h = MODE == LOCAL ? L::vmax3(d, E[k], L::splat(0)) : L::vmax(d, E[k]);
      h = L::vmax(h, F[k]);
    }
    H[k] = h;
    hp = h;
    fp = F[k];
  }
  if constexpr (CODES) {
    if (lane == 0 && first) {
      const int src0 = (MODE == LOCAL && e0 <= 0) ? START : DEL;
      const bool s0 = use_s && bS;
      crow[K * 32] = (uint8_t)(src0 | ((be - e.ge > bh - e.oe) << 2) | ((multi ? 0 : (int)s0) << 4));
      if (multi) {
        e.out.argH[mi * SROW + K * 32] = aH[K];
        e.out.argE[mi * SROW + K * 32] = aE[K];
      }
    }
  }
  if (mt.z >= 0) {
    int* dst = e.ws + (int64_t)mt.z * 2 * SROW;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      dst[k * 32 + lane] = (int)H[k];
      dst[SROW + k * 32 + lane] = (int)E[k];
    }
    if (lane == 0) {
      dst[K * 32] = (int)h0;
      dst[SROW + K * 32] = (int)e0;
    }
  }
  if (more && lane == 31) {
    S.hout[bi] = H[K - 1];
    S.fout[bi] = F[K - 1];
    if (S.phout) S.phout[bi] = PH[K - 1];
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    st.H[k] = H[k];
    st.E[k] = E[k];
  }
  st.h0 = h0;
  st.e0 = e0;
  outPH = PH[K - 1];
  outH = H[K - 1];
  outF = F[K - 1];
  if (CODES) return;  // the walk tracks no end cells
  if (MODE != GLOBAL || (meta_flags(mt) & 2)) row_ends<K, MODE, L>(x, H, v);
}

// ---- the stripe pipeline: a long read's stripes on warps of their own, each a ring behind the one
// before (the host's choice where the launch's reads leave warps idle) ----

// CUDA only (the host's choice): in a 64-lane wavefront the two 32-lane warps run in lockstep, so a
// consumer could spin while its producer, the other half, waits behind it.
//
// Where a stripe waits: lane 0 for the ring in (the stripe before has written rows up to the chunk's
// last for lane 0: ts + 31, or the section's last row), lane 31 for the ring out (the stripe after
// has read the rows that lane 31's rows up to ts overwrite). The counters count rows from blo; each
// lane keeps what it last read of its counter and reads it again only when that falls short.
struct LinkSeen {
  int in = 0, out = 0;
};

template <class St>
__device__ __forceinline__ void link_wait(const St& S, int ts, int last, int lane, LinkSeen& seen) {
  const int half = threadIdx.x & (SA_WARP - 32);  // lane 0 of this 32-lane warp in a 64-lane wavefront
  const int need_in = min(ts + 32, last + 1) - S.blo, need_out = ts + 1 - LINK_ROWS - S.blo;
  while (true) {
    int ok = 1;
    if (lane == 0 && S.lin && seen.in < need_in) {
      seen.in = load_count(S.lin);
      ok = seen.in >= need_in;
    }
    if (lane == 31 && S.lout && seen.out < need_out) {
      seen.out = load_count(S.lout + 1);
      ok = seen.out >= need_out;
    }
    if (SA_SHFL(ok, half) && SA_SHFL(ok, half + 31)) break;
    backoff<GRAPH_LINK_SLEEP>();
  }
}

// What a stripe tells its neighbours after the steps ts .. ts + 31 (every LINK_EVERY chunks, and
// `done` at the end): lane 31 has written rows up to ts into the ring out, lane 0 has read rows up
// to ts + 31 of the ring in.
template <class St>
__device__ __forceinline__ void link_post(const St& S, int ts, int lane, bool done) {
  if (lane == 31 && S.lout) {
    __threadfence();
    *(volatile int*)S.lout = done ? LINK_DONE : ts + 1 - S.blo;
  }
  if (lane == 0 && S.lin) {
    __threadfence();
    *(volatile int*)(S.lin + 1) = done ? LINK_DONE : ts + 32 - S.blo;
  }
}

// Steps t0 .. t1 - 1 of a stripe (t0 a multiple of 32): lane l computes row t - l when it
// lies in [lo, min(n - 1, hi)]. The rows' records come through `ring` (4 x 32 int4 of shared
// memory a warp, chunk c of 32 rows at c & 3): while the steps of chunk c read chunks c - 1
// and c, chunk c + 1 is on its way (one coalesced load a lane a chunk), stored at the chunk's
// end. With checkpoints (CP), the state before step t is saved when t is a multiple of B in
// [lo, hi] (so each checkpoint belongs to one section).
template <int K, int MODE, bool CODES, bool CP, bool STRIPED, class L, bool LINKED = false>
__device__ __forceinline__ void sweep(const Env& env, const Stripe<K, L>& stripe, int t0, int t1, int lo, int hi,
                                      Lane<K, L>& st, Best (&b)[L::H], int* cp, int B, int4* ring) {
  using V = typename L::V;
  Env e = env;  // local copies: the compiler keeps what it needs of them in registers
  Stripe<K, L> S = stripe;
  const int lane = e.lane;
  const int last = min(e.g.n - 1, hi);
  const int top = max(e.g.n - 1, 0);
  int c = t0 >> 5;
  if (c > 0) ring[((c - 1) & 3) * 32 + lane] = e.g.meta[min(32 * (c - 1) + lane, top)];
  ring[(c & 3) * 32 + lane] = e.g.meta[min(32 * c + lane, top)];
  int4 pend = e.g.meta[min(32 * (c + 1) + lane, top)];
  SA_SYNCWARP();
  Ends<K, MODE, L> x;
  open_ends<K, MODE, L>(x);
  const bool linked = LINKED && (S.lin || S.lout);
  LinkSeen seen;
  for (; 32 * c < t1; ++c) {
    const int ts = 32 * c;
    if (linked) link_wait(S, ts, last, lane, seen);
    if constexpr (CP)
      if (ts % B == 0 && ts >= lo && ts <= last)
        save_lane<K, L>(cp + (int64_t)(ts / B) * checkpoint_ints<K>(e.g), st, e.ws,
                     e.g.n_slots, lane);
    const int te = min(t1, ts + 32);
    for (int t = ts; t < te; ++t) {
      const int v = t - lane;
      V oPH = L::neg(), oH = L::neg(), oF = L::neg();
      if (v >= lo && v <= last) {
        const int4 mt = ring[v & 127];  // chunk (v >> 5) & 3, row v & 31
        lane_row<K, MODE, CODES, STRIPED, L, LINKED>(e, S, mt, v, st, x, oPH, oH, oF);
      }
      st.inPH = SA_SHFL_UP(oPH, 1);
      st.inH = SA_SHFL_UP(oH, 1);
      st.inF = SA_SHFL_UP(oF, 1);
    }
    SA_SYNCWARP();  // the next chunk in, the one after on its way
    ring[((c + 1) & 3) * 32 + lane] = pend;
    pend = e.g.meta[min(32 * (c + 2) + lane, top)];
    if (linked && c % LINK_EVERY == LINK_EVERY - 1) link_post(S, ts, lane, false);
    SA_SYNCWARP();
  }
  if (linked) link_post(S, 0, lane, true);
  if (!CODES) close_ends<K, MODE, L>(x, S, lane, b);
}

// The warp's best end cell (every lane ends with it).
__device__ __forceinline__ void warp_best(Best& b) {
#pragma unroll
  for (int d = 16; d; d >>= 1) {
    const int s = SA_SHFL_XOR(b.s, d), v = SA_SHFL_XOR(b.v, d), j = SA_SHFL_XOR(b.j, d);
    if (better(s, v, j, b.s, b.v, b.j)) {
      b.s = s;
      b.v = v;
      b.j = j;
    }
  }
}

__device__ __forceinline__ int take_item(const Reads& r, int lane) {
  int item = 0;
  if (lane == 0) item = atomicAdd(r.next, 1);
  // from lane 0 of this 32-lane warp (a 64-lane wavefront holds two of them: SA_WARP - 32 picks the half)
  return SA_SHFL(item, (int)(threadIdx.x & (SA_WARP - 32)));
}

}  // namespace graph
}  // namespace sa

using namespace sa;
using namespace sa::graph;

#define GRAPH_ARGS                                                                                          \
  const uint8_t *gcode, const int64_t *pred_off, const int *pred, const int *slot, const uint8_t *flags,   \
      const int *gnode, const int64_t *multi, const int4 *meta, const int *eslot, int n, int n_slots,        \
      const int *sec, int nsec, const uint8_t *rcode, const int64_t *roff, const int *order, int count,      \
      int *next, int match, int mismatch, int gap_open, int gap_extend, int n_penalty, int use_prof

#define GRAPH_SETUP                                                                                     \
  const Graph g{gcode, pred_off, pred, slot, flags, gnode, multi, meta, eslot, n, n_slots};             \
  const Reads rs{rcode, roff, order, count, next};                                                      \
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};                                   \
  const int lane = threadIdx.x & 31;                                                                    \
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;                           \
  Env e{g, sc, gap_open + gap_extend, gap_extend, (uint32_t)(-n_penalty) & 0xffu, use_prof != 0,        \
        ws_all + warp * ws_stride, lane, Codes{nullptr, nullptr, nullptr, 0, 0}};                       \
  __shared__ int4 rings[WARPS_PER_BLOCK * 128];                                                         \
  int4* ring = rings + (threadIdx.x >> 5) * 128;                                                        \
  __shared__ uint4 tables[WARPS_PER_BLOCK * Columns<K, Cells::H>::WORDS / 4];                             \
  uint32_t* tbl = (uint32_t*)(tables + (threadIdx.x >> 5) * (Columns<K, Cells::H>::WORDS / 4));

namespace sa {
namespace graph {

// The items of graph_score (int32 cells: one read an item) and graph_score16 (16-bit cells: two reads
// an item, the low half order[2w], the high half order[2w + 1], -1 for none): `count` = order's
// entries / H x nsec; item i is section i % nsec (rows sec[s] .. sec[s + 1] - 1, no predecessor
// outside) of the reads of entry w = i / nsec. ends[((H w + h) nsec + s) * 3 + 0..2] = section s's
// best end cell for the read in half h (score, row, column; row -1: none), reduced per read by
// graph_best (over order's entries). With the pipeline (LINKED, pipe = P stripes), unit u is stripe
// u % P of item u / P, and each stripe keeps its own best: ends[(((H w + h) nsec + s) P + stripe) * 3].
template <int K, int MODE, bool CP, bool LINKED, class L>
__device__ __forceinline__ void score_items(const Env& e, const Reads& rs, const int* sec, int nsec, int* border,
                                            int64_t link_stride, int pipe, int* cp_all, int64_t cp_stride, int B,
                                            int* ends, uint32_t* tbl, int4* ring) {
  constexpr int H = L::H;
  const int lane = e.lane, n = e.g.n, P = max(pipe, 1);
  const int64_t cp_per_stripe = stripe_checkpoint_ints<K>(e.g, B);
  for (int unit = take_item(rs, lane); unit < rs.count; unit = take_item(rs, lane)) {
    const int item = unit / P, sp = unit - item * P;  // the pipeline's stripe sp of the item
    const int w = item / nsec, part = item - w * nsec;
    const int lo = sec[part], hi = sec[part + 1] - 1;
    int read[H], stripes = 0;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      read[h] = rs.order[H * w + h];
      const int m = read[h] >= 0 ? (int)(rs.off[read[h] + 1] - rs.off[read[h]]) : 0;
      stripes = max(stripes, (m + 32 * K - 1) / (32 * K));
    }
    Best b[H];
#pragma unroll
    for (int h = 0; h < H; ++h) b[h] = Best{MODE == LOCAL ? 0 : NEG, -1, -1};
    for (int s = pipe ? sp : 0; s < (pipe ? min(sp + 1, stripes) : stripes); ++s) {
      Stripe<K, L> S;
      setup_stripe<K, MODE, L>(e, rs, read, 1 + s * 32 * K, tbl, S);
      using V = typename L::V;
      if (pipe) {  // link s from stripe s - 1 (PH, H, F rings, then the counters), link s + 1 to stripe s + 1
        int* in = border + ((int64_t)item * P + s) * link_stride;
        int* to = in + link_stride;
        border_rows<K, L>(S, in, to, LINK_ROWS, lo & ~31, LINK_ROWS - 1);
        S.lin = s > 0 ? in + 3 * LINK_ROWS : nullptr;
        S.lout = s + 1 < stripes ? to + 3 * LINK_ROWS : nullptr;
      } else {  // the warp's border: H in, F in, H out, F out (swapped per stripe)
        S.hin = (const V*)(border + (int64_t)(s & 1) * 2 * n);
        S.fin = S.hin + n;
        S.hout = (V*)(border + (int64_t)((s + 1) & 1) * 2 * n);
        S.fout = S.hout + n;
      }
      S.first = s == 0;
      S.more = s + 1 < stripes;
      Lane<K, L> st;
      clear_lane<K, L>(st);
      int* cp = cp_all + w * cp_stride + s * cp_per_stripe;
      // only the widest K has reads of several stripes (the host's widths): the others hold no striped sweep
      if constexpr (LINKED)
        sweep<K, MODE, false, CP, true, L, true>(e, S, lo & ~31, hi + 32, lo, hi, st, b, cp, B, ring);
      else if (K != STRIPED_K || stripes == 1)
        sweep<K, MODE, false, CP, false, L>(e, S, lo & ~31, hi + 32, lo, hi, st, b, cp, B, ring);
      else if constexpr (K == STRIPED_K)
        sweep<K, MODE, false, CP, true, L>(e, S, lo & ~31, hi + 32, lo, hi, st, b, cp, B, ring);
    }
#pragma unroll
    for (int h = 0; h < H; ++h) {
      warp_best(b[h]);
      if (lane == 0 && read[h] >= 0) {
        int* o = ends + (((int64_t)(H * w + h) * nsec + part) * P + sp) * 3;
        o[0] = b[h].s;
        o[1] = b[h].v;
        o[2] = b[h].j;
      }
    }
  }
}

}  // namespace graph
}  // namespace sa

// graph_score: int32 cells, every mode, checkpoints for the walk (CP); `count` = reads x nsec; LINKED:
// the stripe pipeline (K = STRIPED_K only; pipe: its stripes, `count` = reads x nsec x pipe).
template <int K, int MODE, bool CP, bool LINKED>
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK)
    graph_score(GRAPH_ARGS, int* ws_all, int64_t ws_stride, int* border_all, int64_t border_stride, int* cp_all,
                int64_t cp_stride, int B, int* ends, int pipe) {
  using Cells = Cells32;
  GRAPH_SETUP
  score_items<K, MODE, CP, LINKED, Cells>(e, rs, sec, nsec, LINKED ? border_all : border_all + warp * border_stride,
                                          border_stride, LINKED ? pipe : 0, cp_all, cp_stride, B, ends, tbl, ring);
}

// graph_score16: two reads an item in 16-bit halves, every mode; `count` = (reads + 1) / 2 x nsec,
// order holding the pairs (the host sends reads of one width whose values fit: INT16_LIMIT); with CP,
// a pair's checkpoints hold both reads (graph_walk with packed = 1 unpacks its half).
template <int K, int MODE, bool CP, bool LINKED>
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK)
    graph_score16(GRAPH_ARGS, int* ws_all, int64_t ws_stride, int* border_all, int64_t border_stride, int* cp_all,
                  int64_t cp_stride, int B, int* ends, int pipe) {
  using Cells = Cells16;
  GRAPH_SETUP
  score_items<K, MODE, CP, LINKED, Cells>(e, rs, sec, nsec, LINKED ? border_all : border_all + warp * border_stride,
                                          border_stride, LINKED ? pipe : 0, cp_all, cp_stride, B, ends, tbl, ring);
}

// One thread a read: the best of its sections' end cells, then the mode's empty alignment.
// out[read*4 + 0..2] = score, end base, end column (end base -1: empty alignment).
template <int MODE>
__global__ void graph_best(const int* ends, int nsec, const int64_t* roff, const int* order, int count, int oe, int ge,
                           int* out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int read = order[k];
  if (read < 0) return;  // an empty high half (graph_score16)
  const int* x = ends + (int64_t)k * nsec * 3;
  int bs = x[0], bv = x[1], bj = x[2];
  for (int p = 1; p < nsec; ++p)
    if (better(x[3 * p], x[3 * p + 1], x[3 * p + 2], bs, bv, bj)) {
      bs = x[3 * p];
      bv = x[3 * p + 1];
      bj = x[3 * p + 2];
    }
  const int m = (int)(roff[read + 1] - roff[read]);
  if (MODE == GLOCAL && start_h<MODE>(m, oe, ge) > bs) {  // the read all inserted, no path
    bs = start_h<MODE>(m, oe, ge);
    bv = -1;
  }
  if (MODE == LOCAL && bs <= 0) {
    bs = 0;
    bv = -1;
  }
  out[read * 4 + 0] = bs;
  out[read * 4 + 1] = bv;
  out[read * 4 + 2] = bv >= 0 ? bj : (MODE == LOCAL ? 0 : m);
}

namespace sa {
namespace graph {

// What the walk reads of one read: its checkpoints (a pair's, half `half`, in 16-bit cells) and its
// warp's windows of the border rows (two: PH, H, F, `wrows` rows each).
struct WalkRead {
  int read, half;
  const int* cp;
  int64_t cp_per_stripe, cprow;
  int* win;
  int64_t wrows;
};

// The walk's block holding row v of stripe s, with direction bytes: from the checkpoint of step b =
// B*floor(v/B) (or the section's first row, when b lies before it) to row v. Stripes 0 .. s - 1 sweep
// the same steps first, values only, each leaving its last column's PH, H and F of rows lo - 31 .. v
// in a window for the next. Returns the block's first row (codes hold rows lo .. v).
template <int K, int MODE>
__device__ int walk_block(Env& e, const Reads& rs, const WalkRead& w, int s, int v, int slo, int B, uint32_t* tbl,
                          int4* ring, Stripe<K>& S) {
  const int b = (v / B) * B;
  const bool fresh = b < slo;
  const int lo = fresh ? slo & ~31 : b;
  const int one[1] = {w.read};
  Best unused[1] = {{0, 0, 0}};
  for (int k = 0; k <= s; ++k) {
    setup_stripe<K, MODE, Cells32>(e, rs, one, 1 + k * 32 * K, tbl, S);
    // two windows, stripe k writing the one stripe k - 1 did not
    border_rows<K, Cells32>(S, w.win + (int64_t)((k + 1) & 1) * 3 * w.wrows, w.win + (int64_t)(k & 1) * 3 * w.wrows,
                            w.wrows, lo - 31, -1);
    S.first = k == 0;
    S.more = k < s;
    Lane<K> st;
    if (fresh)
      clear_lane<K, Cells32>(st);
    else
      load_lane<K>(w.cp + k * w.cp_per_stripe + (int64_t)(b / B) * w.cprow, st, e.ws, e.g.n_slots, e.lane, w.half);
    SA_SYNCWARP();
    if (k < s) {
      if constexpr (K == STRIPED_K)
        sweep<K, MODE, false, false, true, Cells32>(e, S, lo, v + 32, slo, v, st, unused, nullptr, B, ring);
    } else {
      e.out.lo = max(lo - 31, 0);
      e.out.multi_lo = e.g.multi[e.out.lo];
      sweep<K, MODE, true, false, K == STRIPED_K, Cells32>(e, S, lo, v + 32, slo, v, st, unused, nullptr, B, ring);
    }
    SA_SYNCWARP();
    __threadfence_block();
  }
  return lo;
}

}  // namespace graph
}  // namespace sa

// `count` = reads (one item each). The end row's section bounds the recomputation: a block
// that would start before it starts at the section's first row with a clear state. A read
// longer than 32*K (K = STRIPED_K) is walked stripe by stripe, right to left (`walk_block`): a
// diagonal move out of a stripe's first column takes its predecessor from the stripe before's
// codes of that row (its last column merged the predecessors, as the stripe's lane 0 took them).
template <int K, int MODE>
__global__ void graph_walk(GRAPH_ARGS, int* ws_all, int64_t ws_stride, const int* cp_all, int64_t cp_stride, int B,
                           int* win_all, uint8_t* codes_all, int64_t codes_stride, unsigned short* args_all,
                           int64_t args_stride, const int* out, const int64_t* run_off, uint8_t* run_op, int* run_len,
                           const int64_t* node_off, int* nodes, int* info, int packed) {
  using Cells = Cells32;
  GRAPH_SETUP
  constexpr int SROW = (K + 1) * 32, SW = 32 * K;
  uint8_t* codes = codes_all + warp * codes_stride;
  unsigned short* argH = args_all + warp * args_stride;
  unsigned short* argE = argH + args_stride / 2;
  e.out = Codes{codes, argH, argE, 0, 0};
  const int64_t wrows = B + 64;  // rows lo - 31 .. v of a block, v < lo + B + 32
  for (int item = take_item(rs, lane); item < count; item = take_item(rs, lane)) {
    const int read = order[item];
    if (read < 0) continue;  // an empty high half
    int v = out[read * 4 + 1], j = out[read * 4 + 2];
    // 16-bit checkpoints (packed): entry item is half item % 2 of the pair item / 2
    const WalkRead wr{read, packed ? item % 2 : -1, cp_all + (packed ? item / 2 : item) * cp_stride,
                      stripe_checkpoint_ints<K>(g, B), checkpoint_ints<K>(g), win_all + warp * 6 * wrows, wrows};
    Stripe<K> S;
    const int64_t r0 = run_off[read];
    const int64_t n0 = node_off[read], room = node_off[read + 1] - n0;
    if (v < 0) {
      if (lane == 0) {
        info[read * 4 + 0] = 0;
        info[read * 4 + 1] = -1;
        info[read * 4 + 2] = 0;
        info[read * 4 + 3] = 0;
      }
      continue;
    }
    int part = 0;
    while (part + 1 < nsec && sec[part + 1] <= v) ++part;
    const int slo = sec[part];
    int lo = n + 1, ls = -1, state = 0, first = -1, last_node = -1, runs = 0, cur_op = -1, cur_len = 0;
    int64_t n_nodes = 0;
    while (true) {
      const int js = j == 0 ? 0 : (j - 1) / SW;  // the stripe holding column j
      if (v < lo || js != ls) {
        lo = walk_block<K, MODE>(e, rs, wr, js, v, slo, B, tbl, ring, S);
        ls = js;
      }
      const uint8_t* crow = codes + (int64_t)(v - e.out.lo) * SROW;
      int cb = ls * SW;  // the column before the stripe's: its columns cb + 1 .. cb + SW
      const int cidx = j == cb ? K * 32 : ((j - cb - 1) % K) * 32 + (j - cb - 1) / K;
      const uint8_t c = crow[cidx];
      int mv = c & 3;
      if (state == 1) mv = INS;
      else if (state == 2) mv = DEL;
      if (mv == START) break;
      int op;
      bool consumed = false, use_h = true;
      int col = j;
      if (mv == INS) {
        op = OP_I;
        state = ((c >> 3) & 1) ? 1 : 0;
        j -= 1;
      } else {
        consumed = true;
        if (mv == DIAG) {
          const int rb = rcode[roff[read] + j - 1];
          op = (gcode[v] == rb && rb < 4) ? OP_EQ : OP_X;
          col = j - 1;
        } else {
          op = OP_D;
          use_h = !((c >> 2) & 1);
        }
      }
      if (op != cur_op) {
        if (cur_op >= 0 && lane == 0) {
          run_op[r0 + runs] = (uint8_t)cur_op;
          run_len[r0 + runs] = cur_len;
        }
        if (cur_op >= 0) runs++;
        cur_op = op;
        cur_len = 0;
      }
      cur_len++;
      if (!consumed) continue;
      first = v;
      if (gnode[v] != last_node) {  // the path's nodes, end to start
        if (n_nodes < room && lane == 0) nodes[n0 + n_nodes] = gnode[v];
        n_nodes++;
        last_node = gnode[v];
      }
      if (col == cb && ls > 0) {  // which predecessor: the stripe before's codes of row v (its last column)
        lo = walk_block<K, MODE>(e, rs, wr, ls - 1, v, slo, B, tbl, ring, S);
        ls -= 1;
        cb -= SW;
        crow = codes + (int64_t)(v - e.out.lo) * SROW;
      }
      // which predecessor the move came from
      const int64_t p0 = pred_off[v];
      const int npred = (int)(pred_off[v + 1] - p0);
      int u;
      const int pidx = col == cb ? K * 32 : ((col - cb - 1) % K) * 32 + (col - cb - 1) / K;
      if (npred >= 2) {
        const int64_t mi = multi[v] - e.out.multi_lo;
        const unsigned short k = use_h ? argH[mi * SROW + pidx] : argE[mi * SROW + pidx];
        u = k == FROM_S ? -1 : pred[p0 + k];
      } else if (npred == 0) {
        u = -1;
      } else {
        u = (use_h && ((crow[pidx] >> 4) & 1)) ? -1 : pred[p0];
      }
      j = col;
      if (u < 0) {
        if (MODE != LOCAL && j > 0) {
          if (cur_op != OP_I) {
            if (lane == 0) {
              run_op[r0 + runs] = (uint8_t)cur_op;
              run_len[r0 + runs] = cur_len;
            }
            runs++;
            cur_op = OP_I;
            cur_len = 0;
          }
          cur_len += j;
          j = 0;
        }
        break;
      }
      v = u;
      state = use_h ? 0 : 2;
    }
    if (cur_op >= 0) {
      if (lane == 0) {
        run_op[r0 + runs] = (uint8_t)cur_op;
        run_len[r0 + runs] = cur_len;
      }
      runs++;
    }
    if (lane == 0) {
      sa::reverse_runs(run_op + r0, run_len + r0, runs);  // runs were written end to start
      info[read * 4 + 0] = j;
      info[read * 4 + 1] = first;
      info[read * 4 + 2] = runs;
      info[read * 4 + 3] = (int)n_nodes;  // more than the room: the host aligns the read again
      // the nodes were written end to start: reverse them
      if (n_nodes <= room)
        for (int64_t a = 0, b = n_nodes - 1; a < b; ++a, --b) {
          const int t = nodes[n0 + a];
          nodes[n0 + a] = nodes[n0 + b];
          nodes[n0 + b] = t;
        }
    }
  }
}
