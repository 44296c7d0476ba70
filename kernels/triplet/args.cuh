// triplet/args.cuh: what a launch of the triplet kernels passes, and the structs that carry it into their
// device functions: the kernels' parameter lists (TRIPLET_PARAMS, TRIPLET_TRACE_PARAMS; what each argument
// holds: the kernels' comments in triplet.cu), the threads a block, and a work item's triplets as the kernels
// read them from the batch (ItemTriplet: one triplet; Item: the halves of a lane group's item).
#pragma once
#include "common.cuh"

namespace tri {
using namespace sa;

// threads a block (common.cuh)
constexpr int THREADS = SA_THREADS;

// Triplet p of a work item's half (-1: none, every length 0): its lengths and sequences, and whether it has a
// DP to follow (live, and not an empty semi-global one: that scores 0 at (0, 0, 0) without DP).
struct ItemTriplet {
  int n1, n2, n3;
  const uint8_t *a, *b, *c;
  bool track;
};

template <int MODE>
__device__ __forceinline__ ItemTriplet item_triplet(int p, const uint8_t* __restrict__ a,
                                                    const int64_t* __restrict__ aoff, const uint8_t* __restrict__ b,
                                                    const int64_t* __restrict__ boff, const uint8_t* __restrict__ c,
                                                    const int64_t* __restrict__ coff) {
  const bool live = p >= 0;
  const int q = live ? p : 0;
  ItemTriplet t;
  t.n1 = live ? (int)(aoff[q + 1] - aoff[q]) : 0;
  t.n2 = live ? (int)(boff[q + 1] - boff[q]) : 0;
  t.n3 = live ? (int)(coff[q + 1] - coff[q]) : 0;
  t.a = a + (live ? aoff[q] : 0);
  t.b = b + (live ? boff[q] : 0);
  t.c = c + (live ? coff[q] : 0);
  t.track = live && !(MODE == SEMI && (t.n1 == 0 || t.n2 == 0 || t.n3 == 0));
  return t;
}

// A lane group's work item as the sweep reads it, one triplet a half (H: 1 for int32 lanes, 2 for 16-bit
// lanes): each half's triplet p (-1: none), its lengths and sequences, whether it has a DP to follow (track:
// live, and not an empty semi-global one), and the loops' extent (N1, N2, N3: the largest lengths; work:
// whether any half has a DP).
template <int H>
struct Item {
  int p[H], n1[H], n2[H], n3[H];
  const uint8_t *as[H], *bs[H], *cs[H];
  bool track[H];
  int N1, N2, N3;
  bool work;
};

// Work item w's triplets (item: whether the group has an item; order[H*w + h] in half h). ItemTriplet's
// fields, read in place: through item_triplet the sweep spilled more and ran 2-4 % slower (2026-11-28,
// benchmarks/decisions/triplet_small_kernel.md).
template <int MODE, int H>
__device__ __forceinline__ void load_item(Item<H>& it, bool item, int w, const int* __restrict__ order,
                                          const uint8_t* __restrict__ a, const int64_t* __restrict__ aoff,
                                          const uint8_t* __restrict__ b, const int64_t* __restrict__ boff,
                                          const uint8_t* __restrict__ c, const int64_t* __restrict__ coff) {
  it.N1 = 0;
  it.N2 = 0;
  it.N3 = 0;
  it.work = false;
#pragma unroll
  for (int h = 0; h < H; ++h) {
    it.p[h] = item ? order[H * w + h] : -1;
    const bool live = it.p[h] >= 0;
    const int q = live ? it.p[h] : 0;
    it.n1[h] = live ? (int)(aoff[q + 1] - aoff[q]) : 0;
    it.n2[h] = live ? (int)(boff[q + 1] - boff[q]) : 0;
    it.n3[h] = live ? (int)(coff[q + 1] - coff[q]) : 0;
    it.as[h] = a + (live ? aoff[q] : 0);
    it.bs[h] = b + (live ? boff[q] : 0);
    it.cs[h] = c + (live ? coff[q] : 0);
    it.track[h] = live && !(MODE == SEMI && (it.n1[h] == 0 || it.n2[h] == 0 || it.n3[h] == 0));
    it.work |= it.track[h];
    it.N1 = max(it.N1, it.n1[h]);
    it.N2 = max(it.N2, it.n2[h]);
    it.N3 = max(it.N3, it.n3[h]);
  }
}

}  // namespace tri

// The parameters of every triplet kernel but triplet_walk (the score kernels, triplet_small16), then those
// traceback adds (triplet_trace, triplet_trace16).
#define TRIPLET_PARAMS                                                                                  \
  const uint8_t *__restrict__ a, const int64_t *__restrict__ aoff, const uint8_t *__restrict__ b,     \
      const int64_t *__restrict__ boff, const uint8_t *__restrict__ c, const int64_t *__restrict__ coff, \
      const int *__restrict__ order, int nwork, int match, int mismatch, int gap_open, int gap_extend,   \
      int n_penalty, int *__restrict__ border, const int64_t *__restrict__ border_off, int *__restrict__ out, \
      const int *__restrict__ tiles, int ntiles, int *__restrict__ sync
#define TRIPLET_TRACE_PARAMS                                                                            \
  TRIPLET_PARAMS, uint8_t *__restrict__ dirs, const int64_t *__restrict__ dir_off,                      \
      const int *__restrict__ wslices, int wq, int *__restrict__ ck, const int64_t *__restrict__ ck_off
