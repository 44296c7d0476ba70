// triplet/wave.cuh: the tile wave (kernels with W = 1, the host's tile table; ntiles > 0). The host sends
// the work items whose sweep by one group would outlast the launch's work spread over the GPU (few or long
// triplets): each group takes one tile (J, K) of an item, not the whole item, and the tiles of one item run
// at once, each a few slices behind the tiles above and to its left.
//
// A warp takes the next SA_WARP / T rows of the table with one atomic add on sync[0] (take_tile); the host
// lists every tile after those it waits for (by anti-diagonal J + K, so that tiles taken together can start
// together), so every tile a group waits for was taken earlier by a group that is running (no deadlock
// whatever the order blocks start in). Every WAVE_EVERY slices a group publishes how many slices of its
// borders are written (the bottom-right lane finishes slice t - 2S + 2 at step t), behind a memory fence
// (publish_step). Before step t a group whose tile reads the plane (J > 0) or the column buffer (K > 0)
// checks that the tile above, and the one on its left, have written slice min(t, N1); if not, it skips the
// step (the warp's other groups go on; the warp pauses when none can: wave_gate). The warp fences before
// reading borders only when a lane that goes has read a count since its last fence (a fence at every step
// cost a quarter of the wave's time). Borders are laid out as for several passes, with a column buffer for
// each tile row J (tiles of different rows run at once: triplet/borders.cuh). A group reads its counts a step
// ahead, and where they already allow the next step it copies that step's borders to shared memory during
// this one (as the sweep does, TRIPLET_OPT_ASYNC16); else it reads them at the step. Each tile keeps its own
// best end cell in sync; the group that finishes an item's last tile (counted by an atomic add) reduces them
// by the end-cell order into out (reduce_tiles). Traceback writes each tile's codes at its pass
// P = J*KT + K as the sweep does. The counts and cells are in sync (triplet_score's argument, triplet.cu).
#pragma once
#include "common.cuh"
#include "triplet/ends.cuh"
#include "triplet/lanes.cuh"

namespace tri {
using namespace sa;

// A tile publishes its progress every WAVE_EVERY slices (each a memory fence). Measured on an H100 at
// 256-1,024 bp (benchmarks/journal/2026-11-23.md, "Triplets: long and few triplets as a tile wave"): every
// slice 12-15 % slower than every 4, every 16 slices 5-20 % slower.
constexpr int WAVE_EVERY = 4;
// Nanoseconds a warp pauses when none of its groups can go (backoff). Same journal entry: groups skip under 1 %
// of their steps, and no pause timed the same as 100 ns.
constexpr int WAVE_SLEEP = 100;

// A group's place in the wave: its tile (J0, K0) of work item w, the item's first slot (its tiles in
// row-major order from there), the progress counts (prog = sync + 1 + nwork) and this tile's slot in them,
// the counts seen of the tiles above and on the left (0x7fffffff: none to wait for), and whether this lane
// read a count since the warp's last fence. Outside the wave the group's tile is (0, 0) of its item.
struct Wave {
  int J0, K0, first;
  int* prog;
  int slot;
  int seen_up, seen_left;
  bool unfenced;
};

// The wave: this group's row of the tile table (the warp takes SA_WARP / T rows at once). False where the
// whole warp is idle (the table is done); a group past the table's end gets w = nwork (no item).
template <int T>
__device__ __forceinline__ bool take_tile(Wave& wv, int& w, int* __restrict__ sync, const int* __restrict__ tiles,
                                          int ntiles, int nwork) {
  int base = 0;
  if (threadIdx.x % SA_WARP == 0) base = atomicAdd(sync, SA_WARP / T);
  base = SA_SHFL(base, 0);
  if (base >= ntiles) return false;  // the whole warp is idle
  const int g = base + (int)(threadIdx.x % SA_WARP) / T;
  const bool has = g < ntiles;
  w = has ? tiles[4 * g] : nwork;
  wv.J0 = has ? tiles[4 * g + 1] : 0;
  wv.K0 = has ? tiles[4 * g + 2] : 0;
  wv.first = has ? tiles[4 * g + 3] : 0;
  return true;
}

// The counts and slot of the group's tile (KT: the item's tiles a row).
__device__ __forceinline__ void wave_counts(Wave& wv, int* sync, int nwork, int KT) {
  wv.prog = sync + 1 + nwork;
  wv.slot = wv.first + wv.J0 * KT + wv.K0;
  wv.seen_up = wv.J0 > 0 ? 0 : 0x7fffffff;
  wv.seen_left = wv.K0 > 0 ? 0 : 0x7fffffff;
}

// Before step t of the tile (J, K) (span: the sweep's slices, stop - lo0): the step only once the tiles above
// and on the left have written their borders of slice min(t, span) of the sweep; the group decides as one
// (on), the warp pauses when none of its groups can go: then false, and the warp skips the step. ASYNC: the
// counts one step ahead, for the next step's copies. Borders are read after the counts that allow them: a
// fence once a lane that goes has read a count since the warp's last fence (not at every step).
template <int T, bool ASYNC>
__device__ __forceinline__ bool wave_gate(Wave& wv, bool& on, int t, int span, int J, int K, int KT) {
  const int need = min(t, span) + 1;
  const int need1 = ASYNC ? min(t + 1, span) + 1 : need;
  if (on && wv.seen_up < need1) {
    wv.seen_up = load_count(wv.prog + wv.first + (J - 1) * KT + K);
    wv.unfenced = true;
  }
  if (on && wv.seen_left < need1) {
    wv.seen_left = load_count(wv.prog + wv.first + J * KT + K - 1);
    wv.unfenced = true;
  }
  const bool go = group_all<T>(on && wv.seen_up >= need && wv.seen_left >= need);
  on = go;
  if (!warp_any(go)) {
    backoff<WAVE_SLEEP>();
    return false;
  }
  if (warp_any(wv.unfenced && go)) {
    __threadfence();
    wv.unfenced = false;
  }
  return true;
}

// Whether the next step's borders (step t + 1 of span + 1 slices) are already written: always outside the wave.
template <bool WAVE>
__device__ __forceinline__ bool next_allowed(const Wave& wv, int t, int span) {
  const int need1 = min(t + 1, span) + 1;
  return !WAVE || (wv.seen_up >= need1 && wv.seen_left >= need1);
}

// The end of every step t of a group of S*S lanes: where the warp sweeps several tiles (multi_w), its fence
// between this step's writes and the next step's reads; the wave: every WAVE_EVERY slices (and the last, of
// span + 1), the count of slices whose borders every lane has written, behind a fence for the borders.
template <bool WAVE, int S>
__device__ __forceinline__ void publish_step(const Wave& wv, bool on, bool multi_w, int t, int span, int lane) {
  const int done = t - 2 * S + 3;
  const bool count = WAVE && on && done > 0 && (done % WAVE_EVERY == 0 || done == span + 1);
  const bool publish = WAVE && multi_w && warp_any(count);
  if (publish) __threadfence();
  if (multi_w) step_fence();  // this step's writes before the next step's reads
  if (publish && count && lane == 0) *(volatile int*)(wv.prog + wv.slot) = done;
}

// After the sweep of a tile of item w (JT x KT tiles, the group's best cells in bsc, bi, bj, bk): the tile's
// best end cells into sync; the group that finishes the item's last tile reduces every tile's by the end-cell
// order, and is the one that writes out (true).
template <int H>
__device__ __forceinline__ bool reduce_tiles(const Wave& wv, bool item, int lane, int* __restrict__ sync, int w,
                                             int ntiles, int JT, int KT, int (&bsc)[H], int (&bi)[H], int (&bj)[H],
                                             int (&bk)[H]) {
  bool write = false;
  if (item && lane == 0) {
    int* best = wv.prog + ntiles;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      int* rec = best + ((int64_t)wv.slot * H + h) * 4;
      rec[0] = bsc[h]; rec[1] = bi[h]; rec[2] = bj[h]; rec[3] = bk[h];
    }
    __threadfence();
    if (atomicAdd(sync + 1 + w, 1) == JT * KT - 1) {
      __threadfence();
      for (int q = wv.first; q < wv.first + JT * KT; ++q) {
#pragma unroll
        for (int h = 0; h < H; ++h) {
          const int* rec = best + ((int64_t)q * H + h) * 4;
          const int os = load_count(rec), oi = load_count(rec + 1);
          const int oj = load_count(rec + 2), ok = load_count(rec + 3);
          if (better4(os, oi, oj, ok, bsc[h], bi[h], bj[h], bk[h])) {
            bsc[h] = os; bi[h] = oi; bj[h] = oj; bk[h] = ok;
          }
        }
      }
      write = true;
    }
  }
  return write;
}

}  // namespace tri
