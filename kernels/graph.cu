// graph.cu: reads against a DAG (the graph family), exact affine DP, score and traceback.
//
// The recurrence and tie rules are the CPU engine's (seqalign_cli/backends/cpu/graph_dp.py,
// README "Graphs"): rows are the graph's bases in topological order, columns the read
// prefix lengths 0..m; a row takes its predecessors' rows merged column by column (the
// virtual start row S first, then the predecessors in ascending order, a later one only
// when strictly better); H = max(D, F, E) with ties in that order; local mode floors at 0.
//
// Thread mapping: one warp per work item (a read and a section of the rows), persistent
// warps taking items from a counter. Sections (host: backends/cuda/graph.py `sections`) are
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
// ints a warp).
//
// Layouts (int32): a slot row is 2*SROW ints, SROW = (K+1)*32: H[k*32 + lane] for the K
// columns of each lane, then at k = K, lane 0, column 0; then E the same way.
// Checkpoints (traceback): at every step t that is a multiple of B and whose lane-0 row lies
// in the item's section, each lane copies its columns of the row before, of all slots and
// what it took from its left neighbour (CPROW = (n_slots + 1) * 2*SROW + 96 ints a
// checkpoint, per read); restored at step t, the sweep goes on exactly as it went. Direction
// bytes (walk kernel): one per cell, (K+1)*32 bytes a row in the slot layout, rows from t -
// 31; rows with several predecessors also keep, per cell, which predecessor gave PH and PE
// (uint16, 0xFFFF = S).
//
// Kernels (graph arrays, then sec/nsec: the sections' first rows and their count, the reads,
// `count` items, the scoring and use_prof: scores fit the byte profile):
//  graph_score<K, MODE, CP>(graph..., reads..., scoring, ws, ws_stride, border,
//      border_stride, cp, cp_stride, B, ends): item i = section i % nsec of read order[i / nsec];
//      ends[i*3 + 0..2] = the section's best end cell (score, row, column; row -1: none).
//  graph_best<MODE>(ends, nsec, roff, order, count, oe, ge, out): one thread a read; out[read*4 +
//      0..2] = score, end base, end column (end base -1: empty alignment).
//  graph_walk<K, MODE>(graph..., reads..., scoring, ws, ws_stride, cp, cp_stride, B, codes,
//      codes_stride, args, args_stride, out, run_off, run_op, run_len, node_off, nodes, info):
//      one item a read; from the end row v, restores the checkpoint of step B*floor(v/B) (or
//      starts v's section afresh when that step lies before it), sweeps on to row v with
//      direction bytes and walks back to that step's row, then the checkpoint before, and so
//      on (every lane walks, lane 0 writes): runs into the RunStore slots of the read, the
//      path's nodes into nodes[node_off[read]..node_off[read + 1]), info[read*4 + 0..3] = read
//      start, first base, runs, path nodes (more than the room: not written; the host aligns
//      that read again).
#include "common.cuh"

namespace sa {
namespace graph {

constexpr unsigned short FROM_S = 0xFFFF;
// warps a block (the host launches 32 * WARPS_PER_BLOCK threads a block)
constexpr int WARPS_PER_BLOCK = 4;
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

// One lane's state in the skewed sweep: its columns of the row before, and what it took
// from the lane on its left for the row it computes next.
template <int K>
struct Lane {
  int H[K], E[K];
  int h0, e0;          // column 0 of the row before (lane 0, first stripe)
  int inPH, inH, inF;  // the left lane's last column: merged predecessor H, H, F
};

template <int K>
__device__ __forceinline__ void clear_lane(Lane<K>& st) {
#pragma unroll
  for (int k = 0; k < K; ++k) st.H[k] = st.E[k] = NEG;
  st.h0 = st.e0 = NEG;
  st.inPH = st.inH = st.inF = NEG;
}

// A checkpoint: the row before, the slots (each lane its own columns), the inbound values.
template <int K>
__device__ __forceinline__ void save_lane(int* dst, const Lane<K>& st, const int* ws, int n_slots, int lane) {
  constexpr int SROW = (K + 1) * 32;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    dst[k * 32 + lane] = st.H[k];
    dst[SROW + k * 32 + lane] = st.E[k];
  }
  if (lane == 0) {
    dst[K * 32] = st.h0;
    dst[SROW + K * 32] = st.e0;
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
  in[lane] = st.inPH;
  in[32 + lane] = st.inH;
  in[64 + lane] = st.inF;
}

template <int K>
__device__ __forceinline__ void load_lane(const int* src, Lane<K>& st, int* ws, int n_slots, int lane) {
  constexpr int SROW = (K + 1) * 32;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    st.H[k] = src[k * 32 + lane];
    st.E[k] = src[SROW + k * 32 + lane];
  }
  st.h0 = src[K * 32];
  st.e0 = src[SROW + K * 32];
  for (int q = 0; q < n_slots; ++q) {
    const int* from = src + (int64_t)(q + 1) * 2 * SROW;
    int* to = ws + (int64_t)q * 2 * SROW;
#pragma unroll
    for (int k = 0; k <= K; ++k) {
      to[k * 32 + lane] = from[k * 32 + lane];
      to[SROW + k * 32 + lane] = from[SROW + k * 32 + lane];
    }
  }
  const int* in = src + (int64_t)(n_slots + 1) * 2 * SROW;
  st.inPH = in[lane];
  st.inH = in[32 + lane];
  st.inF = in[64 + lane];
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
template <int K, bool CODES>
__device__ __forceinline__ void merge_pred(int es, int p, const Lane<K>& st, const int* ws, int lane, int (&PH)[K],
                                           int (&PE)[K], unsigned short (&aH)[K + 1], unsigned short (&aE)[K + 1],
                                           unsigned& aS, int& bh, int& be, bool& bS) {
  constexpr int SROW = (K + 1) * 32;
  int hu[K], eu[K], hb, eb;
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
      hu[k] = src[k * 32 + lane];
      eu[k] = src[SROW + k * 32 + lane];
    }
    hb = src[K * 32];
    eb = src[SROW + K * 32];
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (hu[k] > PH[k]) {
      PH[k] = hu[k];
      if (CODES) aH[k] = p;
      aS |= 1u << k;
    }
    if (eu[k] > PE[k]) {
      PE[k] = eu[k];
      if (CODES) aE[k] = p;
    }
  }
  // column 0: every lane merges it (no divergence); only lane 0's is used
  if (hb > bh) {
    bh = hb;
    if (CODES) aH[K] = p;
    bS = false;
  }
  if (eb > be) {
    be = eb;
    if (CODES) aE[K] = p;
  }
}

// What one lane's sweep of one stripe reads and never changes.
template <int K>
struct Stripe {
  int c0, m;          // the stripe's first column (1 + stripe*32*K); the read's length
  int rd[K];          // read codes of the lane's columns (4 past the read's end)
  uint32_t* tbl;      // the warp's column table in shared memory (`put_columns`, `get_columns`)
  int s0;             // S's H at column c0 - 1
  int kend;           // k of column m when this lane holds it, else -1
  unsigned live;      // bit k: column c0 + lane*K + k <= m
  const int* hin;     // a later stripe: H and F of column c0 - 1, by row (the stripe before)
  const int* fin;
  int* hout;          // more stripes to come: this stripe's last column, by row (lane 31)
  int* fout;
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

// A lane's end cells during one stripe's sweep: the best of each of its columns (cs[k], at row
// cv[k]; global: sink rows only). Rows come in ascending order and a strictly higher score
// replaces the one kept, so each column keeps its smallest row. `close_ends` folds them into a
// Best: every live column (local), or column m in the lane that holds it (glocal, global).
template <int K>
struct Ends {
  int cs[K], cv[K];
};

template <int K>
__device__ __forceinline__ void open_ends(Ends<K>& x) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    x.cs[k] = NEG;
    x.cv[k] = -1;
  }
}

template <int K, int MODE>
__device__ __forceinline__ void close_ends(const Ends<K>& x, const Stripe<K>& S, int lane, Best& b) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = S.c0 + lane * K + k;
    const bool end = MODE == LOCAL ? ((S.live >> k) & 1) : k == S.kend;
    if (end && x.cv[k] >= 0 && better(x.cs[k], x.cv[k], j, b.s, b.v, b.j)) {
      b.s = x.cs[k];
      b.v = x.cv[k];
      b.j = j;
    }
  }
}

// max(a, b) into a; whether b was strictly greater
__device__ __forceinline__ bool raise(int& a, int b) {
  bool kept;
  a = max_which(a, b, kept);
  return !kept;
}

// A lane's column constants, read every row: the byte profile of its read base and S's H, in
// shared memory (Columns<K>::WORDS words a warp). Kept in registers, they were recomputed every row
// (the compiler rematerializes them). Layout: groups of G = 4, 2 or 1 columns, [group][lane],
// G words for the profiles then G for S's H, so that a lane reads 2G words in one or two loads.
template <int K>
struct Columns {
  static constexpr int G = K % 4 == 0 ? 4 : (K % 2 == 0 ? 2 : 1);
  static constexpr int WORDS = 2 * K * 32;
};

template <int K>
__device__ __forceinline__ void put_column(uint32_t* tbl, int lane, int k, uint32_t prof, int sh) {
  constexpr int G = Columns<K>::G;
  uint32_t* at = tbl + ((k / G) * 32 + lane) * 2 * G + k % G;
  at[0] = prof;
  at[G] = (uint32_t)sh;
}

template <int K>
__device__ __forceinline__ void get_columns(const uint32_t* tbl, int lane, uint32_t (&prof)[K], int (&sh)[K]) {
  constexpr int G = Columns<K>::G;
#pragma unroll
  for (int g = 0; g < K / G; ++g) {
    const uint32_t* at = tbl + (g * 32 + lane) * 2 * G;
    if (G == 4) {
      const uint4 a = *(const uint4*)at, b = *(const uint4*)(at + 4);
      prof[4 * g] = a.x;
      prof[4 * g + 1] = a.y;
      prof[4 * g + 2] = a.z;
      prof[4 * g + 3] = a.w;
      sh[4 * g] = (int)b.x;
      sh[4 * g + 1] = (int)b.y;
      sh[4 * g + 2] = (int)b.z;
      sh[4 * g + 3] = (int)b.w;
    } else if (G == 2) {
      const uint4 a = *(const uint4*)at;
      prof[2 * g] = a.x;
      prof[2 * g + 1] = a.y;
      sh[2 * g] = (int)a.z;
      sh[2 * g + 1] = (int)a.w;
    } else {
#pragma unroll
      for (int c = 0; c < G; ++c) {
        prof[g * G + c] = at[c];
        sh[g * G + c] = (int)at[G + c];
      }
    }
  }
}

template <int K, int MODE>
__device__ __forceinline__ void setup_stripe(const Env& e, const Reads& r, int read, int c0, uint32_t* tbl,
                                             Stripe<K>& S) {
  const int64_t o = r.off[read];
  S.tbl = tbl;
  S.m = (int)(r.off[read + 1] - o);
  S.c0 = c0;
  S.kend = -1;
  S.live = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = c0 + e.lane * K + k;
    S.rd[k] = j <= S.m ? r.code[o + j - 1] : 4;
    uint32_t prof, hi;
    profile(e.sc, (uint8_t)S.rd[k], prof, hi);
    put_column<K>(S.tbl, e.lane, k, prof, start_h<MODE>(j, e.oe, e.ge));
    if (j <= S.m) S.live |= 1u << k;
    if (j == S.m) S.kend = k;
  }
  S.s0 = start_h<MODE>(c0 - 1, e.oe, e.ge);
  S.hin = S.fin = nullptr;
  S.hout = S.fout = nullptr;
  S.first = true;
  S.more = false;
}

// Lane `e.lane` computes row v of its columns (step t = v + lane of the stripe). `st` holds
// its columns of row v - 1 (updated to row v) and what the left lane passed for row v.
// A row whose one predecessor is the row before (nearly every row) takes the short path;
// the others merge their predecessors from slots. Without direction bytes, the lane's end
// cells of the row update `b` (no branch on the lane: the row's candidates are selected).
// Returns, through outPH/outH/outF, what the right lane takes next step.
template <int K, int MODE, bool CODES, bool STRIPED>
__device__ __forceinline__ void lane_row(const Env& e, const Stripe<K>& S, const int4 mt, int v, Lane<K>& st,
                                         Ends<K>& x, int& outPH, int& outH, int& outF) {
  constexpr int SROW = (K + 1) * 32;
  const int lane = e.lane;
  const bool first = !STRIPED || S.first, more = STRIPED && S.more;
  const int npred = meta_npred(mt);
  const bool use_s = MODE != GLOBAL || (meta_flags(mt) & 1);
  const int gv = meta_code(mt);
  int PH[K], PE[K];
  unsigned aS = 0;  // bit k: a real predecessor gave PH at column k (rows of at most one)
  unsigned short aH[K + 1], aE[K + 1];
  uint32_t prof[K];
  int sh[K];
  get_columns<K>(S.tbl, lane, prof, sh);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    PH[k] = use_s ? sh[k] : NEG;
    PE[k] = NEG;
    if (CODES) aH[k] = aE[k] = FROM_S;
  }
  // lane 0: the merged column c0 - 1 (column 0 on the first stripe)
  int bh = use_s ? S.s0 : NEG, be = NEG;
  if (CODES) aH[K] = aE[K] = FROM_S;
  bool bS = true;
  if (meta_lone_before(mt)) {
    // one predecessor, the row before: its H against S's, its E as it is (E of a computed row,
    // or NEG before the first, never falls below NEG: that bound is checked on the host)
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (st.H[k] > PH[k]) {
        PH[k] = st.H[k];
        if (CODES) aH[k] = 0;
        aS |= 1u << k;
      }
      PE[k] = st.E[k];
      if (CODES) aE[k] = 0;
    }
    if (st.h0 > bh) {
      bh = st.h0;
      if (CODES) aH[K] = 0;
      bS = false;
    }
    be = st.e0;
    if (CODES) aE[K] = 0;
    if (lane == 0 && !first) {
      const int hb = S.hin[v - 1];
      if (hb > bh) {
        bh = hb;
        bS = false;
      }
    }
  } else {
    const int p0 = mt.x;
    const int count = npred < MANY_PREDS ? npred : (int)(e.g.pred_off[v + 1] - e.g.pred_off[v]);
    for (int p = 0; p < count; ++p) {
      const int es = npred > 1 ? e.g.eslot[p0 + p] : mt.w;
      merge_pred<K, CODES>(es, p, st, e.ws, lane, PH, PE, aH, aE, aS, bh, be, bS);
      if (lane == 0 && !first) {  // column c0 - 1 from the stripe before (slots hold no column 0 here)
        const int hb = S.hin[e.g.pred[p0 + p]];
        if (hb > bh) {
          bh = hb;
          bS = false;
        }
      }
    }
  }
  // what comes from the left: column c0 - 1 (lane 0) or the left lane's last column (selects, no branch)
  int h0 = NEG, e0 = NEG, bH = NEG, bF = NEG;
  if (first) {
    e0 = max(bh - e.oe, be - e.ge);
    h0 = (MODE == LOCAL && e0 <= 0) ? 0 : e0;
    bH = h0;
  } else if (lane == 0) {
    bH = S.hin[v];
    bF = S.fin[v];
  }
  const bool edge = lane == 0;
  const int leftPH = edge ? bh : st.inPH;
  const int leftH = edge ? bH : st.inH;
  const int leftF = edge ? bF : st.inF;
  int sub[K];
  if (e.prof) {
    const uint32_t sel = meta_selector(mt);
#pragma unroll
    for (int k = 0; k < K; ++k) sub[k] = (int)byte_perm(prof[k], e.npen, sel);
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) sub[k] = subst_of(e.sc, gv, S.rd[k]);
  }
  int H[K], E[K], F[K];
  int hp = leftH, fp = leftF;
  uint8_t* crow = CODES ? e.out.code + (int64_t)(v - e.out.lo) * SROW : nullptr;
  const bool multi = npred >= 2;
  const int64_t mi = CODES ? e.g.multi[v] - e.out.multi_lo : 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    E[k] = max(PH[k] - e.oe, PE[k] - e.ge);
    const int d = (k ? PH[k - 1] : leftPH) + sub[k];
    const int fo = hp - e.oe, fe = fp - e.ge;
    F[k] = max(fo, fe);
    int h = d, src = DIAG;
    if (CODES) {  // the first of D, F, E on ties
      if (F[k] > h) { h = F[k]; src = INS; }
      if (E[k] > h) { h = E[k]; src = DEL; }
      if (MODE == LOCAL && h <= 0) { h = 0; src = START; }
    } else {  // only the value: F (the in-row chain) joins last
      h = MODE == LOCAL ? max3(d, E[k], 0) : max(d, E[k]);
      h = max(h, F[k]);
    }
    H[k] = h;
    if (CODES) {
      const bool s_won = use_s && !((aS >> k) & 1);
      crow[k * 32 + lane] = (uint8_t)(src | ((PE[k] - e.ge > PH[k] - e.oe) << 2) | ((fe > fo) << 3) |
                                      ((multi ? 0 : (int)s_won) << 4));
      if (multi) {
        e.out.argH[mi * SROW + k * 32 + lane] = aH[k];
        e.out.argE[mi * SROW + k * 32 + lane] = aE[k];
      }
    }
    hp = h;
    fp = F[k];
  }
  if (CODES && lane == 0 && first) {
    const int src0 = (MODE == LOCAL && e0 <= 0) ? START : DEL;
    const bool s0 = use_s && bS;
    crow[K * 32] = (uint8_t)(src0 | ((be - e.ge > bh - e.oe) << 2) | ((multi ? 0 : (int)s0) << 4));
    if (multi) {
      e.out.argH[mi * SROW + K * 32] = aH[K];
      e.out.argE[mi * SROW + K * 32] = aE[K];
    }
  }
  if (mt.z >= 0) {
    int* dst = e.ws + (int64_t)mt.z * 2 * SROW;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      dst[k * 32 + lane] = H[k];
      dst[SROW + k * 32 + lane] = E[k];
    }
    if (lane == 0) {
      dst[K * 32] = h0;
      dst[SROW + K * 32] = e0;
    }
  }
  if (more && lane == 31) {
    S.hout[v] = H[K - 1];
    S.fout[v] = F[K - 1];
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
  if (MODE != GLOBAL || (meta_flags(mt) & 2)) {
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (raise(x.cs[k], H[k])) x.cv[k] = v;
  }
}

// Steps t0 .. t1 - 1 of a stripe (t0 a multiple of 32): lane l computes row t - l when it
// lies in [lo, min(n - 1, hi)]. The rows' records come through `ring` (4 x 32 int4 of shared
// memory a warp, chunk c of 32 rows at c & 3): while the steps of chunk c read chunks c - 1
// and c, chunk c + 1 is on its way (one coalesced load a lane a chunk), stored at the chunk's
// end. With checkpoints (CP), the state before step t is saved when t is a multiple of B in
// [lo, hi] (so each checkpoint belongs to one section).
template <int K, int MODE, bool CODES, bool CP, bool STRIPED>
__device__ __forceinline__ void sweep(const Env& env, const Stripe<K>& stripe, int t0, int t1, int lo, int hi,
                                      Lane<K>& st, Best& b, int* cp, int B, int4* ring) {
  constexpr int SROW = (K + 1) * 32;
  Env e = env;  // local copies: the compiler keeps what it needs of them in registers
  Stripe<K> S = stripe;
  const int lane = e.lane;
  const int last = min(e.g.n - 1, hi);
  const int top = max(e.g.n - 1, 0);
  int c = t0 >> 5;
  if (c > 0) ring[((c - 1) & 3) * 32 + lane] = e.g.meta[min(32 * (c - 1) + lane, top)];
  ring[(c & 3) * 32 + lane] = e.g.meta[min(32 * c + lane, top)];
  int4 pend = e.g.meta[min(32 * (c + 1) + lane, top)];
  SA_SYNCWARP();
  Ends<K> x;
  open_ends<K>(x);
  for (; 32 * c < t1; ++c) {
    const int ts = 32 * c;
    if (CP && ts % B == 0 && ts >= lo && ts <= last)
      save_lane<K>(cp + (int64_t)(ts / B) * ((int64_t)(e.g.n_slots + 1) * 2 * SROW + 96), st, e.ws, e.g.n_slots,
                   lane);
    const int te = min(t1, ts + 32);
    for (int t = ts; t < te; ++t) {
      const int v = t - lane;
      int oPH = NEG, oH = NEG, oF = NEG;
      if (v >= lo && v <= last) {
        const int4 mt = ring[v & 127];  // chunk (v >> 5) & 3, row v & 31
        lane_row<K, MODE, CODES, STRIPED>(e, S, mt, v, st, x, oPH, oH, oF);
      }
      st.inPH = SA_SHFL_UP(oPH, 1);
      st.inH = SA_SHFL_UP(oH, 1);
      st.inF = SA_SHFL_UP(oF, 1);
    }
    SA_SYNCWARP();  // the next chunk in, the one after on its way
    ring[((c + 1) & 3) * 32 + lane] = pend;
    pend = e.g.meta[min(32 * (c + 2) + lane, top)];
    SA_SYNCWARP();
  }
  if (!CODES) close_ends<K, MODE>(x, S, lane, b);
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
  __shared__ uint4 tables[WARPS_PER_BLOCK * Columns<K>::WORDS / 4];                                      \
  uint32_t* tbl = (uint32_t*)(tables + (threadIdx.x >> 5) * (Columns<K>::WORDS / 4));

// Work items: `count` = reads x nsec; item i is section i % nsec (rows sec[s] .. sec[s + 1] - 1,
// no predecessor outside) of read order[i / nsec]. ends[i*3 + 0..2] = the section's best end cell
// (score, row, column; row -1: none), reduced per read by graph_best.
template <int K, int MODE, bool CP>
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK) graph_score(GRAPH_ARGS, int* ws_all, int64_t ws_stride, int* border_all, int64_t border_stride,
                            int* cp_all, int64_t cp_stride, int B, int* ends) {
  GRAPH_SETUP
  int* border = border_all + warp * border_stride;
  for (int item = take_item(rs, lane); item < count; item = take_item(rs, lane)) {
    const int k = item / nsec, part = item - k * nsec;
    const int read = order[k];
    const int lo = sec[part], hi = sec[part + 1] - 1;
    const int m = (int)(roff[read + 1] - roff[read]);
    const int stripes = (m + 32 * K - 1) / (32 * K);
    Best b{MODE == LOCAL ? 0 : NEG, -1, -1};
    for (int s = 0; s < stripes; ++s) {
      Stripe<K> S;
      setup_stripe<K, MODE>(e, rs, read, 1 + s * 32 * K, tbl, S);
      // border: H in, F in, H out, F out (swapped per stripe)
      S.hin = border + (int64_t)(s & 1) * 2 * n;
      S.fin = S.hin + n;
      S.hout = border + (int64_t)((s + 1) & 1) * 2 * n;
      S.fout = S.hout + n;
      S.first = s == 0;
      S.more = s + 1 < stripes;
      Lane<K> st;
      clear_lane<K>(st);
      if (stripes == 1)
        sweep<K, MODE, false, CP, false>(e, S, lo & ~31, hi + 32, lo, hi, st, b, cp_all + k * cp_stride, B, ring);
      else
        sweep<K, MODE, false, CP, true>(e, S, lo & ~31, hi + 32, lo, hi, st, b, cp_all + k * cp_stride, B, ring);
    }
    warp_best(b);
    if (lane == 0) {
      ends[item * 3 + 0] = b.s;
      ends[item * 3 + 1] = b.v;
      ends[item * 3 + 2] = b.j;
    }
  }
}

// One thread a read: the best of its sections' end cells, then the mode's empty alignment.
// out[read*4 + 0..2] = score, end base, end column (end base -1: empty alignment).
template <int MODE>
__global__ void graph_best(const int* ends, int nsec, const int64_t* roff, const int* order, int count, int oe, int ge,
                           int* out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int read = order[k];
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

// `count` = reads (one item each). The end row's section bounds the recomputation: a block
// that would start before it starts at the section's first row with a clear state.
template <int K, int MODE>
__global__ void graph_walk(GRAPH_ARGS, int* ws_all, int64_t ws_stride, const int* cp_all, int64_t cp_stride, int B,
                           uint8_t* codes_all, int64_t codes_stride, unsigned short* args_all, int64_t args_stride,
                           const int* out, const int64_t* run_off, uint8_t* run_op, int* run_len,
                           const int64_t* node_off, int* nodes, int* info) {
  GRAPH_SETUP
  constexpr int SROW = (K + 1) * 32;
  const int64_t cprow = (int64_t)(n_slots + 1) * 2 * SROW + 96;
  uint8_t* codes = codes_all + warp * codes_stride;
  unsigned short* argH = args_all + warp * args_stride;
  unsigned short* argE = argH + args_stride / 2;
  e.out = Codes{codes, argH, argE, 0, 0};
  for (int item = take_item(rs, lane); item < count; item = take_item(rs, lane)) {
    const int read = order[item];
    int v = out[read * 4 + 1], j = out[read * 4 + 2];
    Stripe<K> S;
    setup_stripe<K, MODE>(e, rs, read, 1, tbl, S);
    const int m = S.m;
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
    int lo = n + 1, state = 0, first = -1, last_node = -1, runs = 0, cur_op = -1, cur_len = 0;
    int64_t n_nodes = 0;
    Best unused{0, 0, 0};
    while (true) {
      if (v < lo) {  // restore the checkpoint of step b <= v (or start the section), sweep on to row v with codes
        const int b = (v / B) * B;
        Lane<K> st;
        if (b >= slo) {
          load_lane<K>(cp_all + item * cp_stride + (int64_t)(b / B) * cprow, st, e.ws, n_slots, lane);
          lo = b;
        } else {
          clear_lane<K>(st);
          lo = slo & ~31;
        }
        SA_SYNCWARP();
        e.out.lo = max(lo - 31, 0);
        e.out.multi_lo = multi[e.out.lo];
        sweep<K, MODE, true, false, false>(e, S, lo, v + 32, slo, v, st, unused, nullptr, B, ring);
        SA_SYNCWARP();
        __threadfence_block();
      }
      const uint8_t* crow = codes + (int64_t)(v - e.out.lo) * SROW;
      const int cidx = j == 0 ? K * 32 : ((j - 1) % K) * 32 + (j - 1) / K;
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
      // which predecessor the move came from
      const int64_t p0 = pred_off[v];
      const int npred = (int)(pred_off[v + 1] - p0);
      int u;
      const int pidx = col == 0 ? K * 32 : ((col - 1) % K) * 32 + (col - 1) / K;
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
      // runs were written end to start: reverse them
      for (int a = 0, b = runs - 1; a < b; ++a, --b) {
        const uint8_t to = run_op[r0 + a];
        const int tl = run_len[r0 + a];
        run_op[r0 + a] = run_op[r0 + b];
        run_len[r0 + a] = run_len[r0 + b];
        run_op[r0 + b] = to;
        run_len[r0 + b] = tl;
      }
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

#ifdef SA_INSTANTIATE_ALL
// Build checks (nvcc/hipcc -DSA_INSTANTIATE_ALL): every width and mode the backend launches.
#define GRAPH_SCORE_ARGS GRAPH_ARGS, int*, int64_t, int*, int64_t, int*, int64_t, int, int*
#define GRAPH_BEST_ARGS const int*, int, const int64_t*, const int*, int, int, int, int*
#define GRAPH_WALK_ARGS                                                                                     \
  GRAPH_ARGS, int*, int64_t, const int*, int64_t, int, uint8_t*, int64_t, unsigned short*, int64_t, const int*, \
      const int64_t*, uint8_t*, int*, const int64_t*, int*, int*
#define GRAPH_VARIANTS(K, M)                                                 \
  template __global__ void graph_score<K, M, false>(GRAPH_SCORE_ARGS);       \
  template __global__ void graph_score<K, M, true>(GRAPH_SCORE_ARGS);        \
  template __global__ void graph_walk<K, M>(GRAPH_WALK_ARGS);
#define GRAPH_MODES(K) GRAPH_VARIANTS(K, 0) GRAPH_VARIANTS(K, 2) GRAPH_VARIANTS(K, 3)
template __global__ void graph_best<0>(GRAPH_BEST_ARGS);
template __global__ void graph_best<2>(GRAPH_BEST_ARGS);
template __global__ void graph_best<3>(GRAPH_BEST_ARGS);
GRAPH_MODES(1)
GRAPH_MODES(2)
GRAPH_MODES(3)
GRAPH_MODES(4)
GRAPH_MODES(5)
GRAPH_MODES(6)
GRAPH_MODES(8)
GRAPH_MODES(12)
GRAPH_MODES(16)
#endif
