// search.cu: the score pass of a database search. One query against many database records, local mode
// (Smith-Waterman), scores from a substitution matrix, affine gaps (a gap of length k costs gap_open +
// k * gap_extend), score only. The recurrence is the CPU engine's (seqalign_cli/families/pairwise/cpu_dp.py,
// cpu_striped.py), so the scores agree exactly. Two kernels: search_local, the query's rows in registers and
// the record streaming (every record the host routes to it: long ones, int32 lanes), and search_columns
// (further down), the records in registers and the query streaming (16-bit records up to 1,024 residues).
//
// Kernel search_local<G, R, PACK>
//   db          uint8 codes of the database (or of a part of it) on the device, records back to back
//   db_off      int64 (records): where record k starts in db
//   db_len      int32 (records): its length
//   items       int32 (nitems, 2): the records of work item w: PACK, two records in the low and high
//               16-bit halves of every register (-1: none); else one record (the second ignored)
//   profile     int8 (tiles, 32, R): the score of query row t*R + r against code c; rows past the query
//               score PAD_SCORE against every code, as does every row against codes past the alphabet
//               (padding), so no padded cell can pass a real one; tiles is a multiple of G
//   tiles       query tiles of R rows (a multiple of G)
//   gap_oe      gap_open + gap_extend; gap_e: gap_extend
//   border      uint2 scratch (tiles > G only): H and F of a stage's last row at each column, by warp:
//               item w of a warp of IPW = 32 / G items, column j, at border[border_off[w / IPW] + j * IPW
//               + w % IPW] (coalesced: a warp's items side by side)
//   border_off  int64 per warp of items
//   score       int32 (records): the best local score of each record of the items
//
// Thread mapping: a group of G lanes aligns one work item; lane l holds the R rows of query tile
// s * G + l of stage s in registers and sweeps the record's columns, column j at step j + l (an
// anti-diagonal of the group), H and F of its last row going to lane l + 1 by a shuffle of width G;
// lane 0 reads row 0 (stage 0) or the border row the stage above left. Every group of a warp steps
// through the warp's longest item (its shuffles take every lane), computing columns of padding before
// and past its own (stage: they leave the item's best as it is), so that the loop has no branch around the
// column. G = 1: a thread alone over the whole matrix, tile after tile, for the many short records; G = 8 or
// 32 for long ones, so that their cells spread over lanes. PACK: 16-bit lanes (DPX instructions on Hopper),
// where the host has checked that no value of either record passes INT16 bounds; else int32 lanes.
#include "common.cuh"

using namespace sa;

namespace {

// codes a profile row holds (the protein alphabet's 27 and padding)
constexpr int PROFILE_CODES = 32;
// the border's layout unit: 32 lanes' items side by side (LAYOUT / G items), as the host lays it out
constexpr int LAYOUT = 32;

template <bool B, class T, class F>
struct pick { using type = T; };
template <class T, class F>
struct pick<false, T, F> { using type = F; };

// Cells of two records in 16-bit halves.
struct Pack16 {
  using V = uint32_t;
  __device__ static V splat(int x) { return pk16(x, x); }
  __device__ static V neg() { return pk16(NEG16, NEG16); }
  __device__ static V add_max(V a, V b, V c) { return add_max16(a, b, c); }  // max(a + b, c)
  __device__ static V add(V a, V b) { return add_max16(a, b, neg()); }
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900)
  __device__ static V add_max_relu(V a, V b, V c) { return max16_relu(add16(a, b), c); }
#else
  __device__ static V add_max_relu(V a, V b, V c) { return __viaddmax_s16x2_relu(a, b, c); }  // max(a + b, c, 0)
#endif
  __device__ static V vmax(V a, V b) { return max16(a, b); }
  __device__ static V vmax3(V a, V b, V c) { return max3_16(a, b, c); }
  __device__ static V vmax3_relu(V a, V b, V c) { return max3_16_relu(a, b, c); }  // max(a, b, c, 0)
  // the score of profile byte k (0..3) of words a (low record) and b (high record)
  template <int K>
  __device__ static V score(uint32_t a, uint32_t b) { return byte_perm(a, b, profile_selector16(K, K)); }
};

// Cells of one record in int32 lanes.
struct Wide32 {
  using V = int;
  __device__ static V splat(int x) { return x; }
  __device__ static V neg() { return NEG; }
  __device__ static V add_max(V a, V b, V c) { return max(a + b, c); }
  __device__ static V add(V a, V b) { return a + b; }
  __device__ static V add_max_relu(V a, V b, V c) { return max(max(a + b, c), 0); }
  __device__ static V vmax(V a, V b) { return max(a, b); }
  __device__ static V vmax3(V a, V b, V c) { return max3(a, b, c); }
  template <int K>
  __device__ static V score(uint32_t a, uint32_t) { return profile_score(a, 0u, profile_selector(K)); }
};

// What a lane's sweep of one stage needs, fixed for the work item.
struct Item {
  const uint8_t* a;  // codes of the low (or only) record
  const uint8_t* b;  // of the high record (PACK), or null
  int len_a, len_b, n;  // lengths; n: the item's columns (the longer)
  int sweep;            // columns every group of the warp steps through: the warp's largest n (the groups'
                        // shuffles take every lane of the warp, so no group may leave its loop early)
};

// The code of column j of a record of length len: padding before its start (j < 0) and past its end.
__device__ __forceinline__ uint32_t code_at(const uint8_t* s, int len, int j) {
  return (s != nullptr && (unsigned)j < (unsigned)len) ? (uint32_t)s[j] : (uint32_t)(PROFILE_CODES - 1);
}

// One column of a lane's R rows: in hdiag = H[i0-1][j-1], f/hgup = F and H - gap_oe of row i0-1 at j;
// out f = F of the last row at j. hl/hg/el: H, H - gap_oe and E of each row at column j-1 in, j out.
template <class C, int R, bool PACK>
__device__ __forceinline__ void column(const uint32_t (&pa)[R / 4], const uint32_t (&pb)[R / 4],
                                       typename C::V (&hl)[R], typename C::V (&hg)[R], typename C::V (&el)[R],
                                       typename C::V hdiag, typename C::V hgup, typename C::V& f,
                                       typename C::V& best, typename C::V nge, typename C::V ngoe) {
  using V = typename C::V;
#pragma unroll
  for (int r = 0; r < R; r += 2) {
    V h2[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int q = r + k;
      V s;
      switch (q % 4) {  // a constant once unrolled
        case 0: s = C::template score<0>(pa[q / 4], pb[q / 4]); break;
        case 1: s = C::template score<1>(pa[q / 4], pb[q / 4]); break;
        case 2: s = C::template score<2>(pa[q / 4], pb[q / 4]); break;
        default: s = C::template score<3>(pa[q / 4], pb[q / 4]); break;
      }
      const V e = C::add_max(el[q], nge, hg[q]);  // max(E - gap_e, H_left - gap_oe)
      f = C::add_max(f, nge, hgup);               // max(F_up - gap_e, H_up - gap_oe)
      const V h = C::vmax(C::add_max_relu(hdiag, s, e), f);
      hdiag = hl[q];
      hl[q] = h;
      el[q] = e;
      hgup = C::add(h, ngoe);
      hg[q] = hgup;
      h2[k] = h;
    }
    best = C::vmax3(best, h2[0], h2[1]);
  }
}

// R bytes of a profile row as R/4 words: row code of the lane's tile (prow: the tile's first row, as uint4).
template <int R>
__device__ __forceinline__ void profile_words(const uint4* prow, uint32_t code, uint32_t (&w)[R / 4]) {
  const uint4* p = prow + code * (R / 16);
#pragma unroll
  for (int k = 0; k < R / 16; ++k) {
    const uint4 v = __ldg(p + k);
    w[4 * k] = v.x; w[4 * k + 1] = v.y; w[4 * k + 2] = v.z; w[4 * k + 3] = v.w;
  }
}

// One stage of a group: lane l sweeps tile s * G + l over every column of the item.
template <int G, int R, bool PACK, class C>
__device__ void stage(const Item& it, const int8_t* profile, int s, int tiles, int lane, uint2* border,
                      typename C::V nge, typename C::V ngoe, typename C::V& best) {
  using V = typename C::V;
  const int tile = s * G + lane;
  const bool first = (s == 0), last = (s + 1) * G >= tiles;
  V hl[R], hg[R], el[R];
#pragma unroll
  for (int r = 0; r < R; ++r) { hl[r] = C::splat(0); hg[r] = ngoe; el[r] = C::neg(); }
  V hdiag = C::splat(0);     // H[i0-1][j-1]: column 0 is 0 in local mode
  V hbot = C::splat(0), fbot = C::neg();  // this lane's last row at its last column
  const int steps = it.sweep + G - 1;
  const uint4* prow = (const uint4*)(profile + (size_t)tile * PROFILE_CODES * R);
  uint32_t pa[R / 4], pb[R / 4];
  // Every lane computes every step, columns outside the item included (no branch around the column, whose
  // loop-carried registers then stay in place): before its start (j < 0) a column of padding leaves H = 0,
  // E and F at most -gap_oe in every row (local mode), so the first real column finds what it would find
  // at the start; past the end padding cells stay below the real cells they come from, so the best is kept.
  // Only the border's memory is read and written within the item. Unrolled by 4 (the loop-carried registers
  // rotate in place): 3 % faster than by 2 and 21 % faster than the branch around the column on an H100
  // (benchmarks/decisions/search_loop.md).
#pragma unroll 4
  for (int step = 0; step < steps; ++step) {
    const int j = step - lane;
    const bool in = (unsigned)j < (unsigned)it.n;
    // the row above: the previous lane's last row at column j (it swept it one step ago)
    V hup = C::splat(0), fup = C::neg();
    if constexpr (G > 1) {
      hup = (V)SA_SHFL_UP_W(hbot, 1, G);
      fup = (V)SA_SHFL_UP_W(fbot, 1, G);
    }
    if (lane == 0) {
      hup = C::splat(0);
      fup = C::neg();
      if (!first && border != nullptr && in) {
        const uint2 v = border[(size_t)j * (LAYOUT / G)];
        hup = (V)v.x;
        fup = (V)v.y;
      }
    }
    profile_words<R>(prow, code_at(it.a, it.len_a, j), pa);
    if (PACK) profile_words<R>(prow, code_at(it.b, it.len_b, j), pb);
    V f = fup;
    column<C, R, PACK>(pa, pb, hl, hg, el, hdiag, C::add(hup, ngoe), f, best, nge, ngoe);
    hdiag = hup;
    hbot = hl[R - 1];
    fbot = f;
    if (lane == G - 1 && !last && border != nullptr && in)
      border[(size_t)j * (LAYOUT / G)] = make_uint2((uint32_t)hbot, (uint32_t)fbot);
  }
}

template <int G, int R, bool PACK>
__device__ void search_item(const uint8_t* db, const int64_t* db_off, const int* db_len, const int* items,
                            int nitems, const int8_t* profile, int tiles, int gap_oe, int gap_e, uint2* border,
                            const int64_t* border_off, int* score) {
  using C = typename pick<PACK, Pack16, Wide32>::type;
  using V = typename C::V;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = (int)(tid % G);
  long long w = tid / G;
  const bool real = w < nitems;
  if (!real) w = nitems - 1;  // the group's lanes still take part in the shuffles
  const int ra = items[2 * w], rb = PACK ? items[2 * w + 1] : -1;
  Item it;
  it.a = db + db_off[ra];
  it.len_a = db_len[ra];
  it.b = rb >= 0 ? db + db_off[rb] : nullptr;
  it.len_b = rb >= 0 ? db_len[rb] : 0;
  it.n = max(it.len_a, it.len_b);
  it.sweep = G > 1 ? warp_max(it.n) : it.n;
  constexpr int IPW = LAYOUT / G;
  // a group past the last item runs the last item's sweep for the shuffles' sake, without the border
  uint2* mine = (tiles > G && real) ? border + border_off[w / IPW] + w % IPW : nullptr;
  const V nge = C::splat(-gap_e), ngoe = C::splat(-gap_oe);
  V best = C::splat(0);
  for (int s = 0; s * G < tiles; ++s) stage<G, R, PACK, C>(it, profile, s, tiles, lane, mine, nge, ngoe, best);
  if constexpr (G > 1) {
#pragma unroll
    for (int off = G / 2; off > 0; off /= 2) best = C::vmax(best, (V)SA_SHFL_XOR(best, off));
  }
  if (!real || lane != 0) return;
  if (PACK) {
    score[ra] = lo16((uint32_t)best);
    if (rb >= 0) score[rb] = hi16((uint32_t)best);
  } else {
    score[ra] = (int)best;
  }
}

// ---- Kernel search_columns<G, C>: the records in registers, the query streaming through the lanes ----
//
// A group of G lanes aligns one work item, two records in the 16-bit halves of every register (the host
// sends only records of at most G * C residues whose values fit 16 bits): lane l holds columns l*C ..
// l*C + C - 1 of both records, as the index of their score pair (ca * D + cb, class codes), and sweeps the
// query's rows, row i at step i + l (an anti-diagonal of the group); H of its last column and E of the column
// after it go to lane l + 1 by a shuffle of width G. A row's scores come from the packed table in shared
// memory: table[(q * D + ca) * D + cb] holds the query class q's score against ca (low half) and cb (high
// half), one load a cell pair and no byte permute. Every group of a warp runs the query's rows (qlen + G - 1
// steps), so no group waits for another; rows before and past the query and columns past a record are padding
// (class D - 1, PAD_SCORE against every class), which leave the best as it is (the argument of stage, rows and
// columns exchanged).
//
//   db, db_off, db_len, items, nitems, score  as search_local's (items: pairs, the second -1 for none)
//   query       uint8 (qlen): the query's class codes
//   table       uint32 (D * D * D): the packed score pairs, copied to the block's dynamic shared memory
//   lut         uint8 (PROFILE_CODES): the class of each database code (letters the matrix scores alike share
//               one)
//   D           classes, the padding class last (the host passes D^3 * 4 bytes of dynamic shared memory)
//   gap_oe, gap_e  as search_local's
template <int G, int C>
__device__ void columns_item(const uint8_t* db, const int64_t* db_off, const int* db_len, const int* items,
                             int nitems, const uint8_t* query, int qlen, const uint32_t* table, const uint8_t* lut,
                             int D, int gap_oe, int gap_e, int* score) {
  using P = Pack16;
  using V = P::V;
  extern __shared__ uint32_t pairs[];
  for (int k = threadIdx.x; k < D * D * D; k += blockDim.x) pairs[k] = table[k];
  __syncthreads();
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = (int)(tid % G);
  long long w = tid / G;
  if ((tid / SA_WARP) * (SA_WARP / G) >= nitems) return;  // the whole warp is idle
  const bool real = w < nitems;
  if (!real) w = nitems - 1;  // the group's lanes still take part in the shuffles
  const int ra = items[2 * w], rb = items[2 * w + 1];
  const uint8_t* a = db + db_off[ra];
  const uint8_t* b = rb >= 0 ? db + db_off[rb] : nullptr;
  const int len_a = db_len[ra], len_b = rb >= 0 ? db_len[rb] : 0;
  const uint32_t pad = (uint32_t)(D - 1);
  uint32_t cell[C];  // byte offset of each column's pair of classes in a table row
  V h[C], f[C];      // H of the row above at each column, F of this row
  const V nge = P::splat(-gap_e), ngoe = P::splat(-gap_oe);
#pragma unroll
  for (int k = 0; k < C; ++k) {
    const int j = lane * C + k;
    const uint32_t ca = j < len_a ? (uint32_t)__ldg(lut + a[j]) : pad;
    const uint32_t cb = (b != nullptr && j < len_b) ? (uint32_t)__ldg(lut + b[j]) : pad;
    cell[k] = (ca * D + cb) * 4u;
    h[k] = P::splat(0);  // row -1: 0 in local mode
    f[k] = ngoe;         // F of row 0: H of row -1 minus gap_oe
  }
  V best = P::splat(0);
  V hdiag0 = P::splat(0);  // H[i-1][l*C - 1]
  // H of this lane's last column at its row, and E of the next column (the next lane's first)
  V hout = P::splat(0), eout = ngoe;
  const char* base = (const char*)pairs;
  const int steps = qlen + G - 1;
#pragma unroll 2
  for (int step = 0; step < steps; ++step) {
    const int i = step - lane;
    // the column on the left: the previous lane's last column at row i (it swept it one step ago)
    V hin = (V)SA_SHFL_UP_W(hout, 1, G), e = (V)SA_SHFL_UP_W(eout, 1, G);
    if (lane == 0) {  // column -1: H = 0 (local), so column 0's E is -gap_oe
      hin = P::splat(0);
      e = ngoe;
    }
    const uint32_t q = (unsigned)i < (unsigned)qlen ? (uint32_t)__ldg(query + i) : pad;
    const char* row = base + q * (uint32_t)(D * D * 4);
    V hdiag = hdiag0;
    hdiag0 = hin;
#pragma unroll
    for (int k = 0; k < C; k += 2) {
      V hh[2];
#pragma unroll
      for (int x = 0; x < 2; ++x) {
        const V s = *(const uint32_t*)(row + cell[k + x]);
        // H = max(H_diag + s, E, F, 0), the add off the chain: along the row E -> H -> H - gap_oe -> E
        const V hv = P::vmax3_relu(P::add(hdiag, s), e, f[k + x]);
        hdiag = h[k + x];
        h[k + x] = hv;
        const V hg = P::add(hv, ngoe);
        e = P::add_max(e, nge, hg);                // E of the next column: max(E - gap_e, H - gap_oe)
        f[k + x] = P::add_max(f[k + x], nge, hg);  // F of the next row
        hh[x] = hv;
      }
      best = P::vmax3(best, hh[0], hh[1]);
    }
    hout = h[C - 1];
    eout = e;
  }
#pragma unroll
  for (int off = G / 2; off > 0; off /= 2) best = P::vmax(best, (V)SA_SHFL_XOR(best, off));
  if (!real || lane != 0) return;
  score[ra] = lo16((uint32_t)best);
  if (rb >= 0) score[rb] = hi16((uint32_t)best);
}

}  // namespace

template <int G, int R, bool PACK>
__global__ void search_local(const uint8_t* db, const int64_t* db_off, const int* db_len, const int* items,
                             int nitems, const int8_t* profile, int tiles, int gap_oe, int gap_e, uint2* border,
                             const int64_t* border_off, int* score) {
  search_item<G, R, PACK>(db, db_off, db_len, items, nitems, profile, tiles, gap_oe, gap_e, border, border_off,
                          score);
}

// Blocks of SA_COLUMN_THREADS (the host's gpu_columns.THREADS), two a multiprocessor: 16 warps where the
// table's copy in shared memory would allow 12 with blocks of SA_THREADS (benchmarks/decisions/search_columns.md)
#define SA_COLUMN_THREADS (2 * SA_THREADS)

template <int G, int C>
__global__ void __launch_bounds__(SA_COLUMN_THREADS, 2)
    search_columns(const uint8_t* db, const int64_t* db_off, const int* db_len, const int* items, int nitems,
                   const uint8_t* query, int qlen, const uint32_t* table, const uint8_t* lut, int D, int gap_oe,
                   int gap_e, int* score) {
  columns_item<G, C>(db, db_off, db_len, items, nitems, query, qlen, table, lut, D, gap_oe, gap_e, score);
}
