// graph.cu: reads against a DAG (the graph family), exact affine DP, score and traceback.
//
// The recurrence and tie rules are the CPU engine's (seqalign_cli/backends/cpu/graph_dp.py,
// README "Graphs"): rows are the graph's bases in topological order, columns the read
// prefix lengths 0..m; a row takes its predecessors' rows merged column by column (the
// virtual start row S first, then the predecessors in ascending order, a later one only
// when strictly better); H = max(D, F, E) with ties in that order; local mode floors at 0.
//
// Thread mapping: one warp per read, persistent warps taking reads from a counter. Lane l
// holds the K columns c0 + l*K .. c0 + l*K + K - 1 of the current stripe in registers
// (c0 = 1 + stripe*32*K); the warp walks the graph's rows in topological order with no
// block-wide barrier: the diagonal needs one shuffle, the in-row gap (F) is a warp
// prefix maximum of X[i] + i*ge (X = max(D, E)), five shuffles. The row just before is
// kept in registers; rows a later node start reads are kept in slots (per-warp scratch,
// `Graph.slot`), read back coalesced. Reads longer than 32*K columns run in stripes; a
// stripe leaves, per row, its last column's H and the running prefix maximum for the next
// stripe (`border`: two H columns swapped per stripe, one carry column; 3n ints a warp).
//
// Layouts (int32): a slot row is 2*SROW ints, SROW = (K+1)*32: H[k*32 + lane] for the K
// columns of each lane, then at k = K, lane 0, column 0; then E the same way.
// Checkpoints (traceback): every B rows the forward kernel copies the row before and all
// slots ((n_slots + 1) * 2*SROW ints) to `cp`, per read. Direction bytes (walk kernel):
// one per cell, row-major, (K+1)*32 bytes a row in the slot layout; rows with several
// predecessors also keep, per cell, which predecessor gave PH and PE (uint16, 0xFFFF = S).
//
// Kernels:
//  graph_score<K, MODE, CP>(graph..., reads..., scoring, ws, ws_stride, border,
//      border_stride, cp, cp_stride, B, out): out[item*4 + 0..2] = score, end base, end column
//      (end base -1: empty alignment).
//  graph_walk<K, MODE>(graph..., reads..., scoring, ws, ws_stride, cp, cp_stride, B, codes,
//      codes_stride, args, args_stride, out, run_off, run_op, run_len, node_off, nodes, info):
//      recomputes one block of rows at a time from its checkpoint with direction bytes and
//      walks it (every lane walks, lane 0 writes): runs into the RunStore slots of the read,
//      the path's nodes into nodes[node_off[read]..node_off[read + 1]), info[read*4 + 0..3] =
//      read start, first base, runs, path nodes (more than the room: not written; the host aligns
//      that read again).
#include "common.cuh"

namespace sa {
namespace graph {

constexpr unsigned short FROM_S = 0xFFFF;
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

// The per-row record (`meta`), one 16-byte load the sweep issues a row ahead:
// x = first predecessor entry; y = predecessors (bits 0-15) | base code << 16 |
// flags << 20 | (the lone predecessor is the row just before) << 22; z = the row's
// slot (-1: none); w = the lone predecessor's slot (-1: none or the row before).
__device__ __forceinline__ int meta_npred(const int4& t) { return t.y & 0xffff; }
__device__ __forceinline__ int meta_code(const int4& t) { return (t.y >> 16) & 15; }
__device__ __forceinline__ int meta_flags(const int4& t) { return (t.y >> 20) & 3; }

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

__device__ __forceinline__ bool better(int s, int v, int j, int bs, int bv, int bj) {
  return s > bs || (s == bs && (v < bv || (v == bv && j < bj)));
}

// The state of one warp's sweep over the rows: registers of the row before, per lane.
template <int K>
struct Row {
  int H[K], E[K];
  int h0, e0;  // column 0 (stripe 0) or the boundary column (later stripes: unused)
};

template <int K>
__device__ __forceinline__ void save_row(int* dst, const Row<K>& r, int lane) {
  constexpr int SROW = (K + 1) * 32;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    dst[k * 32 + lane] = r.H[k];
    dst[SROW + k * 32 + lane] = r.E[k];
  }
  if (lane == 0) {
    dst[K * 32] = r.h0;
    dst[SROW + K * 32] = r.e0;
  }
}

template <int K>
__device__ __forceinline__ void load_row(const int* src, Row<K>& r, int lane) {
  constexpr int SROW = (K + 1) * 32;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    r.H[k] = src[k * 32 + lane];
    r.E[k] = src[SROW + k * 32 + lane];
  }
  r.h0 = src[K * 32];
  r.e0 = src[SROW + K * 32];
}

__device__ __forceinline__ void warp_copy(int* dst, const int* src, int64_t count, int lane) {
  for (int64_t i = lane; i < count; i += 32) dst[i] = src[i];
}

// Where the sweep writes direction bytes (walk kernel only).
struct Codes {
  uint8_t* code;             // rows lo.. of the block, (K+1)*32 bytes a row
  unsigned short* argH;      // rows with several predecessors, (K+1)*32 a row
  unsigned short* argE;
  int64_t multi_lo;          // multi[lo]
  int lo;
};

// One row v of one stripe. `prev` is the row v-1 (updated to row v on return); `ws` the
// warp's slots; `bin`/`bout`/`carry` the stripe borders (stripe > 0 or more stripes follow).
template <int K, int MODE, bool CODES>
__device__ __forceinline__ void sweep_row(const Graph& g, const int4 mt, int v, int c0, int m, const int (&rd)[K],
                                          const Scoring& sc, int oe, int ge, Row<K>& prev, int* ws,
                                          const int* bin, int* bout, int* carry, bool first_stripe,
                                          bool more, const Codes& out, int lane, int& bs, int& bv, int& bj) {
  constexpr int SROW = (K + 1) * 32;
  const int p0 = mt.x;
  const int npred = meta_npred(mt);
  const bool use_s = MODE != GLOBAL || (meta_flags(mt) & 1);
  const int gv = meta_code(mt);
  int PH[K], PE[K];
  unsigned aS = 0;  // bit k: S gave PH at column k (rows of at most one real predecessor)
  unsigned short aH[K + 1], aE[K + 1];
  int bh, be;  // merged boundary column c0 - 1 (column 0 on the first stripe)
#pragma unroll
  for (int k = 0; k < K; ++k) {
    PH[k] = use_s ? start_h<MODE>(c0 + lane * K + k, oe, ge) : NEG;
    PE[k] = NEG;
    if (CODES) aH[k] = aE[k] = FROM_S;
  }
  bh = use_s ? start_h<MODE>(c0 - 1, oe, ge) : NEG;
  be = NEG;
  if (CODES) aH[K] = aE[K] = FROM_S;
  bool bS = true;  // S gave the boundary PH
  for (int p = 0; p < npred; ++p) {
    const int es = npred == 1 ? mt.w : g.eslot[p0 + p];
    int hu[K], eu[K], hb, eb;
    if (es < 0) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        hu[k] = prev.H[k];
        eu[k] = prev.E[k];
      }
      hb = prev.h0;
      eb = prev.e0;
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
    if (!first_stripe) {
      hb = bin[g.pred[p0 + p]];
      eb = NEG;
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
  // column c0 - 1: on the first stripe column 0 itself (H = E, floored in local mode)
  int h0 = NEG, e0 = NEG, cin;
  if (first_stripe) {
    e0 = max(bh - oe, be - ge);
    h0 = (MODE == LOCAL && e0 <= 0) ? 0 : e0;
    cin = h0;  // X[0] + 0 * ge
  } else {
    cin = carry[v];
  }
  // E, D, X = max(D, E) (floored), Y = X + j*ge
  int E[K], X[K], D[K];
  const int left = SA_SHFL_UP(PH[K - 1], 1);
  int ymax = NEG;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = c0 + lane * K + k;
    E[k] = max(PH[k] - oe, PE[k] - ge);
    const int ph = k ? PH[k - 1] : (lane ? left : bh);
    D[k] = ph + subst_of(sc, gv, rd[k]);
    int x = max(D[k], E[k]);
    if (MODE == LOCAL) x = max(x, 0);
    X[k] = x;
    ymax = max(ymax, x + j * ge);
  }
  // warp prefix maximum of Y (inclusive), then exclusive with the carry from the left
  int incl = ymax;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int o = SA_SHFL_UP(incl, d);
    if (lane >= d) incl = max(incl, o);
  }
  int pm = SA_SHFL_UP(incl, 1);
  pm = lane ? max(pm, cin) : cin;
  int H[K], F[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = c0 + lane * K + k;
    F[k] = pm - oe - (j - 1) * ge;
    pm = max(pm, X[k] + j * ge);
    H[k] = max(X[k], F[k]);
  }
  if (CODES) {
    // direction bytes exactly as the CPU engine writes them
    const int hl = SA_SHFL_UP(H[K - 1], 1), fl = SA_SHFL_UP(F[K - 1], 1);
    const bool multi = npred >= 2;
    uint8_t* crow = out.code + (int64_t)(v - out.lo) * SROW;
    const int64_t mi = g.multi[v] - out.multi_lo;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int hp = k ? H[k - 1] : (lane ? hl : h0);
      const int fp = k ? F[k - 1] : (lane ? fl : NEG);
      int h = D[k], src = DIAG;
      if (F[k] > h) { h = F[k]; src = INS; }
      if (E[k] > h) { h = E[k]; src = DEL; }
      if (MODE == LOCAL && h <= 0) src = START;
      const bool s_won = use_s && !((aS >> k) & 1);
      const uint8_t c = (uint8_t)(src | ((PE[k] - ge > PH[k] - oe) << 2) | ((fp - ge > hp - oe) << 3) |
                                  ((multi ? 0 : (int)s_won) << 4));
      crow[k * 32 + lane] = c;
      if (multi) {
        out.argH[mi * SROW + k * 32 + lane] = aH[k];
        out.argE[mi * SROW + k * 32 + lane] = aE[k];
      }
    }
    if (lane == 0) {
      const int src0 = (MODE == LOCAL && e0 <= 0) ? START : DEL;
      const bool s0 = use_s && bS;
      crow[K * 32] = (uint8_t)(src0 | ((be - ge > bh - oe) << 2) | ((multi ? 0 : (int)s0) << 4));
      if (multi) {
        out.argH[mi * SROW + K * 32] = aH[K];
        out.argE[mi * SROW + K * 32] = aE[K];
      }
    }
  }
  // slots, borders, the row before
  if (mt.z >= 0) {
    int* dst = ws + (int64_t)mt.z * 2 * SROW;
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
  if (more) {
    const int total = max(SA_SHFL(incl, 31), cin);
    if (lane == 31) {
      bout[v] = H[K - 1];
      carry[v] = total;
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    prev.H[k] = H[k];
    prev.E[k] = E[k];
  }
  prev.h0 = h0;
  prev.e0 = e0;
  // end cells
  if (MODE == LOCAL) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = c0 + lane * K + k;
      if (j <= m && better(H[k], v, j, bs, bv, bj)) {
        bs = H[k];
        bv = v;
        bj = j;
      }
    }
  } else if (MODE == GLOCAL || (meta_flags(mt) & 2)) {
    const int jm = m - c0;  // column m's place in this stripe
    if (jm >= 0 && jm < 32 * K && lane == jm / K) {
#pragma unroll
      for (int k = 0; k < K; ++k)
        if (k == jm % K && better(H[k], v, m, bs, bv, bj)) {
          bs = H[k];
          bv = v;
          bj = m;
        }
    }
  }
}

// The warp's best end cell (every lane ends with it).
__device__ __forceinline__ void warp_best(int& bs, int& bv, int& bj) {
#pragma unroll
  for (int d = 16; d; d >>= 1) {
    const int s = SA_SHFL_XOR(bs, d), v = SA_SHFL_XOR(bv, d), j = SA_SHFL_XOR(bj, d);
    if (better(s, v, j, bs, bv, bj)) {
      bs = s;
      bv = v;
      bj = j;
    }
  }
}

template <int K>
__device__ __forceinline__ void load_read(const Reads& r, int read, int c0, int lane, int (&rd)[K], int& m) {
  const int64_t o = r.off[read];
  m = (int)(r.off[read + 1] - o);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int j = c0 + lane * K + k;
    rd[k] = j <= m ? r.code[o + j - 1] : 4;
  }
}

template <int K>
__device__ __forceinline__ void clear_row(Row<K>& r) {
#pragma unroll
  for (int k = 0; k < K; ++k) r.H[k] = r.E[k] = NEG;
  r.h0 = r.e0 = NEG;
}

__device__ __forceinline__ int take_item(const Reads& r, int lane) {
  int item = 0;
  if (lane == 0) item = atomicAdd(r.next, 1);
  return SA_SHFL(item, 0);
}

}  // namespace graph
}  // namespace sa

using namespace sa;
using namespace sa::graph;

#define GRAPH_ARGS                                                                                          \
  const uint8_t *gcode, const int64_t *pred_off, const int *pred, const int *slot, const uint8_t *flags,   \
      const int *gnode, const int64_t *multi, const int4 *meta, const int *eslot, int n, int n_slots, const uint8_t *rcode, const int64_t *roff, const int *order, \
      int nreads, int *next, int match, int mismatch, int gap_open, int gap_extend, int n_penalty

#define GRAPH_SETUP                                                                            \
  const Graph g{gcode, pred_off, pred, slot, flags, gnode, multi, meta, eslot, n, n_slots};                        \
  const Reads rs{rcode, roff, order, nreads, next};                                            \
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};                          \
  const int oe = gap_open + gap_extend, ge = gap_extend;                                       \
  const int lane = threadIdx.x & 31;                                                           \
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;

template <int K, int MODE, bool CP>
__global__ void graph_score(GRAPH_ARGS, int* ws_all, int64_t ws_stride, int* border_all, int64_t border_stride,
                            int* cp_all, int64_t cp_stride, int B, int* out) {
  GRAPH_SETUP
  constexpr int SROW = (K + 1) * 32;
  int* ws = ws_all + warp * ws_stride;
  int* border = border_all + warp * border_stride;
  const Codes none{nullptr, nullptr, nullptr, 0, 0};
  for (int item = take_item(rs, lane); item < nreads; item = take_item(rs, lane)) {
    const int read = order[item];
    const int m = (int)(roff[read + 1] - roff[read]);
    const int stripes = (m + 32 * K - 1) / (32 * K);
    int bs = NEG, bv = -1, bj = -1;
    if (MODE == LOCAL) bs = 0;
    for (int s = 0; s < stripes; ++s) {
      const int c0 = 1 + s * 32 * K;
      int rd[K], mm;
      load_read<K>(rs, read, c0, lane, rd, mm);
      Row<K> prev;
      clear_row<K>(prev);
      const int* bin = border + (int64_t)(s & 1) * n;
      int* bout = border + (int64_t)((s + 1) & 1) * n;
      int* carry = border + 2 * (int64_t)n;
      int4 mt = meta[0];
      for (int v = 0; v < n; ++v) {
        const int4 nx = meta[v + 1 < n ? v + 1 : v];  // a row ahead
        if (CP && v % B == 0) {
          int* dst = cp_all + item * cp_stride + (int64_t)(v / B) * (n_slots + 1) * 2 * SROW;
          save_row<K>(dst, prev, lane);
          warp_copy(dst + 2 * SROW, ws, (int64_t)n_slots * 2 * SROW, lane);
        }
        sweep_row<K, MODE, false>(g, mt, v, c0, m, rd, sc, oe, ge, prev, ws, bin, bout, carry, s == 0,
                                  s + 1 < stripes, none, lane, bs, bv, bj);
        mt = nx;
      }
    }
    warp_best(bs, bv, bj);
    if (MODE == GLOCAL && start_h<MODE>(m, oe, ge) > bs) {  // the read all inserted, no path
      bs = start_h<MODE>(m, oe, ge);
      bv = -1;
    }
    if (MODE == LOCAL && bs <= 0) {
      bs = 0;
      bv = -1;
    }
    if (lane == 0) {
      out[read * 4 + 0] = bs;
      out[read * 4 + 1] = bv;
      out[read * 4 + 2] = bv >= 0 ? bj : (MODE == LOCAL ? 0 : m);
    }
  }
}

template <int K, int MODE>
__global__ void graph_walk(GRAPH_ARGS, int* ws_all, int64_t ws_stride, const int* cp_all, int64_t cp_stride, int B,
                           uint8_t* codes_all, int64_t codes_stride, unsigned short* args_all, int64_t args_stride,
                           const int* out, const int64_t* run_off, uint8_t* run_op, int* run_len,
                           const int64_t* node_off, int* nodes, int* info) {
  GRAPH_SETUP
  constexpr int SROW = (K + 1) * 32;
  int* ws = ws_all + warp * ws_stride;
  uint8_t* codes = codes_all + warp * codes_stride;
  unsigned short* argH = args_all + warp * args_stride;
  unsigned short* argE = argH + args_stride / 2;
  for (int item = take_item(rs, lane); item < nreads; item = take_item(rs, lane)) {
    const int read = order[item];
    int v = out[read * 4 + 1], j = out[read * 4 + 2];
    int m, rd[K];
    load_read<K>(rs, read, 1, lane, rd, m);
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
    int lo = n + 1, state = 0, first = -1, last_node = -1, runs = 0, cur_op = -1, cur_len = 0;
    int64_t n_nodes = 0;
    int ds = 0, dv = 0, dj = 0;  // unused end tracking of the recomputation
    Codes cd{codes, argH, argE, 0, 0};
    while (true) {
      if (v < lo) {  // recompute v's block from its checkpoint, with direction bytes
        lo = (v / B) * B;
        const int* src = cp_all + item * cp_stride + (int64_t)(v / B) * (n_slots + 1) * 2 * SROW;
        Row<K> prev;
        load_row<K>(src, prev, lane);
        warp_copy(ws, src + 2 * SROW, (int64_t)n_slots * 2 * SROW, lane);
        SA_SYNCWARP();
        cd.lo = lo;
        cd.multi_lo = multi[lo];
        int4 mt = meta[lo];
        for (int w = lo; w <= v; ++w) {
          const int4 nx = meta[w + 1 <= v ? w + 1 : w];
          sweep_row<K, MODE, true>(g, mt, w, 1, m, rd, sc, oe, ge, prev, ws, nullptr, nullptr, nullptr, true, false,
                                   cd, lane, ds, dv, dj);
          mt = nx;
        }
        SA_SYNCWARP();
        __threadfence_block();
      }
      const int cidx = j == 0 ? K * 32 : ((j - 1) % K) * 32 + (j - 1) / K;
      const uint8_t c = codes[(int64_t)(v - lo) * SROW + cidx];
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
          const int64_t o = roff[read];
          const int rb = rcode[o + j - 1];
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
        const int64_t mi = multi[v] - multi[lo];
        const unsigned short k = use_h ? argH[mi * SROW + pidx] : argE[mi * SROW + pidx];
        u = k == FROM_S ? -1 : pred[p0 + k];
      } else if (npred == 0) {
        u = -1;
      } else {
        const uint8_t cs = codes[(int64_t)(v - lo) * SROW + pidx];
        u = (use_h && ((cs >> 4) & 1)) ? -1 : pred[p0];
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
