// traceback.cuh: the CIGAR walk shared by the pairwise kernels.
//
// Two layouts of direction codes. Both describe a group of G lanes owning
// R query rows each (a stage of G*R rows): k = (i-1) / (G*R) is the stage
// of cell (i, j), lane and r the lane and register of row i inside it,
// s = j + lane - 1 the step, W = ceil(R / 8) the words a lane writes per
// step (word w holds rows 8w .. 8w+7).
//
// Nibbles (the int32 kernels): the code of cell (i, j) is nibble r % 8 of
// word ((k * (n + G - 1) + s) * W + r / 8) * G + lane. Bits 0-1: source of
// H (0 diagonal, 1 I, 2 D, 3 stop, local mode); bit 2: D extends; bit 3:
// I extends.
//
// Planes (the 16-bit kernels): the steps of a lane come in chunks of 8
// words, so that a walk along a lane's rows reads one 32-byte piece for
// 8 columns: cell (i, j) is in word
//     ((((k * S8 + s / 8) * W + r / 8) * G + lane) * 8 + s % 8,
// S8 = ceil((n + G - 1) / 8), bit r % 8 of byte c: c = 0 not diagonal,
// 1 D rather than I, 2 D extends, 3 I extends. There is no stop bit: in
// local mode the walk keeps the value of its cell and stops where it is 0.
//
// walk_back: one thread per pair walks from the end cell to the start,
// writes the CIGAR as runs (op 0 '=', 1 'X', 2 'I', 3 'D') at ops/lens,
// and info = qstart, tstart, runs, matches, mismatches, inserted, deleted.
// walk_until walks through one block of rows, for tracebacks recomputed a
// stage at a time (checkpoints; nibbles).
#pragma once
#include "common.cuh"

namespace sa {

// Where cell (i, j) sits in a group's sweep: stage k, lane and register r
// of row i inside the stage, step s (both layouts).
template <int G, int R>
struct CellPos {
  int k, lane, r, s;
  __device__ CellPos(int i, int j) {
    const int rr = (i - 1) % (G * R);
    k = (i - 1) / (G * R);
    lane = rr / R;
    r = rr % R;
    s = j + lane - 1;
  }
};

// The index of the first word of stage k, step s (lane 0, word 0), nibble layout.
template <int G, int R>
__device__ __forceinline__ int64_t dir_base(int n, int k, int s) {
  return ((int64_t)k * (n + G - 1) + s) * ((R + 7) / 8) * G;
}

// The nibble layout: the code of cell (i, j) as the nibble.
template <int G, int R>
struct Nibbles {
  static constexpr bool STOP_CODE = true;
  __device__ unsigned code(const uint32_t* d, int n, int i, int j) const {
    const CellPos<G, R> c(i, j);
    return (d[dir_base<G, R>(n, c.k, c.s) + (c.r / 8) * G + c.lane] >> (4 * (c.r % 8))) & 15u;
  }
};

#ifndef WALK_CACHE
#define WALK_CACHE 1
#endif
#ifndef WALK_PREFETCH
#define WALK_PREFETCH 1
#endif

// Ask for the cache line at p in L1 (no wait, no register); nothing on HIP.
__device__ __forceinline__ void prefetch_l1(const void* p) {
#if defined(__CUDA_ARCH__) && !defined(__HIPCC__)
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#endif
}

// The plane layout: where a chunk of 8 steps starts, and the code of cell
// (i, j) translated to the nibble's bits (source never 3).
template <int G, int R>
struct Planes {
  static constexpr bool STOP_CODE = false;
  static constexpr int W = (R + 7) / 8;
  __device__ static int64_t chunk(int n, int k, int s, int w, int lane) {
    const int s8 = (n + G + 6) / 8;
    return ((((int64_t)k * s8 + s / 8) * W + w) * G + lane) * 8;
  }
  // the chunk of 8 words read last (kept when WALK_CACHE is 1): a walk along a lane's rows
  // finds most of its cells there, without a load
  int64_t at = -1;
  uint4 lo, hi;
  int last_i = 0, last_j = 0;  // the cell asked for before (WALK_PREFETCH: the walk's way)
  __device__ unsigned code(const uint32_t* d, int n, int i, int j) {
    const CellPos<G, R> pos(i, j);
    const int r = pos.r, s = pos.s;
    const int64_t c = chunk(n, pos.k, s, r / 8, pos.lane);
    uint32_t v;
    if (WALK_CACHE) {
      if (c != at) {
        const uint4* p = (const uint4*)(d + c);
        lo = p[0];
        hi = p[1];
        at = c;
        // the chunk 8 cells further the way the walk came in (up, left or both; the diagonal at
        // first): asked for now, so that it is in L1 when the walk gets there. Whole-warp
        // groups only: measured 15-20 % faster walks at 512 and 1024 bp, 20 % slower with
        // the 8-lane groups of 150 bp (benchmarks/decisions/walk_prefetch.md)
        if (WALK_PREFETCH && G == 32) {
          const bool up = last_i != i || last_j == j, left = last_j != j || last_i == i;
          const int i2 = up ? i - 8 : i, j2 = left ? j - 8 : j;
          if (i2 >= 1 && j2 >= 1) {
            const CellPos<G, R> ahead(i2, j2);
            prefetch_l1(d + chunk(n, ahead.k, ahead.s, ahead.r / 8, ahead.lane));
          }
        }
      }
      last_i = i;
      last_j = j;
      const uint4 h = (s & 4) ? hi : lo;
      const uint32_t a = (s & 2) ? h.z : h.x, b = (s & 2) ? h.w : h.y;
      v = ((s & 1) ? b : a) >> (r % 8);
    } else {
      v = d[c + s % 8] >> (r % 8);
    }
    const unsigned src = (v & 1u) ? ((v & 0x100u) ? 2u : 1u) : 0u;
    return src | ((v >> 14) & 4u) | ((v >> 21) & 8u);
  }
};

#ifndef WALK_LETTERS
#define WALK_LETTERS 1
#endif

// The letters of a sequence read backwards, a 16-byte aligned piece at a
// time kept in registers (WALK_LETTERS 1), so a walk loads them once per 16
// positions instead of at every diagonal step. The device copies of the
// sequences are padded to a multiple of 16 bytes, so a piece never passes
// their end.
struct Letters {
  unsigned long long at = 1;  // address of the piece held (aligned; 1: none yet)
  uint4 piece;
  __device__ __forceinline__ unsigned get(const uint8_t* s, int i) {
    if (!WALK_LETTERS) return s[i];
    const unsigned long long a = (unsigned long long)(s + i);
    const unsigned long long block = a & ~(unsigned long long)15;
    if (block != at) {
      piece = *(const uint4*)block;
      at = block;
    }
    const unsigned b = (unsigned)(a & 15);
    const uint32_t w = (b & 8) ? ((b & 4) ? piece.w : piece.z) : ((b & 4) ? piece.y : piece.x);
    return (w >> (8 * (b & 3))) & 0xffu;
  }
};

// A walker from the end cell back to the start: its cell, state (0 in H,
// 1 in an I gap, 2 in a D gap), runs written so far (in reverse), the run
// being extended (kept in registers: op -1 when none) and counts.
// v: the value of the walker's cell (H, F or E by state), kept only by
// walks over layouts without a stop code (local mode stops where H is 0).
struct Walker {
  int i, j, state, nr, cnt[4], op, len, v;

  __device__ static Walker at(int i, int j, int v = 0) { return Walker{i, j, 0, 0, {0, 0, 0, 0}, -1, 0, v}; }
  // saved as 11 ints: i, j, state, nr, counts, op, len, started (0 = start at ends)
  __device__ static Walker load(const int* w, const int* ends) {
    if (w[10] == 0) return at(ends[1], ends[2]);
    return Walker{w[0], w[1], w[2], w[3], {w[4], w[5], w[6], w[7]}, w[8], w[9], 0};
  }
  __device__ void store(int* w) const {
    w[0] = i; w[1] = j; w[2] = state; w[3] = nr;
    w[4] = cnt[0]; w[5] = cnt[1]; w[6] = cnt[2]; w[7] = cnt[3]; w[8] = op; w[9] = len; w[10] = 1;
  }
  __device__ void emit(uint8_t* ops, int* lens, int o, int l) {
#pragma unroll
    for (int k = 0; k < 4; ++k) cnt[k] += (k == o) ? l : 0;  // no run-time index: counts stay in registers
    if (o == op) { len += l; return; }
    if (op >= 0) { ops[nr] = (uint8_t)op; lens[nr] = len; ++nr; }
    op = o;
    len = l;
  }
  // The runs in CIGAR order, and info = qstart, tstart, runs, matches,
  // mismatches, inserted, deleted.
  __device__ void finish(uint8_t* ops, int* lens, int* info) {
    if (op >= 0) { ops[nr] = (uint8_t)op; lens[nr] = len; ++nr; op = -1; }
    reverse_runs(ops, lens, nr);
    info[0] = i; info[1] = j; info[2] = nr;
    info[3] = cnt[OP_EQ]; info[4] = cnt[OP_X]; info[5] = cnt[OP_I]; info[6] = cnt[OP_D];
  }
};

// Walks while the walker's cell is below row row0, reading the direction
// codes of rows row0+1 .. from d (laid out as stage 0, layout L). True once
// the start of the alignment is reached; false when the walk goes on above
// row0. sc: the scoring (used by layouts without a stop code).
template <class L>
__device__ __forceinline__ bool walk_until(const uint8_t* qs, const uint8_t* ts, int n, int mode, const uint32_t* d, int row0,
                           Walker& w, uint8_t* ops, int* lens, const Scoring& sc) {
  const int goe = sc.gap_open + sc.gap_extend;
  L layout;
  Letters ql, tl;
  while (true) {
    if (w.i == 0 || w.j == 0) {
      if (w.j == 0 && w.i > 0 && (mode == GLOBAL || mode == GLOCAL)) { w.emit(ops, lens, OP_I, w.i); w.i = 0; }
      else if (w.i == 0 && w.j > 0 && mode == GLOBAL) { w.emit(ops, lens, OP_D, w.j); w.j = 0; }
      return true;
    }
    if (w.i <= row0) return false;
    if (!L::STOP_CODE && w.state == 0 && mode == LOCAL && w.v == 0) return true;
    const unsigned c = layout.code(d, n, w.i - row0, w.j);
    if (w.state == 0) {
      const unsigned src = c & 3u;
      if (src == 3u) return true;
      if (src == 0u) {
        const uint8_t a = (uint8_t)ql.get(qs, w.i - 1), b = (uint8_t)tl.get(ts, w.j - 1);
        w.emit(ops, lens, (a == b && (a < 4 || sc.eq_all)) ? OP_EQ : OP_X, 1);
        if (!L::STOP_CODE) w.v -= subst(sc, a, b);
        --w.i; --w.j;
      } else {
        w.state = (int)src;
      }
    } else if (w.state == 1) {
      w.emit(ops, lens, OP_I, 1);
      w.state = (c & 8u) ? 1 : 0;
      if (!L::STOP_CODE) w.v += w.state ? sc.gap_extend : goe;
      --w.i;
    } else {
      w.emit(ops, lens, OP_D, 1);
      w.state = (c & 4u) ? 2 : 0;
      if (!L::STOP_CODE) w.v += w.state ? sc.gap_extend : goe;
      --w.j;
    }
  }
}

// The whole walk when every direction code of the pair is in d; score: the
// value of the end cell.
template <class L>
__device__ __forceinline__ void walk_back(const uint8_t* qs, const uint8_t* ts, int n, int mode, const uint32_t* d, int score,
                          int i, int j, uint8_t* ops, int* lens, int* info, const Scoring& sc) {
  Walker w = Walker::at(i, j, score);
  walk_until<L>(qs, ts, n, mode, d, 0, w, ops, lens, sc);
  w.finish(ops, lens, info);
}

}  // namespace sa
