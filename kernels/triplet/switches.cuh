// triplet/switches.cuh: the tuning switches of the triplet kernels (compile-time defines, set through
// SEQALIGN_KERNEL_DEFINES for benchmarks) and the launch bounds they choose. Each default is the measured
// best; the other values stay so that the measurements can be run again (the decision notes say how), and
// tests/test_triplet_gpu_host.py compiles each of them with nvcc.
//
// Measured on an H100 (benchmarks/decisions/triplet_kernel_switches.md): CHAIN, BC and MINB/MINB16 = 3 are on
// by default (together with BC, three blocks an SM gain 15-35 %: two warps a scheduler left the cells' latency
// bare).
//   TRIPLET_OPT_CHAIN=1 (default): a cell's candidates from slice i-1 first (ready at the step's start), the
//     diagonal and upper moves of slice i next, the left neighbour in the last two instructions (it
//     was in the first of six), so a row of the square waits 2 instructions a cell, not 6.
//   TRIPLET_OPT_BC=1 (default): the R x R B-C pair scores of a lane in shared memory (R*R/4 16-byte
//     words a lane, one read for four cells) instead of registers (0: registers up to R = 6, else one
//     byte permute a cell): 36 registers fewer at R = 6.
//   TRIPLET_OPT_MINB=N (triplet_score), TRIPLET_OPT_MINB16=N (triplet_score16), TRIPLET_OPT_MINBT=N
//     (triplet_trace: 9-13 % faster at 128-256 bp, 4 % slower at 64), default 3:
//     __launch_bounds__(THREADS, N): at least N blocks of THREADS an SM (CUDA; registers capped at
//     65536 / (N * THREADS), 168 for N = 3; 4 spills too much). Groups of 16 lanes with squares of
//     R <= 6 only (min_blocks): R = 8 spills, and groups of 4 lanes (short triplets) ran semi-global
//     and local 5-10 % slower with 3 than with 2. 0: no minimum.
//   TRIPLET_OPT_MINBT16=N (triplet_trace16), default 2: with 3 the cap of 168 registers spills 190-260
//     bytes a lane, and the kernel ran 1.3-1.6 times slower at 64-128 bp.
//   TRIPLET_OPT_OFF=1 (default): global mode holds D + 2g (i + j + k) in the score kernels and in traceback with
//     values (the sweep: OFF; benchmarks/decisions/triplet_offset_form.md).
//   TRIPLET_OPT_ASYNC16=1 (default): groups of 16 lanes and the tile wave copy the next step's borders to
//     shared memory a step ahead, as groups of 4 lanes do (the wave: where the counts already allow the next
//     step). On an H200: 128 bp +4-9 %, 256-1,024 bp global +7-9 % (traceback +3-10 %); with 0 they read
//     the borders from L2 at the step that needs them.
//   TRIPLET_SMALL_BLOCKS=N (default 3) for Q up to TRIPLET_SMALL_BLOCKS_Q (default 7): the blocks an SM
//     triplet_small16<MODE, Q> asks for, 1 past that Q (up to 255 registers). Measured on an H100
//     (benchmarks/decisions/triplet_small_kernel.md): three blocks at Q = 7 ran 10-25 % faster than one; at
//     Q = 5 three or four changed nothing.
// Measured constants that are no longer switches (no other value gained): the group's best end-cell score
// refreshed every BEST_EVERY steps (triplet/ends.cuh), the tile wave's counts published every WAVE_EVERY
// slices and its pause (triplet/wave.cuh).
#pragma once

#ifndef TRIPLET_OPT_ASYNC16
#define TRIPLET_OPT_ASYNC16 1
#endif
#ifndef TRIPLET_OPT_CHAIN
#define TRIPLET_OPT_CHAIN 1
#endif
#ifndef TRIPLET_OPT_MINB
#define TRIPLET_OPT_MINB 3
#endif
#ifndef TRIPLET_OPT_OFF
#define TRIPLET_OPT_OFF 1
#endif
#ifndef TRIPLET_OPT_MINB16
#define TRIPLET_OPT_MINB16 3
#endif
#ifndef TRIPLET_OPT_BC
#define TRIPLET_OPT_BC 1
#endif
#ifndef TRIPLET_OPT_MINBT
#define TRIPLET_OPT_MINBT 3
#endif
#ifndef TRIPLET_OPT_MINBT16
#define TRIPLET_OPT_MINBT16 2
#endif
#ifndef TRIPLET_SMALL_BLOCKS
#define TRIPLET_SMALL_BLOCKS 3
#endif
#ifndef TRIPLET_SMALL_BLOCKS_Q
#define TRIPLET_SMALL_BLOCKS_Q 7
#endif

namespace tri {

// The blocks an SM the score kernels ask for (__launch_bounds__; n: TRIPLET_OPT_MINB or _MINB16).
__host__ __device__ constexpr int min_blocks(int R, int T, int n) {
  return R > 6 ? 1 : T < 16 ? (n < 2 ? n : 2) : n;
}

// The blocks an SM triplet_small16<MODE, Q> asks for (__launch_bounds__).
__host__ __device__ constexpr int small_blocks(int Q) { return Q <= TRIPLET_SMALL_BLOCKS_Q ? TRIPLET_SMALL_BLOCKS : 1; }

}  // namespace tri

// The kernels' launch bounds (triplet.cu; tri::THREADS: triplet/args.cuh). HIP: the threads only.
#if TRIPLET_OPT_MINB > 0 && !defined(__HIPCC__) && !defined(__HIP_PLATFORM_AMD__)
#define TRIPLET_SCORE_BOUNDS __launch_bounds__(tri::THREADS, tri::min_blocks(R, T, TRIPLET_OPT_MINB))
#else
#define TRIPLET_SCORE_BOUNDS __launch_bounds__(tri::THREADS)
#endif
#if TRIPLET_OPT_MINBT > 0 && !defined(__HIPCC__) && !defined(__HIP_PLATFORM_AMD__)
#define TRIPLET_TRACE_BOUNDS __launch_bounds__(tri::THREADS, tri::min_blocks(R, T, TRIPLET_OPT_MINBT))
#else
#define TRIPLET_TRACE_BOUNDS __launch_bounds__(tri::THREADS)
#endif
#if TRIPLET_OPT_MINBT16 > 0 && !defined(__HIPCC__) && !defined(__HIP_PLATFORM_AMD__)
#define TRIPLET_TRACE16_BOUNDS __launch_bounds__(tri::THREADS, tri::min_blocks(R, T, TRIPLET_OPT_MINBT16))
#else
#define TRIPLET_TRACE16_BOUNDS __launch_bounds__(tri::THREADS)
#endif
#if !defined(__HIPCC__) && !defined(__HIP_PLATFORM_AMD__)
#define TRIPLET_SMALL_BOUNDS __launch_bounds__(tri::THREADS, tri::small_blocks(Q))
#else
#define TRIPLET_SMALL_BOUNDS __launch_bounds__(tri::THREADS)
#endif
#if TRIPLET_OPT_MINB16 > 0 && !defined(__HIPCC__) && !defined(__HIP_PLATFORM_AMD__)
#define TRIPLET_SCORE16_BOUNDS __launch_bounds__(tri::THREADS, tri::min_blocks(R, T, TRIPLET_OPT_MINB16))
#else
#define TRIPLET_SCORE16_BOUNDS __launch_bounds__(tri::THREADS)
#endif
