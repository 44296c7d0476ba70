// runs.cu: a batch's alignment runs gathered into the packed layout before they are copied back
// (every family; seqalign_cli/backends/cuda/device.py:fetch_runs, results.RunStore.packed).
//
// The kernels write each record's runs (CIGAR operations and lengths) into the room the host set aside
// for it, which is as large as the record's longest possible alignment; only the runs in use are
// brought back. This kernel copies them, record after record, into a layout without gaps, so that one
// copy of `total` slots brings back every record's runs.
//
// Kernel pack_runs
//   dst_off   int64 (n): where record r's runs start in the packed layout, ascending
//             (record r's slots: dst_off[r] .. dst_off[r+1], the last up to `total`)
//   n         number of records (at least 1)
//   src_off   int64 (n): where record r's runs start in the kernels' layout
//   op, len   uint8 and int32: the runs in the kernels' layout
//   total     slots of the packed layout
//   op_out, len_out  uint8 and int32 (total): the packed runs
// Threads: one a slot of the packed layout (a grid-stride loop); a slot's record by binary search over
// dst_off (the last record starting at or before it: records with no room start where the next does).
#include "common.cuh"

extern "C" __global__ void pack_runs(const int64_t* dst_off, int64_t n, const int64_t* src_off,
                                     const uint8_t* op, const int* len, int64_t total, uint8_t* op_out,
                                     int* len_out) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < total; s += stride) {
    int64_t lo = 0, hi = n;  // dst_off[lo] <= s, and s < dst_off[hi] where hi < n
    while (hi - lo > 1) {
      const int64_t mid = (lo + hi) >> 1;
      if (dst_off[mid] <= s) lo = mid; else hi = mid;
    }
    const int64_t from = src_off[lo] + (s - dst_off[lo]);
    op_out[s] = op[from];
    len_out[s] = len[from];
  }
}
