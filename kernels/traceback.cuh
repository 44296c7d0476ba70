// traceback.cuh: the CIGAR walk shared by the pairwise kernels.
//
// Direction codes (4 bits a cell) are laid out the same way by the warp and
// subwarp kernels: for a group of G lanes owning R query rows each (a stage
// of G*R rows), the code of cell (i, j) is nibble r % 8 of word
//     ((k * (n + G - 1) + s) * W + r / 8) * G + lane
// where k = (i-1) / (G*R) is the stage, lane and r the lane and register of
// row i inside it, s = j + lane - 1 the step, W = ceil(R / 8) the words a
// lane writes per step. Bits 0-1: source of H (0 diagonal, 1 I, 2 D,
// 3 stop, local mode); bit 2: D extends; bit 3: I extends.
//
// walk_back: one thread per pair walks from the end cell to the start,
// writes the CIGAR as runs (op 0 '=', 1 'X', 2 'I', 3 'D') at ops/lens,
// and info = qstart, tstart, runs, matches, mismatches, inserted, deleted.
#pragma once
#include "common.cuh"

namespace sa {

template <int G, int R>
__device__ __forceinline__ unsigned dir_at(const uint32_t* d, int n, int i, int j) {
  constexpr int ROWS = G * R, W = (R + 7) / 8;
  const int k = (i - 1) / ROWS, rr = (i - 1) % ROWS;
  const int lane = rr / R, r = rr % R;
  const int s = j + lane - 1;
  return (d[(((int64_t)k * (n + G - 1) + s) * W + r / 8) * G + lane] >> (4 * (r % 8))) & 15u;
}

// The index of the first word of stage k, step s (lane 0, word 0).
template <int G, int R>
__device__ __forceinline__ int64_t dir_base(int n, int k, int s) {
  return ((int64_t)k * (n + G - 1) + s) * ((R + 7) / 8) * G;
}

template <int G, int R>
__device__ void walk_back(const uint8_t* qs, const uint8_t* ts, int n, int mode, const uint32_t* d, int i, int j,
                          uint8_t* ops, int* lens, int* info) {
  int state = 0, nr = 0;
  int cnt[4] = {0, 0, 0, 0};
  auto emit = [&](int op, int len) {
    cnt[op] += len;
    if (nr > 0 && ops[nr - 1] == op) lens[nr - 1] += len;
    else { ops[nr] = (uint8_t)op; lens[nr] = len; ++nr; }
  };
  while (true) {
    if (i == 0 || j == 0) {
      if (j == 0 && i > 0 && (mode == GLOBAL || mode == GLOCAL)) { emit(OP_I, i); i = 0; }
      else if (i == 0 && j > 0 && mode == GLOBAL) { emit(OP_D, j); j = 0; }
      break;
    }
    const unsigned c = dir_at<G, R>(d, n, i, j);
    if (state == 0) {
      const unsigned src = c & 3u;
      if (src == 3u) break;
      if (src == 0u) {
        const uint8_t a = qs[i - 1], b = ts[j - 1];
        emit((a == b && a < 4) ? OP_EQ : OP_X, 1);
        --i; --j;
      } else {
        state = (int)src;
      }
    } else if (state == 1) {
      emit(OP_I, 1);
      state = (c & 8u) ? 1 : 0;
      --i;
    } else {
      emit(OP_D, 1);
      state = (c & 4u) ? 2 : 0;
      --j;
    }
  }
  for (int a = 0, b = nr - 1; a < b; ++a, --b) {
    const uint8_t o = ops[a]; ops[a] = ops[b]; ops[b] = o;
    const int l = lens[a]; lens[a] = lens[b]; lens[b] = l;
  }
  info[0] = i; info[1] = j; info[2] = nr;
  info[3] = cnt[OP_EQ]; info[4] = cnt[OP_X]; info[5] = cnt[OP_I]; info[6] = cnt[OP_D];
}

}  // namespace sa
