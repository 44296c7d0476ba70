// triplet.cu: exact 3-way (triplet) alignment, linear gaps, one group of T lanes per triplet.
//
// Computes D(i, j, k) over the cube (n1+1) x (n2+1) x (n3+1) of sequences A,
// B, C exactly as the CPU engine does (seqalign_cli/families/triplet/cpu.py;
// definition, modes and tie rules: the triplet section of the docs): seven
// moves a cell, sum-of-pairs column scores, gap g = gap_extend for every
// residue facing a gap (gap_open must be 0). Scores and end cells
// (triplet_score, triplet_score16), or with traceback the direction code of
// every cell (triplet_trace) and the walk (triplet_walk). Global:
// D(n1, n2, n3). Semi-global: start faces (i, j or k = 0) are 0, the best
// cell of the end faces (i = n1, j = n2 or k = n3). Local: every cell
// floored at 0, the best cell. Ties: the smallest (i, j, k) in
// lexicographic order.
//
// Kernel triplet_score<MODE, R, T, W>  (int32 lanes, one triplet a group)
// Kernel triplet_score16<MODE, R, T, W>  (16-bit lanes, two triplets a group)
//   W: 1 for the tile wave (ntiles > 0), 0 for the sweep of whole work items
//   (the wave's bookkeeping costs the sweep registers it does not need)
//   a, b, c     uint8 codes of all triplets' A, B and C, flat (A C G T = 0..3,
//               other = 4)
//   aoff, boff, coff  int64 (ntriplets+1): triplet p's A is a[aoff[p] .. aoff[p+1])
//   order       int32 (nwork * H): the triplets work item w aligns,
//               order[H*w + h] in half h (H = 1 for int32, 2 for 16-bit;
//               -1: none). Sorted by shape on the host, so the groups of a
//               warp have similar work.
//   match, mismatch, gap_open, gap_extend, n_penalty: int32 scoring, each
//               at most 127 (pair scores come from byte profiles); gap_open
//               is ignored (the host sends only gap_open = 0 here)
//   border      int32 scratch of the work items that need several passes
//               (n2 or n3 past the group's S*R): at border + border_off[p]
//               (p = the item's first triplet) a plane of (N1+1) x W ints
//               (row J*S*R - 1 of the slice for each i, in chunks of BROW
//               ints a lane column c = K*S + v, W = KT*S*BROW: the cell at
//               column k0 - 1 (the corner), then columns k0 .. k0 + R - 1)
//               then (N1+1) x (S*BCOL) ints (the last column of the
//               previous tile in chunks of BCOL ints a lane row u: rows
//               u*R .. u*R + R - 1); BROW and BCOL are R + 1 and R rounded
//               up to 4 (16-byte words; spare ints 0). N1, N2, N3: the
//               largest lengths of the item's triplets; KT = (N3 + S*R) / (S*R).
//   out         int32 (ntriplets, 4): score, end i, end j, end k
//   tiles       int32 (ntiles, 4), or unused when ntiles = 0: the tile wave
//               (below), in the order groups take them: row g is tile
//               (J, K) = (tiles[4g+1], tiles[4g+2]) of work item tiles[4g],
//               whose counters sit at slot tiles[4g+3] + J*KT + K (the
//               item's tiles in row-major order from its first slot)
//   ntiles      int32: 0 for the sweep of whole work items, else the table's rows
//   sync        int32 scratch of the tile wave, zeroed by the host: [0] the
//               tiles handed out, then nwork finished-tile counts, ntiles
//               progress counts (slices whose borders are written), ntiles * H
//               * 4 best end cells (score, i, j, k per half), by slot
//
// Kernel triplet_trace<MODE, R, T, W>  (int32 lanes, one triplet a group)
//   the arguments of triplet_score, then
//   dirs        uint8 direction codes, triplet p's at dirs + dir_off[p]
//               (4-byte aligned), laid out as the group computes them so
//               that its stores coalesce: per pass (tile (J, K), row-major,
//               P = J*KT + K), per wavefront step t (0 .. n1 + 2S - 2), a
//               block of CW*T 32-bit words, CW = ceil(R*R / 4): lane l's
//               R x R codes of the step, row-major (code e = r*R + c in
//               byte e % 4 of its word e / 4; spare bytes 0), word q of
//               lane l at q*T + l, so that the T lanes' q-th stores are T
//               consecutive words. Cell (i, j, k): J = j / SR, K = k / SR,
//               u = (j % SR) / R, v = (k % SR) / R, t = i + u + v,
//               e = (j % R) * R + k % R, byte
//               (((P * (n1 + 2S - 1) + t) * CW + e / 4) * T + u*S + v) * 4 + e % 4.
//               Size: JT*KT * (n1 + 2S - 1) * CW*T * 4 bytes (the host's
//               dir_bytes). A lane writes a word once its codes are
//               computed (at the row that completes it), every cell of its
//               square (those past the triplet's ends too) at steps whose
//               slice i is within 0..n1, nothing at the others; nothing for
//               a semi-global triplet with an empty sequence (no DP)
//   dir_off     int64 (ntriplets): each triplet's bytes in dirs
//   W           bit 0: the tile wave, as for triplet_score; bit 1: traceback in windows (wslices); bit 2
//               (VALS): each cell's byte is the low byte of its value D, not its code
//   wslices, wq  int32 (ntriplets, 2), int: read with W & 2 only (else the codes of every slice 0..n1):
//               triplet p with wslices[p] = (m > 0, last) keeps only the slices of its window wq, windows of
//               m slices counted from slice last (n1, or its item's largest n1 where the host put both halves
//               in the same windows; window_of: [max(0, hi - m), hi), hi = last + 1 - wq*m), in
//               the layout above with m + 2S - 2 steps a pass, step t - lo for slice i = t - u - v
//               (the traceback of a triplet whose codes pass the memory budget: one launch a window,
//               each followed by triplet_walk of the same window, from the last window to the first)
//   ck, ck_off  int32 checkpoints (nullptr: none), int64 (ntriplets), W & 2 only: triplet p's at
//               ck + ck_off[p], slot q (q = 0 .. last / m - 1) the values of slice lo_q - 1 of window q,
//               (n2 + 1) x (n3 + 1) row-major (global mode with VALS: the offset values, D + 2g (i + j + k)).
//               Window 0's launch sweeps every slice and writes them; window q > 0's sweeps slices
//               lo_q .. hi_q - 1 only, its squares and borders of slice lo_q - 1 read from slot q (from slice 0
//               instead without checkpoints, or where the item's two halves start window q at different
//               slices), and leaves out alone (the end cells are window 0's)
//   A cell's code is the column kind that produces D (0..6 in the order
//   M a b c A B C: the seven candidates compared with strict > in that
//   order, so the first of equal ones wins), or 7 (START) where the
//   alignment starts: the global origin, semi-global start faces (i, j or
//   k = 0), local cells whose best candidate is <= 0 (D = 0). Values and
//   end cells are those of triplet_score. VALS: the cells take the score
//   kernels' candidate chain (seven or eight instructions against about 25
//   for a code in 16-bit lanes; six in global mode, whose values are those
//   of the offset form, D + 2g (i + j + k), as in triplet_score) and keep
//   the value's low byte (start faces: 0), from which triplet_walk finds
//   the codes.
//
// Kernel triplet_trace16<MODE, R, T, W>  (16-bit lanes, two triplets a group)
//   the arguments of triplet_trace, order as for triplet_score16. Each half
//   writes its triplet's codes in the layout above by the triplet's own
//   lengths (its KT, JT and n1 + 2S - 1 steps, what triplet_walk reads):
//   the steps of its own tiles only, and of its own slices. The seven
//   candidates are compared as one chain of max16_which (one DPX instruction
//   for both halves, with a predicate a half: whether the earlier kinds'
//   best stays), so the first of equal kinds wins as in triplet_trace.
//
// Kernel triplet_small16<MODE, Q>  (16-bit lanes, two triplets a thread, score only)
//   the arguments of triplet_score16 (border, border_off, tiles, ntiles and sync unused); order as for
//   triplet_score16, one work item a thread. Every triplet of the launch has n2 < Q and n3 < Q: thread w
//   holds the whole (j, k) slice of both triplets of item w (Q x Q registers, rows j and columns k from 0,
//   those past a triplet's ends computed with the pad code) and sweeps i, each slice in one pass of its
//   cells in row-major order, no shuffles, no borders. Row 0, column 0 and slice 0 take only the moves
//   that exist there (semi-global: 0 without DP). Scores and end cells as triplet_score16. B-C pair
//   scores of rows and columns 1..Q-1 in shared memory, as the sweep keeps them. Global mode holds
//   D + 2g (i + j + k) (six instructions a cell); semi-global and local take each row's largest candidate
//   and search for the first best cell only in the rows whose largest beats the best so far.
//
// Kernel triplet_walk<MODE, R, T>  (one thread a triplet; the R and T of the
//   triplet_trace or triplet_trace16 launch, whose layout it reads)
//   order, nwork  int32: the triplets to walk (every slot of that launch's
//               order, -1 for none)
//   aoff, boff, coff, out, dirs, dir_off: as above (out: the end cells)
//   run_off     int64 (ntriplets): triplet p's first run slot (room for
//               n1 + n2 + n3 + 1 runs, the CPU engine's layout)
//   run_op, run_len  uint8 / int32: the runs (kind, length) from the start
//               of the alignment to its end
//   info        int32 (ntriplets, 4): start i, j, k, run count (an empty
//               alignment: its end cell and 0 runs; semi-global with an
//               empty sequence: 0, 0, 0, 0)
//   wslices, wq  as for triplet_trace: the window whose codes dirs holds
//   a, b, c     as above (pair scores); match, mismatch, gap_extend, n_penalty: the scoring
//   vals        1: dirs holds the values' low bytes (triplet_trace's VALS)
//   ck, ck_off  as for triplet_trace (vals in windows): the values of slice lo - 1 below the window, and
//               of the cell where the walk left the window above
//   From the end cell the walk follows the codes back to the first START.
//   vals: the walk knows the value X of the cell it stands on (the end
//   cell's is the score) and takes the first kind in tie order whose
//   neighbour's byte is (X - the kind's column score) & 0xff, the neighbour's
//   value then; exact while no candidate falls 256 or more below its cell
//   (the host's values_fit). It stops where the codes hold START: the
//   global origin, a semi-global start face, a local cell of value 0.
//   In windows: the walk of window 0 starts at the end cell, the others
//   where the walk above left the triplet; a walk that leaves its window
//   (slice lo - 1) writes that cell and -1 - runs in info (the runs so far,
//   from the end back), and the next window's walk goes on from there.
//
// Thread mapping (TrioSeq): T = S*S lanes a group (T = 1, 4 or 16; several
// groups a warp), lane l = u*S + v owning the R x R square of rows
// j = J*S*R + u*R + [0, R) and columns k = K*S*R + v*R + [0, R) of the
// (j, k) slice of every i, in registers. The group sweeps i (A) one slice at
// a time; lanes run as an anti-diagonal wavefront over the S x S squares:
// at step t lane (u, v) computes slice i = t - u - v, so a pass takes
// n1 + 2S - 1 steps. Before each step a lane takes, by shuffles, the last
// row of lane (u-1, v) with its left neighbour's corner in front (R + 1
// values, slice i) and the last column of lane (u, v-1) (R values); the
// previous step's borders are those of slice i-1. Lanes of the top row and
// left column take j = -1 and k = -1 as minus infinity. Triplets whose
// slice (n2+1) x (n3+1) exceeds the group's (S*R)^2 run in several passes,
// tile (J, K) after tile (J, K-1) in row-major order, each a full sweep
// over i: the bottom lanes write their last row into the plane (read by the
// top lanes of tile (J+1, K)), the right lanes their last column into the
// column buffer (read by the left lanes of tile (J, K+1)); the warp
// synchronizes before and after the cells of every step. Cells past a
// sequence's end (j > n2, k > n3, or i > n1 in a 16-bit half) are computed
// with a pad code whose pair scores are -g: such a cell never exceeds the
// cell it projects on (j, k clamped to n2, n3), which comes before it in
// (i, j, k) order, so end cells need no masks in local mode and the face
// masks of semi-global mode are per row and column (semi-global triplets
// with an empty sequence score 0 at (0, 0, 0) without any DP).
// Per slice: one byte profile lookup for each of the lane's R rows (B) and R
// columns (C) against A's letter; the B-C pair score of each cell does not
// change along i: R*R of them in shared memory, written at a tile's start
// (TRIPLET_OPT_BC; registers for R <= 6 without it).
// Global mode starts the origin through the corner of slice -1 (3g, so the
// pad-pad-pad column gives D(0,0,0) = 0); its score kernels hold
// D + 2g (i + j + k) instead (six instructions a cell; the corner -3g, the end
// cell gives 2g (n1 + n2 + n3) back: TRIPLET_OPT_OFF). Each lane keeps the best end cell
// it has seen by (score desc, i, j, k asc), looking for the first cell of a
// slice's maximum only when that maximum may win (may_win) and is not below
// the best score of the group's lanes (refreshed every TRIPLET_BEST_EVERY
// steps); the cell's (i, j, k) waits in shared memory. The group reduces
// the lanes' cells by the same order. Local mode takes the square's maximum
// from its rows' maxima, which lead to its first cell (first_cell_rows);
// semi-global masks the face rows and columns by byte permutes (PastMasks).
//
// Lengths: any (int32 coordinates, int64 scratch offsets). The host keeps on
// the CPU the triplets whose score bound passes int32 lanes, and a triplet
// whose scratch alone passes 1 GiB (n1 * n3 beyond about 2.6e8); launches
// are split so that their scratch fits it.
//
// The tile wave (ntiles > 0; the host sends the work items of several tiles
// whose sweep by one group would outlast the launch's work spread over the
// GPU: few or long triplets): each group takes one tile (J, K) of an
// item, not the whole item, and the tiles of one item run at once, each a
// few slices behind the tiles above and to its left. A warp takes the next
// SA_WARP / T rows of the table with one atomic add on sync[0]; the host
// lists every tile after those it waits for (by anti-diagonal J + K, so that
// tiles taken together can start together), so every tile a group waits for
// was taken earlier by a group that is running (no deadlock whatever the
// order blocks start in). Every TRIPLET_WAVE_EVERY slices a group publishes
// how many slices of its borders are written (the bottom-right lane finishes
// slice t - 2S + 2 at step t), behind a memory fence. Before step t a group
// whose tile reads the plane (J > 0) or the column buffer (K > 0) checks
// that the tile above, and the one on its left, have written slice
// min(t, N1); if not, it skips the step (the warp's other groups go on; the
// warp pauses when none can). The warp fences before reading borders only
// when a lane that goes has read a count since its last fence (a fence at
// every step cost a quarter of the wave's time). Borders are laid out as for several passes,
// with a column buffer for each tile row J (tiles of different rows run at
// once). A group reads its counts a step ahead, and where they already
// allow the next step it copies that step's borders to shared memory
// during this one (as the sweep does, TRIPLET_OPT_ASYNC16); else it reads
// them at the step. Each tile keeps its own best
// end cell in sync; the group that finishes an item's last tile (counted by
// an atomic add) reduces them by the end-cell order into out. Traceback
// writes each tile's codes at its pass P = J*KT + K as the sweep does.
//
// triplet_score16: the same sweep with two triplets in the low and high
// 16-bit halves of every register (one DPX instruction updates two cells);
// the host pairs triplets of similar shape and sends only items whose every
// value fits (seqalign_cli/families/triplet/plan.py: fits16). Loops cover
// the larger lengths of the two; each half keeps its own end cell.
#include "common.cuh"

// Tuning switches of the score kernels (triplet_score, triplet_score16), set through
// SEQALIGN_KERNEL_DEFINES. Measured on an H100 (benchmarks/decisions/triplet_kernel_switches.md): CHAIN, BC and
// MINB/MINB16 = 3 are on by default (together with BC, three blocks an SM gain 15-35 %: two warps a scheduler
// left the cells' latency bare); the others gained nothing and are off.
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
//     and local 5-10 % slower with 3 than with 2.
//   TRIPLET_OPT_MINBT16=N (triplet_trace16), default 2: with 3 the cap of 168 registers spills 190-260
//     bytes a lane, and the kernel ran 1.3-1.6 times slower at 64-128 bp.
//   TRIPLET_OPT_PROF=1: a lane keeps selectors of its rows' B and columns' C codes (R + R registers a
//     half) instead of their profile words, and builds A's profile each slice (pair scores are
//     symmetric): the B and C profiles live only at a tile's start, for the B-C scores.
//     TRIPLET_OPT_PROF=2: besides, int32 lanes look up the B-C score of every cell (one byte
//     permute) instead of holding R*R of them (16-bit lanes as with 1).
//   TRIPLET_OPT_OFF=1 (default): global mode holds D + 2g (i + j + k) in the score kernels and in traceback with
//     values (the sweep: OFF).
//   TRIPLET_OPT_ASYNC16=1 (default): groups of 16 lanes and the tile wave copy the next step's borders to
//     shared memory a step ahead, as groups of 4 lanes do (the wave: where the counts already allow the next
//     step). On an H200: 128 bp +4-9 %, 256-1,024 bp global +7-9 % (traceback +3-10 %); with 0 they read
//     the borders from L2 at the step that needs them.
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
#ifndef TRIPLET_OPT_PROF
#define TRIPLET_OPT_PROF 0
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
// Semi-global and local: steps between refreshes of the group's best end-cell score (warp_max<T>), below
// which a lane does not look for its square's first best cell.
#ifndef TRIPLET_BEST_EVERY
#define TRIPLET_BEST_EVERY 4
#endif
// The tile wave: a tile publishes its progress every TRIPLET_WAVE_EVERY slices (each a memory fence;
// measured on an H100 at 256-1,024 bp: 1 is 12-15 % slower than 4, 16 about 5-20 %).
#ifndef TRIPLET_WAVE_EVERY
#define TRIPLET_WAVE_EVERY 4
#endif
// The tile wave: nanoseconds a warp pauses when none of its groups can go (0: none; groups skip under 1 % of
// their steps, and 0 or 100 time the same).
#ifndef TRIPLET_WAVE_SLEEP
#define TRIPLET_WAVE_SLEEP 100
#endif
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

using namespace sa;

namespace tri {

// The blocks an SM the score kernels ask for (__launch_bounds__; n: TRIPLET_OPT_MINB or _MINB16).
__host__ __device__ constexpr int min_blocks(int R, int T, int n) {
  return R > 6 ? 1 : T < 16 ? (n < 2 ? n : 2) : n;
}

// The blocks an SM triplet_small16<MODE, Q> asks for (__launch_bounds__): TRIPLET_SMALL_BLOCKS for Q up to
// TRIPLET_SMALL_BLOCKS_Q, else 1 (up to 255 registers). Measured on an H100
// (benchmarks/decisions/triplet_small_kernel.md): three blocks at Q = 7 ran 10-25 % faster than one; at Q = 5
// three or four changed nothing.
#ifndef TRIPLET_SMALL_BLOCKS
#define TRIPLET_SMALL_BLOCKS 3
#endif
#ifndef TRIPLET_SMALL_BLOCKS_Q
#define TRIPLET_SMALL_BLOCKS_Q 7
#endif
__host__ __device__ constexpr int small_blocks(int Q) { return Q <= TRIPLET_SMALL_BLOCKS_Q ? TRIPLET_SMALL_BLOCKS : 1; }

// code of a position past a sequence's end (and of the residue-less row,
// column and slice 0): scores -g against anything
constexpr int PAD = 5;
// threads a block (common.cuh)
constexpr int THREADS = SA_THREADS;
// direction code of a cell where the alignment starts (codes 0..6: the column kind that won)
constexpr int START = 7;

template <int T>
struct Side {
  static constexpr int S = T == 1 ? 1 : T == 4 ? 2 : T == 16 ? 4 : T == 64 ? 8 : 0;
  static_assert(S > 0 && T <= SA_WARP, "T: 1, 4, 16 (64 on a 64-wide warp)");
};

// Pair scores of code x against codes 0..5 as signed bytes: 0..3 in lo,
// 4 (N) in byte 0 of hi, 5 (pad) in byte 1 of hi.
__device__ __forceinline__ void profile6(const Scoring& s, int x, uint32_t& lo, uint32_t& hi) {
  const uint32_t g = (uint32_t)(-s.gap_extend) & 0xffu;
  if (x == PAD) {
    lo = g * 0x01010101u;
    hi = g | (g << 8);
    return;
  }
  const uint32_t nb = (uint32_t)(-s.n_penalty) & 0xffu;
  if (x > 3) {
    lo = nb * 0x01010101u;
  } else {
    lo = ((uint32_t)(-s.mismatch) & 0xffu) * 0x01010101u;
    lo = (lo & ~(0xffu << (8 * x))) | (((uint32_t)s.match & 0xffu) << (8 * x));
  }
  hi = nb | (g << 8);
}

// End-cell order of every backend: higher score, then smaller i, j, k.
__device__ __forceinline__ bool better4(int s, int i, int j, int k, int bs, int bi, int bj, int bk) {
  return s > bs || (s == bs && (i < bi || (i == bi && (j < bj || (j == bj && k < bk)))));
}

// Whether a square whose first row is j0 and whose largest value at slice i
// is m may hold a better end cell than (bs, bi, bj, .): a tie can win only
// by a smaller (i, j, k), and a later tile of the same rows (several passes)
// revisits slice i with smaller j than cells of an earlier one.
__device__ __forceinline__ bool may_win(int m, int i, int j0, int bs, int bi, int bj) {
  return m > bs || (m == bs && (i < bi || (i == bi && j0 <= bj)));
}

// The best of (bs, bi, bj, bk) over an aligned group of T lanes (every lane gets it).
template <int T>
__device__ __forceinline__ void group_best4(int& bs, int& bi, int& bj, int& bk) {
#pragma unroll
  for (int off = T / 2; off > 0; off /= 2) {
    const int os = SA_SHFL_XOR(bs, off), oi = SA_SHFL_XOR(bi, off);
    const int oj = SA_SHFL_XOR(bj, off), ok = SA_SHFL_XOR(bk, off);
    if (better4(os, oi, oj, ok, bs, bi, bj, bk)) { bs = os; bi = oi; bj = oj; bk = ok; }
  }
}

// The warp's memory order between the steps of a multi-pass sweep.
__device__ __forceinline__ void step_fence() {
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
  __threadfence_block();
#else
  SA_SYNCWARP();
#endif
}

// ---- lane types: one int32 cell a register, or two 16-bit cells ----

struct Lane32 : I32Cells {
  __device__ static V addmax(V a, V b, V c) { return max(a + b, c); }  // one VIADDMNMX on sm_90
  __device__ static V addmax0(V a, V b, V c) { return max(max(a + b, c), 0); }
  __device__ static int bits(V x) { return x; }
  __device__ static V from_bits(int x) { return x; }
  // the pair scores of the (one) half against letter sel (profile_selector)
  __device__ static V score(const uint32_t (&lo)[1], uint32_t hi, const uint32_t (&sel)[1]) {
    return profile_score(lo[0], hi, sel[0]);
  }
  __device__ static uint32_t selector(int code, int) { return profile_selector((uint32_t)code); }
  // the profile words of codes x[h] (hi: bytes 0, 1 of the half)
  __device__ static void profiles(const Scoring& s, const int (&x)[1], uint32_t (&lo)[1], uint32_t& hi) {
    profile6(s, x[0], lo[0], hi);
  }
  // row masks: 0 or all ones (per half)
  __device__ static V mask(bool m0, bool) { return m0 ? -1 : 0; }
  __device__ static V select(V m, V a, V b) { return (a & m) | (b & ~m); }
  // whether half h of x is v (v: its value as L::half gives it); whether it is at least v
  __device__ static bool eq(V x, int v, int) { return x == v; }
  __device__ static bool ge(V x, int v, int) { return x >= v; }
};

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
__device__ __forceinline__ uint32_t add_max16_relu(uint32_t a, uint32_t b, uint32_t c) {
  return pk16(max(max(lo16(a) + lo16(b), lo16(c)), 0), max(max(hi16(a) + hi16(b), hi16(c)), 0));
}
#else
__device__ __forceinline__ uint32_t add_max16_relu(uint32_t a, uint32_t b, uint32_t c) {
  return __viaddmax_s16x2_relu(a, b, c);
}
#endif

// 16-bit lanes: finite values stay within +-16000 (host bound), so minus infinity (NEG16) plus three
// pair scores never wraps and never wins
struct Lane16 : S16x2Cells {
  __device__ static V addmax(V a, V b, V c) { return add_max16(a, b, c); }
  __device__ static V addmax0(V a, V b, V c) { return add_max16_relu(a, b, c); }
  __device__ static int bits(V x) { return (int)x; }
  __device__ static V from_bits(int x) { return (uint32_t)x; }
  // low half: byte sel[0] of (lo[0], hi); high half: byte sel[1] of (lo[1], hi)
  __device__ static V score(const uint32_t (&lo)[2], uint32_t hi, const uint32_t (&sel)[2]) {
    const uint32_t l = byte_perm(lo[0], hi, sel[0]), h = byte_perm(lo[1], hi, sel[1]);
    return byte_perm(l, h, 0x5410u);
  }
  // hi holds bytes N, pad of half 0 then of half 1: half 1's are bytes 6, 7
  __device__ static uint32_t selector(int code, int h) {
    return profile_selector((uint32_t)(h && code > 3 ? code + 2 : code));
  }
  __device__ static void profiles(const Scoring& s, const int (&x)[2], uint32_t (&lo)[2], uint32_t& hi) {
    uint32_t h0, h1;
    profile6(s, x[0], lo[0], h0);
    profile6(s, x[1], lo[1], h1);
    hi = (h0 & 0xffffu) | (h1 << 16);
  }
  __device__ static V mask(bool m0, bool m1) { return (m0 ? 0xffffu : 0u) | (m1 ? 0xffff0000u : 0u); }
  __device__ static V select(V m, V a, V b) { return (a & m) | (b & ~m); }
  // whether half h of x is v, without taking the half out (32-bit operations: the halves of the cells
  // stay one register for the compiler too)
  __device__ static bool eq(V x, int v, int h) { return ((x ^ pk16(v, v)) & (h ? 0xffff0000u : 0xffffu)) == 0; }
  // whether half h of x is at least v: one 32-bit compare with the half on top (the half below it only
  // adds a fraction)
  __device__ static bool ge(V x, int v, int h) { return (int)(h ? x : x << 16) >= (int)((uint32_t)v << 16); }
};

// Semi-global's face masks: for x = 0 .. R-1, whether x >= f[h] (0 or all ones in half h; int32 lanes: the
// whole register), the rows r >= rf and columns c >= cf of a square. Word q holds in byte 2e + h the value
// 128 + (2q + e) - f[h], f[h] clamped to 0 .. 8 so that no byte borrows: its sign bit is set exactly where
// 2q + e >= f[h], and one byte permute spreads it over half h (one subtraction a word, one permute a mask,
// where each mask built from compares took five instructions).
template <class L, int R>
struct PastMasks {
  static_assert(R <= 8, "indices 0..7");
  uint32_t w[(R + 1) / 2];
  __device__ __forceinline__ explicit PastMasks(const int (&f)[L::H]) {
    const uint32_t f0 = (uint32_t)min(max(f[0], 0), 8), f1 = (uint32_t)min(max(f[L::H - 1], 0), 8);
    const uint32_t p = (f0 | f1 << 8) * 0x10001u;
#pragma unroll
    for (int q = 0; q < (R + 1) / 2; ++q) w[q] = 0x81818080u + 0x02020202u * q - p;
  }
  __device__ __forceinline__ typename L::V at(int x) const {
    return (typename L::V)byte_perm(w[x / 2], 0u, x % 2 ? 0xbbaau : 0x9988u);
  }
};

// The largest of x[0 .. N) by 3-way maxima, level by level (ceil((N - 1) / 2) instructions).
template <class L, int N>
__device__ __forceinline__ typename L::V tree_max(const typename L::V (&x)[N]) {
  if constexpr (N == 1) {
    return x[0];
  } else if constexpr (N == 2) {
    return L::vmax(x[0], x[1]);
  } else {
    constexpr int M = (N + 2) / 3;
    typename L::V y[M];
#pragma unroll
    for (int q = 0; q < M; ++q) {
      const int e = 3 * q;
      if (e + 2 < N) y[q] = L::vmax3(x[e], x[min(e + 1, N - 1)], x[min(e + 2, N - 1)]);
      else if (e + 1 < N) y[q] = L::vmax(x[e], x[min(e + 1, N - 1)]);
      else y[q] = x[e];
    }
    return tree_max<L, M>(y);
  }
}

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

// A's letter of slice i in each half (PAD outside 1..n1) and its pair scores against the selectors of rows
// (bsel) and columns (csel) F .. N-1: A's profile against their codes (pair scores are symmetric).
template <class L, int N, int F = 0>
__device__ __forceinline__ void a_pair_scores(const Scoring& sc, const uint8_t* const (&as)[L::H], const int (&n1)[L::H],
                                              int i, const uint32_t (&bsel)[N][L::H], const uint32_t (&csel)[N][L::H],
                                              typename L::V (&sab)[N], typename L::V (&sac)[N]) {
  int ac[L::H];
  uint32_t alo[L::H], ahi;
#pragma unroll
  for (int h = 0; h < L::H; ++h) ac[h] = (i >= 1 && i <= n1[h]) ? as[h][i - 1] : PAD;
  L::profiles(sc, ac, alo, ahi);
#pragma unroll
  for (int r = F; r < N; ++r) {
    sab[r] = L::score(alo, ahi, bsel[r]);
    sac[r] = L::score(alo, ahi, csel[r]);
  }
}

// The neighbours a cell (i, j, k) takes its seven candidates from: slice i-1 (dd = D(i-1, j-1, k-1),
// du = D(i-1, j-1, k), dl = D(i-1, j, k-1), dh = D(i-1, j, k)) and slice i (cd = D(i, j-1, k-1),
// cu = D(i, j-1, k), cl = D(i, j, k-1), the left neighbour).
template <class L>
struct Around {
  typename L::V dd, du, dl, dh, cd, cu, cl;
};

// Cell (i, j, k) from its neighbours and its pair scores (sab = s(A_i, B_j), sac, sbc), score only; slice i-1
// first, the left neighbour in the last instructions. OFF (D + 2g (i + j + k), global mode; pair scores
// + 2g): A, B, C free; M and a share the B-C score (six instructions). Else moves A, B, C take -2g; a (B-C
// pair), b (A-C), c (A-B) their pair score - 2g; M three pairs (eight; local mode floored at 0).
template <int MODE, bool OFF, class L>
__device__ __forceinline__ typename L::V cell(const Around<L>& n, typename L::V sab, typename L::V sac,
                                              typename L::V sbc, typename L::V vng2) {
  typename L::V y = L::addmax(n.dl, sac, n.dh);
  y = L::addmax(n.du, sab, y);
  if constexpr (OFF) {
    const typename L::V q = L::addmax(n.dd, L::add(sab, sac), n.cd);
    y = L::addmax(q, sbc, y);
    return L::vmax3(y, n.cu, n.cl);
  } else {
    const typename L::V m = L::add(L::add(L::add(n.dd, sab), sac), sbc);
    y = L::addmax(n.cd, sbc, y);
    y = L::vmax3(y, n.cu, n.cl);
    return MODE == LOCAL ? L::addmax0(y, vng2, m) : L::addmax(y, vng2, m);
  }
}

// ---- the sweep ----

// The first cell of the square in row-major order (its index r * R + c) whose half h is v, the largest of
// the cells (r, c) where in(r, c) holds (0 if none): scanned from the last cell back, so that the first
// match is the one written last; a cell matches where it is at least v (a compare and a select a cell)
template <class L, int R, class In>
__device__ __forceinline__ int first_cell(const typename L::V (&hv)[R][R], int v, int h, In in) {
  int e = 0;
#pragma unroll
  for (int q = R * R - 1; q >= 0; --q)
    if (L::ge(hv[q / R][q % R], v, h) & in(q / R, q % R)) e = q;
  return e;
}

// The first cell of the square in row-major order (r * R + c) whose half h is at least v, the square's
// largest, from its rows' maxima: the first row that holds v (a backward scan of R rows), then that row's
// cells picked by selects and scanned the same way (local mode: about 2R + R (R - 1) instructions where
// first_cell takes two or three a cell)
template <class L, int R>
__device__ __forceinline__ int first_cell_rows(const typename L::V (&hv)[R][R], const typename L::V (&rowm)[R],
                                               int v, int h) {
  int fr = R - 1;
#pragma unroll
  for (int r = R - 2; r >= 0; --r)
    if (L::ge(rowm[r], v, h)) fr = r;
  int fc = R - 1;
#pragma unroll
  for (int c = R - 2; c >= 0; --c) {
    typename L::V x = hv[0][c];
#pragma unroll
    for (int r = 1; r < R; ++r) x = fr == r ? hv[r][c] : x;
    if (L::ge(x, v, h)) fc = c;
  }
  return fr * R + fc;
}

// TRACE: 32-bit words of a lane's R x R direction codes at one step (row-major, four codes a word, the
// spare bytes of the last word 0)
template <int R>
struct Codes {
  static constexpr int WORDS = (R * R + 3) / 4;
};

// N ints (a multiple of 4) in 16-byte words: to memory (16-byte aligned), from memory as load_l2 reads, and
// from shared memory (word q at p[q * stride])
template <int N>
__device__ __forceinline__ void store_words(int* p, const int (&x)[N]) {
#pragma unroll
  for (int q = 0; q < N / 4; ++q)
    reinterpret_cast<int4*>(p)[q] = make_int4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]);
}
template <int N>
__device__ __forceinline__ void load_words(const int* p, int (&x)[N]) {
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const int4 w = load_l2x4(p + 4 * q);
    x[4 * q] = w.x; x[4 * q + 1] = w.y; x[4 * q + 2] = w.z; x[4 * q + 3] = w.w;
  }
}
template <int N>
__device__ __forceinline__ void unpack_words(const int4* p, int stride, int (&x)[N]) {
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const int4 w = p[q * stride];
    x[4 * q] = w.x; x[4 * q + 1] = w.y; x[4 * q + 2] = w.z; x[4 * q + 3] = w.w;
  }
}

// TRACE: candidate x of kind d replaces the best so far only when strictly larger (the first of equal kinds wins)
__device__ __forceinline__ void take_first(int& best, int& d, int x, int kind) {
  if (x > best) { best = x; d = kind; }
}

// The slices whose codes a traceback launch keeps: all of 0..n1 (m = 0), or window q of a triplet traced
// back in windows of m slices, counted from the end: [lo, hi) = [max(0, hi - m), n1 + 1 - q*m), empty
// (lo = hi = 0) once hi <= 0. Returns the steps a pass of the window's codes holds: its slices and the
// wavefront's fill and drain (hi - lo + 2S - 2; m + 2S - 2 for every window of m).
template <int S>
__device__ __forceinline__ int window_of(int n1, int m, int q, int& lo, int& hi) {
  sa::window_slices(n1, m, q, lo, hi);
  return m > 0 ? m + 2 * S - 2 : n1 + 2 * S - 1;
}

template <int MODE, int R, int T, class L, bool WAVE, bool TRACE = false, bool WIN = false, bool VALS = false>
__device__ __forceinline__ void sweep(const uint8_t* __restrict__ a, const int64_t* __restrict__ aoff,
                                      const uint8_t* __restrict__ b, const int64_t* __restrict__ boff,
                                      const uint8_t* __restrict__ c, const int64_t* __restrict__ coff,
                                      const int* __restrict__ order, int nwork, const Scoring& sc,
                                      int* __restrict__ border, const int64_t* __restrict__ border_off,
                                      int* __restrict__ out, const int* __restrict__ tiles, int ntiles,
                                      int* __restrict__ sync, uint8_t* __restrict__ dirs = nullptr,
                                      const int64_t* __restrict__ dir_off = nullptr,
                                      const int* __restrict__ wslices = nullptr, int wq = 0,
                                      int* __restrict__ ck = nullptr, const int64_t* __restrict__ ck_off = nullptr) {
  using V = typename L::V;
  constexpr int H = L::H;
  constexpr int S = Side<T>::S;
  constexpr int SR = S * R;
  // the B-C pair scores held, or looked up every cell (TRIPLET_OPT_PROF=2: looked up in int32 lanes)
  // (TRIPLET_OPT_BC: in shared memory, every R)
  constexpr bool BC_SMEM = TRIPLET_OPT_BC != 0;
  constexpr bool BC_REGS = !BC_SMEM && R * R <= 36 && !(TRIPLET_OPT_PROF >= 2 && H == 1);
  static_assert(MODE == GLOBAL || MODE == SEMI || MODE == LOCAL, "triplet modes: global, semi-global, local");
  static_assert(R >= 1 && R <= 16, "R: 1 .. 16");
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int lane = (int)(threadIdx.x % T);
  const int u = lane / S, v = lane % S;
  // the work item; in the tile wave also its tile (J0, K0), the table row g and the item's first slot
  constexpr bool wave = WAVE;  // the tile wave (the host sends ntiles > 0 to these kernels only)
  int w, g = 0, J0 = 0, K0 = 0, first = 0;
  if (wave) {
    int base = 0;
    if (threadIdx.x % SA_WARP == 0) base = atomicAdd(sync, SA_WARP / T);
    base = SA_SHFL(base, 0);
    if (base >= ntiles) return;  // the whole warp is idle
    g = base + (int)(threadIdx.x % SA_WARP) / T;
    const bool has = g < ntiles;
    w = has ? tiles[4 * g] : nwork;
    J0 = has ? tiles[4 * g + 1] : 0;
    K0 = has ? tiles[4 * g + 2] : 0;
    first = has ? tiles[4 * g + 3] : 0;
  } else {
    w = (int)(tid / T);
    if ((tid / SA_WARP) * (SA_WARP / T) >= nwork) return;  // the whole warp is idle
  }
  const bool item = w < nwork;

  // the item's triplets (one per half), their lengths and the loop's extent
  int p[H], n1[H], n2[H], n3[H];
  const uint8_t *as[H], *bs[H], *cs[H];
  bool track[H];  // the half has a DP to follow (live, and not an empty semi-global one)
  int N1 = 0, N2 = 0, N3 = 0;
  bool work = false;
#pragma unroll
  for (int h = 0; h < H; ++h) {  // item_triplet's fields, read here: through it the sweep spilled more and
                                  // ran 2-4 % slower (2026-11-28, benchmarks/decisions/triplet_small_kernel.md)
    p[h] = item ? order[H * w + h] : -1;
    const bool live = p[h] >= 0;
    const int q = live ? p[h] : 0;
    n1[h] = live ? (int)(aoff[q + 1] - aoff[q]) : 0;
    n2[h] = live ? (int)(boff[q + 1] - boff[q]) : 0;
    n3[h] = live ? (int)(coff[q + 1] - coff[q]) : 0;
    as[h] = a + (live ? aoff[q] : 0);
    bs[h] = b + (live ? boff[q] : 0);
    cs[h] = c + (live ? coff[q] : 0);
    track[h] = live && !(MODE == SEMI && (n1[h] == 0 || n2[h] == 0 || n3[h] == 0));
    work |= track[h];
    N1 = max(N1, n1[h]);
    N2 = max(N2, n2[h]);
    N3 = max(N3, n3[h]);
  }
  // the slices the launch sweeps: lo0 .. stop. WIN: window 0 (the last slices) sweeps them all and keeps each
  // half's checkpoints (ck + ck_off[p], slot q: slice lo_q - 1 of window q, every window with lo_q > 0, the
  // (n2 + 1) x (n3 + 1) values row-major); window wq > 0 stops at its last slice (its halves' largest) and
  // starts from its checkpoint where every half that has the window starts it at the same lo > 0, else at 0
  int lo0 = 0, stop = N1;
  // WIN: half h's window length m and the last slice its windows count from (n1, or the item's largest n1 where
  // the host put both halves in the same windows)
  auto win_m = [&](int h) -> int { return WIN && track[h] ? wslices[2 * p[h]] : 0; };
  auto win_last = [&](int h) -> int { return WIN && track[h] ? wslices[2 * p[h] + 1] : n1[h]; };
  int* ckw[WIN ? H : 1] = {};  // WIN: each half's checkpoint slot of window wq (nullptr: none)
  if constexpr (WIN) {
    int last = -1, start = -1;
    bool same = true;
#pragma unroll
    for (int h = 0; h < H; ++h) {
      const int m = win_m(h), top = win_last(h);
      if (m <= 0) continue;
      int l, hh;
      sa::window_slices(top, m, wq, l, hh);
      if (hh <= 0) continue;
      same &= start < 0 || l == start;
      start = l;
      last = max(last, hh - 1);
      if (ck != nullptr && wq < top / m) ckw[h] = ck + ck_off[p[h]] + (int64_t)wq * (n2[h] + 1) * (n3[h] + 1);
    }
    if (wq > 0) {
      stop = last;
      lo0 = ck != nullptr && same && start > 0 ? start : 0;
      work &= last >= 0;
    }
  }
  // WIN: the value of cell (j, k) at slice lo0 - 1 from the checkpoint (minus infinity outside a half's cube)
  auto ck_cell = [&](int j, int k) -> V {
    int x[H];
#pragma unroll
    for (int h = 0; h < H; ++h) {
      const int* src = WIN ? ckw[WIN ? h : 0] : nullptr;
      x[h] = src != nullptr && j >= 0 && k >= 0 && j <= n2[h] && k <= n3[h] ? src[(int64_t)j * (n3[h] + 1) + k]
                                                                             : L::half(L::neg(), h);
    }
    if constexpr (H == 1) return L::from_bits(x[0]);
    else return L::from_bits((int)pk16(x[0], x[H - 1]));
  };
  const int JT = (N2 + SR) / SR, KT = (N3 + SR) / SR;  // tiles covering rows 0..N2, columns 0..N3
  const int passes = work ? (wave ? 1 : JT * KT) : 0;
  const bool multi = work && JT * KT > 1;  // borders between tiles
  const int steps = stop - lo0 + 2 * S - 1;  // slices lo0..stop and the wavefront's fill and drain
  const int total = passes * steps;
  const bool multi_w = warp_any(multi);
  // a lane's borders in memory, each a whole number of 16-byte words: the row above its square (R + 1
  // values, the corner first) in BROW ints, the column on its left (R values) in BCOL ints
  constexpr int BROW = (R + 4) / 4 * 4, BCOL = (R + 3) / 4 * 4;
  const int W = KT * S * BROW;
  int* plane = border + (multi ? border_off[p[0] >= 0 ? p[0] : p[H - 1]] : 0);
  // the column buffer (the wave: one a tile row)
  int* colb = plane + (int64_t)(N1 + 1) * W + (wave ? (int64_t)J0 * (N1 + 1) * S * BCOL : 0);
  // the wave: the tiles' progress counts and best end cells; the counts seen of the tiles above and left
  int* prog = sync + 1 + nwork;
  const int slot = first + J0 * KT + K0;
  int seen_up = J0 > 0 ? 0 : 0x7fffffff, seen_left = K0 > 0 ? 0 : 0x7fffffff;
  // TRACE: each half's direction words (none for an empty semi-global triplet: no DP), laid out by the
  // triplet's own lengths (its tiles and steps: what triplet_walk reads); a step's block of CW words per
  // lane, word q of lane l at q * T + l. A half writes the steps of its own tiles and of its window only
  // (every slice 0..n1, or window wq of wslices: window_of): steps ts - lo of 0 .. std_ - 1, slices
  // ts - u - v past the window's included (the lane's own slots, which the walk does not read).
  constexpr int CW = Codes<R>::WORDS;
  uint32_t* dw[TRACE ? H : 1] = {};
  int ktd[TRACE ? H : 1] = {}, jtd[TRACE ? H : 1] = {}, std_[TRACE ? H : 1] = {}, wlo[TRACE ? H : 1] = {};
  if constexpr (TRACE) {
#pragma unroll
    for (int h = 0; h < H; ++h) {
      int hi;
      std_[h] = window_of<S>(win_last(h), win_m(h), wq, wlo[h], hi);
      dw[h] = track[h] && hi > 0 ? (uint32_t*)(dirs + dir_off[p[h]]) : nullptr;
      jtd[h] = (n2[h] + SR) / SR;
      ktd[h] = (n3[h] + SR) / SR;
    }
  }
  // TRACE: half h's block of the lane's words at step ts of tile (tj, tk), or none
  auto code_block = [&](int h, int tj, int tk, int ts) -> uint32_t* {
    const int q = TRACE ? h : 0;
    if (!TRACE || dw[q] == nullptr || tj >= jtd[q] || tk >= ktd[q] || (unsigned)(ts - wlo[q]) >= (unsigned)std_[q])
      return nullptr;
    return dw[q] + ((int64_t)(tj * ktd[q] + tk) * std_[q] + ts - wlo[q]) * (CW * T) + lane;
  };

  // best end cell seen by this lane, per half: the score in a register, its (i, j, k) in shared memory
  // during the sweep (read and written only where a square may hold a better cell), field f of half h
  // at bcell[(3 * h + f) * THREADS + x]
  int bsc[H], bi[H], bj[H], bk[H];
  __shared__ int bcell[3 * H * THREADS];
  int* const cellp = bcell + threadIdx.x;
  auto cell_i = [&](int h) -> int& { return cellp[(3 * h) * THREADS]; };
  auto cell_j = [&](int h) -> int& { return cellp[(3 * h + 1) * THREADS]; };
  auto cell_k = [&](int h) -> int& { return cellp[(3 * h + 2) * THREADS]; };
#pragma unroll
  for (int h = 0; h < H; ++h) {
    bsc[h] = MODE == GLOBAL ? NEG : 0;
    cell_i(h) = MODE == GLOBAL ? 0x7fffffff : 0;
    cell_j(h) = MODE == GLOBAL ? 0x7fffffff : 0;
    // semi-global: (0, 0, n3) is the first end-face cell, and it is 0
    cell_k(h) = MODE == GLOBAL ? 0x7fffffff : (MODE == SEMI && track[h] ? n3[h] : 0);
  }

  const int ng2 = -2 * sc.gap_extend;
  const V vng2 = L::splat(ng2);
  // Global score kernels hold D + 2g (i + j + k) (OFF), as triplet_small16 does: a residue against two gaps
  // costs nothing, each pair score is s + 2g (g2), a cell takes six instructions instead of eight, and the
  // left neighbour enters in the last one; the end cell gives the offset back. The values lie in
  // [0, (match + 2g) (i + j + k)] (cells past the ends too: their pair scores are -g + 2g), within twice the
  // bound fits16 keeps below 16000 for the item's cube and tiles. (Semi-global, where the end faces' maxima
  // would take the offset off every cell of a face square each step: 6-9 % slower,
  // benchmarks/decisions/triplet_offset_form.md.) Traceback with values (VALS) too: its bytes and checkpoints
  // are those of the offset values, as triplet_walk reads them.
  constexpr bool OFF = MODE == GLOBAL && (!TRACE || VALS) && TRIPLET_OPT_OFF;
  const V g2 = L::splat(OFF ? 2 * sc.gap_extend : 0);
  V hv[R][R];          // the lane's square: slice i-1 before a step, slice i after
  V upc[R + 1], upp[R + 1];  // row above (corner first): slice i, slice i-1
  V lfc[R], lfp[R];    // column on the left: slice i, slice i-1
  uint32_t blo[R][H], bhi[R], clo[R][H], chi[R];  // B and C profiles of the lane's rows and columns
#if TRIPLET_OPT_PROF
  uint32_t bsel[R][H], csl[R][H];  // selectors of the rows' B and the columns' C codes (A's profile per slice)
#endif
  V bc[BC_REGS ? R : 1][BC_REGS ? R : 1];         // B-C pair scores (BC_REGS)
  uint32_t csel[BC_REGS || BC_SMEM ? 1 : R][H];   // C selectors (else)
  // BC_SMEM: the lane's R x R B-C scores (row-major bits) as BQ uint4 words, word q at bcs[q * THREADS + x]
  constexpr int BQ = (R * R + 3) / 4;
  __shared__ uint4 bcs[BC_SMEM ? BQ * THREADS : 1];
  uint4* const mybc = bcs + (BC_SMEM ? threadIdx.x : 0);
  int t = 0, J = J0, K = K0, j0 = 0, k0 = 0;
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int x = 0; x < R; ++x) hv[r][x] = L::neg();
    upc[r] = upp[r] = lfc[r] = lfp[r] = L::neg();
  }
  upc[R] = upp[R] = L::neg();

  // the border buffers (two steps' of each lane, in shared memory) and their copy a step ahead (groups of 4
  // lanes: 15-18 % faster at 32 bp on an H100; groups of 16 and the wave: TRIPLET_OPT_ASYNC16), not in
  // windows (a window's first borders come from its checkpoint, read where the other path reads borders);
  // squares of 8 and more read at the step (the buffers and the B-C scores would pass 48 KB of shared memory)
  constexpr bool ASYNC = (T < 16 || (TRIPLET_OPT_ASYNC16 && R <= 7)) && !WIN;
  constexpr int NQ = (BROW + BCOL) / 4;  // 16-byte words of a lane's borders at one step
  __shared__ int4 bord[ASYNC ? 2 * NQ * THREADS : 1];
  bool ahead = false;  // this step's borders were copied at the step before
  auto copy_borders = [&](int4* buf, bool fu, bool fl, const int* above, const int* left) {
    if (fu) {
#pragma unroll
      for (int q = 0; q < BROW / 4; ++q) copy_async16(buf + q * THREADS, above + 4 * q);
    }
    if (fl) {
#pragma unroll
      for (int q = 0; q < BCOL / 4; ++q) copy_async16(buf + (BROW / 4 + q) * THREADS, left + 4 * q);
    }
  };
  int x = 0;  // the steps this group has taken (every step but in the wave, where groups wait)
  const int total_w = warp_max(total);
  // semi-global and local: the best end-cell score any lane of the group has recorded (refreshed every
  // few steps); a square whose largest value is below it cannot hold the group's end cell, and skips the
  // search for its first cell
  int gbest[H];
#pragma unroll
  for (int h = 0; h < H; ++h) gbest[h] = bsc[h];
  bool unfenced = false;  // the wave: this lane read a count since the warp's last fence
  for (int y = 0; wave ? warp_any(x < total) : y < total_w; ++y) {
    bool on = x < total;
    if (wave && multi_w) {
      // the tile wave: a step only once the tiles above and on the left have written their borders of
      // slice min(t, stop - lo0) of the sweep; the group decides as one, the warp pauses when none of its
      // groups can go
      const int need = min(t, stop - lo0) + 1;
      // ASYNC: the counts one step ahead, for the next step's copies
      const int need1 = ASYNC ? min(t + 1, stop - lo0) + 1 : need;
      if (on && seen_up < need1) { seen_up = load_count(prog + first + (J - 1) * KT + K); unfenced = true; }
      if (on && seen_left < need1) { seen_left = load_count(prog + first + J * KT + K - 1); unfenced = true; }
      const bool go = group_all<T>(on && seen_up >= need && seen_left >= need);
      on = go;
      if (!warp_any(go)) {
        backoff<TRIPLET_WAVE_SLEEP>();
        continue;
      }
      // the borders after the counts that allow them: a fence once a lane that goes has read a count since
      // the warp's last fence (not at every step)
      if (warp_any(unfenced && go)) {
        __threadfence();
        unfenced = false;
      }
    }
    if (on && t == 0) {  // a new tile: codes, profiles, slice -1
      j0 = J * SR + u * R;
      k0 = K * SR + v * R;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        int cb[H], cc[H];
#pragma unroll
        for (int h = 0; h < H; ++h) {
          const int j = j0 + r, k = k0 + r;
          cb[h] = (j >= 1 && j <= n2[h]) ? bs[h][j - 1] : PAD;
          cc[h] = (k >= 1 && k <= n3[h]) ? cs[h][k - 1] : PAD;
          if (!BC_REGS && !BC_SMEM) csel[BC_REGS || BC_SMEM ? 0 : r][h] = L::selector(cc[h], h);
#if TRIPLET_OPT_PROF
          bsel[r][h] = L::selector(cb[h], h);
          csl[r][h] = L::selector(cc[h], h);
#endif
        }
        L::profiles(sc, cb, blo[r], bhi[r]);
        L::profiles(sc, cc, clo[r], chi[r]);
      }
      if (BC_REGS) {
#pragma unroll
        for (int cx = 0; cx < R; ++cx) {
          uint32_t sel[H];
          int cc[H];
#pragma unroll
          for (int h = 0; h < H; ++h) {
            const int k = k0 + cx;
            cc[h] = (k >= 1 && k <= n3[h]) ? cs[h][k - 1] : PAD;
            sel[h] = L::selector(cc[h], h);
          }
#pragma unroll
          for (int r = 0; r < R; ++r) bc[BC_REGS ? r : 0][BC_REGS ? cx : 0] = L::add(L::score(blo[r], bhi[r], sel), g2);
        }
      }
      if constexpr (BC_SMEM) {
        // row-major: cell e = r * R + cx in component e % 4 of word e / 4
        uint32_t word[4];
#pragma unroll
        for (int q = 0; q < BQ; ++q) {
#pragma unroll
          for (int e = 4 * q; e < 4 * q + 4; ++e) {
            uint32_t x = 0;
            if (e < R * R) {
              const int r = e / R, cx = e % R;
              uint32_t sel[H];
#pragma unroll
              for (int h = 0; h < H; ++h) {
                const int k = k0 + cx;
                sel[h] = L::selector((k >= 1 && k <= n3[h]) ? cs[h][k - 1] : PAD, h);
              }
              x = (uint32_t)L::bits(L::add(L::score(blo[r], bhi[r], sel), g2));
            }
            word[e % 4] = x;
          }
          mybc[q * THREADS] = make_uint4(word[0], word[1], word[2], word[3]);
        }
      }
      // semi-global: slice 0 is a start face (0), set here and left alone at its step (a square written in
      // one branch only, so the branches need not move its registers to meet)
#pragma unroll
      for (int r = 0; r < R; ++r) {
#pragma unroll
        for (int cx = 0; cx < R; ++cx) hv[r][cx] = MODE == SEMI ? L::splat(0) : L::neg();
        upc[r] = lfc[r] = L::neg();
      }
      upc[R] = L::neg();
      // global: D(0,0,0) = 0 through the pad-pad-pad column from the corner of slice -1
      // (OFF: -3g, whose offset is -6g; the three pad pairs then score 3g)
      if (MODE == GLOBAL && J == 0 && K == 0 && u == 0 && v == 0) upc[0] = L::splat((OFF ? -3 : 3) * sc.gap_extend);
      if (WIN && lo0 > 0) {  // a window from its checkpoint: the square and its borders at slice lo0 - 1
#pragma unroll
        for (int r = 0; r < R; ++r) {
#pragma unroll
          for (int cx = 0; cx < R; ++cx) hv[r][cx] = ck_cell(j0 + r, k0 + cx);
          lfc[r] = ck_cell(j0 + r, k0 - 1);
        }
#pragma unroll
        for (int r = 0; r <= R; ++r) upc[r] = ck_cell(j0 - 1, k0 + r - 1);
      }
    }
    const int i = lo0 + t - u - v;

    // borders from the neighbours (their squares after the last step)
    V nup[R + 1], nlf[R];
#pragma unroll
    for (int r = 0; r < R; ++r) nup[r] = nlf[r] = L::neg();
    nup[R] = L::neg();
    if (S > 1) {
      nup[0] = L::from_bits(SA_SHFL_UP_W(L::bits(lfc[R - 1]), S, T));
#pragma unroll
      for (int cx = 0; cx < R; ++cx) nup[cx + 1] = L::from_bits(SA_SHFL_UP_W(L::bits(hv[R - 1][cx]), S, T));
#pragma unroll
      for (int r = 0; r < R; ++r) nlf[r] = L::from_bits(SA_SHFL_UP_W(L::bits(hv[r][R - 1]), 1, T));
    }
    const bool in = i >= lo0 && i <= stop;
    // this step's borders in memory: the row above (plane: a chunk of BROW ints a lane column K*S + v, the
    // corner, column k0 - 1, first) and the column on the left (column buffer: a chunk of BCOL ints a lane
    // row u); read by the top and left lanes, written by the bottom and right lanes of the tiles before
    const int* row = plane + (int64_t)i * W + (K * S + v) * BROW;
    const int* col = colb + (int64_t)i * (S * BCOL) + u * BCOL;
    if (on) {
#pragma unroll
      for (int r = 0; r <= R; ++r) upp[r] = upc[r];
#pragma unroll
      for (int r = 0; r < R; ++r) lfp[r] = lfc[r];
      // lanes of the tile's top row (left column) read memory where the tile has one above (on its
      // left), minus infinity elsewhere; the other lanes take their neighbours'
      const bool fu = u == 0 && J > 0 && in, fl = v == 0 && K > 0 && in;
      const bool fc = fu && (v > 0 || K > 0);  // the corner: row J*SR - 1, column k0 - 1
      if (ASYNC) {
        // borders written at earlier passes by this warp (the sweep), or by other groups (the wave: copied
        // only once the counts allow them, after the fence that follows the counts); each step's are copied
        // to shared memory a step ahead (copy_async16), their latency off the step's path. Word q of the
        // buffer of step x at bord[((x & 1) * NQ + q) * THREADS + thread]: the row's chunk, then the column's
        int4* buf = bord + (x & 1) * NQ * THREADS + threadIdx.x;
        if (!ahead) copy_borders(buf, fu, fl, row, col);
        copy_async_wait();
        int rv[BROW], cv[BCOL];
        unpack_words(buf, THREADS, rv);
        unpack_words(buf + BROW / 4 * THREADS, THREADS, cv);
#pragma unroll
        for (int r = 1; r <= R; ++r) upc[r] = u > 0 ? nup[r] : fu ? L::from_bits(rv[r]) : L::neg();
        upc[0] = u > 0 ? nup[0] : fc ? L::from_bits(rv[0]) : L::neg();
#pragma unroll
        for (int r = 0; r < R; ++r) lfc[r] = v > 0 ? nlf[r] : fl ? L::from_bits(cv[r]) : L::neg();
        // the next step's, where it is of this pass (slice i + 1)
        // (the wave: once the counts this lane read, and the fence after them, allow the next step)
        const int need1 = min(t + 1, stop - lo0) + 1;
        ahead = t + 1 < steps && (!wave || (seen_up >= need1 && seen_left >= need1));
        if (ahead) {
          const bool in1 = i + 1 >= 0 && i + 1 <= N1;
          const bool fu1 = u == 0 && J > 0 && in1, fl1 = v == 0 && K > 0 && in1;
          copy_borders(bord + ((x + 1) & 1) * NQ * THREADS + threadIdx.x, fu1, fl1, row + W, col + S * BCOL);
        }
      } else {
        // windows (and TRIPLET_OPT_ASYNC16=0: groups of 16 lanes and the tile wave, borders from other
        // multiprocessors once their counts allow): from L2 (load_l2x4), when the step needs them; step_fence
        // orders the warp's own lanes
        // WIN: a window's borders of slice lo0 - 1 from its checkpoint
        const bool pre = WIN && lo0 > 0 && i == lo0 - 1;
        int rv[BROW] = {}, cv[BCOL] = {};
        if (fu && !pre) load_words(row, rv);
        if (fl && !pre) load_words(col, cv);
#pragma unroll
        for (int r = 1; r <= R; ++r)
          upc[r] = u > 0 ? nup[r] : pre ? ck_cell(j0 - 1, k0 + r - 1) : fu ? L::from_bits(rv[r]) : L::neg();
        upc[0] = u > 0 ? nup[0] : pre ? ck_cell(j0 - 1, k0 - 1) : fc ? L::from_bits(rv[0]) : L::neg();
#pragma unroll
        for (int r = 0; r < R; ++r)
          lfc[r] = v > 0 ? nlf[r] : pre ? ck_cell(j0 + r, k0 - 1) : fl ? L::from_bits(cv[r]) : L::neg();
      }
    }
    if (multi_w) step_fence();  // border reads of this step before its writes

    if (on && in) {
      // A's letter of slice i in each half, and its pair scores against the rows and columns
#if TRIPLET_OPT_PROF
      // A's profile (pair scores are symmetric) against the rows' and columns' selectors: the B and C
      // profiles are live only at a tile's start (for the B-C scores)
      V sab[R], sac[R];
      a_pair_scores<L, R>(sc, as, n1, i, bsel, csl, sab, sac);
#else
      uint32_t asel[H];
#pragma unroll
      for (int h = 0; h < H; ++h) asel[h] = L::selector((i >= 1 && i <= n1[h]) ? as[h][i - 1] : PAD, h);
      V sab[R], sac[R];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        sab[r] = L::score(blo[r], bhi[r], asel);
        sac[r] = L::score(clo[r], chi[r], asel);
      }
#endif
      if constexpr (OFF) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          sab[r] = L::add(sab[r], g2);
          sac[r] = L::add(sac[r], g2);
        }
      }
      const bool top = MODE == SEMI && J == 0 && u == 0;    // holds row j = 0
      const bool left = MODE == SEMI && K == 0 && v == 0;   // holds column k = 0
      if (MODE == SEMI && i == 0) {
        // the square holds slice 0's zeros since the tile's start (slices before 0 compute nothing)
        if constexpr (TRACE) {
#pragma unroll
          for (int h = 0; h < H; ++h) {
            uint32_t* dst = code_block(h, J, K, lo0 + t);
            if (dst != nullptr) {
#pragma unroll
              for (int q = 0; q < CW; ++q)
                dst[q * T] = VALS ? 0u : (START * 0x01010101u) >> (q == CW - 1 ? 8 * (4 * CW - R * R) : 0);
            }
          }
        }
      } else {
        V prow[R + 1], crow[R + 1];  // the row above: slice i-1, slice i (column -1 first)
        // TRACE: this step's block of each half's direction words, and the words being filled
        uint32_t* dst[TRACE ? H : 1];
        uint32_t word[TRACE ? H : 1][TRACE ? CW : 1];
        if constexpr (TRACE) {
#pragma unroll
          for (int h = 0; h < H; ++h) dst[h] = code_block(h, J, K, lo0 + t);
        }
        // TRACE in 16-bit lanes: the moves' candidates are compared without the -2g of the six gap kinds
        // (added to the winner), so M's pair scores take +2g once a row
        V sabg[TRACE && H == 2 ? R : 1];
        if constexpr (TRACE && H == 2) {
#pragma unroll
          for (int r = 0; r < R; ++r) sabg[r] = L::add(sab[r], L::splat(-ng2));
        }
#pragma unroll
        for (int cx = 0; cx <= R; ++cx) { prow[cx] = upp[cx]; crow[cx] = upc[cx]; }
        uint4 bcw;  // BC_SMEM: the word of B-C scores being read
#pragma unroll
        for (int r = 0; r < R; ++r) {
          V pl = lfp[r], cl = lfc[r];
          V nprow[R + 1];
          int code[TRACE ? H : 1][TRACE ? R : 1];  // TRACE: the row's direction codes
          nprow[0] = lfp[r];
#pragma unroll
          for (int cx = 0; cx < R; ++cx) {
            const V pv = hv[r][cx];
            V sbc;
            if constexpr (BC_SMEM) {
              const int e = r * R + cx;
              if (cx == 0 || e % 4 == 0) bcw = mybc[(e / 4) * THREADS];
              const uint32_t b4 = e % 4 == 0 ? bcw.x : e % 4 == 1 ? bcw.y : e % 4 == 2 ? bcw.z : bcw.w;
              sbc = L::from_bits((int)b4);
            } else {
              sbc = BC_REGS ? bc[BC_REGS ? r : 0][BC_REGS ? cx : 0]
                            : L::add(L::score(blo[r], bhi[r], csel[BC_REGS || BC_SMEM ? 0 : cx]), g2);
            }
            V hn;
            if constexpr (TRACE && !VALS && H == 2) {
              // the seven kinds in tie order M a b c A B C, per half the first of the largest (max16_which:
              // a later kind replaces only when strictly larger, the CPU engine's rule)
              V best = L::add(L::add(L::add(prow[cx], sabg[r]), sac[cx]), sbc);
              int d0 = 0, d1 = 0;
              const V cand[6] = {L::add(crow[cx], sbc), L::add(pl, sac[cx]), L::add(prow[cx + 1], sab[r]),
                                 pv, crow[cx + 1], cl};
#pragma unroll
              for (int q = 0; q < 6; ++q) {
                bool kept0, kept1;
                best = max16_which(best, cand[q], kept0, kept1);
                d0 = kept0 ? d0 : q + 1;
                d1 = kept1 ? d1 : q + 1;
              }
              best = L::add(best, vng2);
              if (MODE == LOCAL) {
                // floored at 0: the alignment starts where the best is <= 0 (not max16_which against the
                // constant: ptxas 13.0 moves the zero to the second operand without swapping the predicates)
                const uint32_t pos = gt16(best, 0u);  // 0xffff in the halves above 0
                d0 = (pos & 0xffffu) ? d0 : START;
                d1 = (pos >> 16) ? d1 : START;
                best = L::vmax(best, L::splat(0));
              }
              if ((MODE == GLOBAL && i == 0 && j0 + r == 0 && k0 + cx == 0) || (left && cx == 0)) {
                d0 = START;
                d1 = START;
              }
              hn = left && cx == 0 ? L::splat(0) : best;
              code[0][cx] = d0;
              code[TRACE ? H - 1 : 0][cx] = d1;
            } else if constexpr (TRACE && !VALS) {
              // the seven kinds in tie order M a b c A B C, the first of the largest wins (the CPU engine's rule)
              int best = prow[cx] + sab[r] + sac[cx] + sbc, d = 0;
              take_first(best, d, crow[cx] + sbc + ng2, 1);
              take_first(best, d, pl + sac[cx] + ng2, 2);
              take_first(best, d, prow[cx + 1] + sab[r] + ng2, 3);
              take_first(best, d, pv + ng2, 4);
              take_first(best, d, crow[cx + 1] + ng2, 5);
              take_first(best, d, cl + ng2, 6);
              if (MODE == LOCAL && best <= 0) { best = 0; d = START; }
              // global: the origin (0 through the corner of slice -1) is where every alignment starts
              if (MODE == GLOBAL && i == 0 && j0 + r == 0 && k0 + cx == 0) d = START;
              if (left && cx == 0) { best = 0; d = START; }
              hn = best;
              code[0][TRACE ? cx : 0] = d;
            } else {
              if constexpr (TRIPLET_OPT_CHAIN != 0 || OFF) {
                hn = cell<MODE, OFF, L>({prow[cx], prow[cx + 1], pl, pv, crow[cx], crow[cx + 1], cl}, sab[r],
                                        sac[cx], sbc, vng2);
              } else {  // the left neighbour in the first instruction (TRIPLET_OPT_CHAIN=0)
                V y = L::vmax3(pv, crow[cx + 1], cl);
                y = L::addmax(crow[cx], sbc, y);
                y = L::addmax(pl, sac[cx], y);
                y = L::addmax(prow[cx + 1], sab[r], y);
                y = L::add(y, vng2);
                const V m = L::add(L::add(prow[cx], sab[r]), sac[cx]);
                hn = MODE == LOCAL ? L::addmax0(m, sbc, y) : L::addmax(m, sbc, y);
              }
              if (left && cx == 0) hn = L::splat(0);
            }
            nprow[cx + 1] = pv;
            pl = pv;
            hv[r][cx] = hn;
            cl = hn;
          }
          if (top && r == 0) {
#pragma unroll
            for (int cx = 0; cx < R; ++cx) hv[0][cx] = L::splat(0);
            if constexpr (TRACE && !VALS) {
#pragma unroll
              for (int h = 0; h < H; ++h)
#pragma unroll
                for (int cx = 0; cx < R; ++cx) code[TRACE ? h : 0][TRACE ? cx : 0] = START;
            }
          }
          if constexpr (VALS) {
            // the words the row completes, from the square's values: the low bytes of four cells (bytes 0 and
            // 2 of a register: half 0's and half 1's) by byte permutes, 2 + H for a word of each half
#pragma unroll
            for (int q = 0; q < CW; ++q) {
              const int last = min(4 * q + 3, R * R - 1);
              if (last >= r * R && last < (r + 1) * R) {
                uint32_t c4[4];
#pragma unroll
                for (int e = 0; e < 4; ++e)
                  c4[e] = 4 * q + e < R * R ? (uint32_t)L::bits(hv[(4 * q + e) / R][(4 * q + e) % R]) : 0u;
                const uint32_t x = byte_perm(c4[0], c4[1], 0x6240u), y = byte_perm(c4[2], c4[3], 0x6240u);
#pragma unroll
                for (int h = 0; h < H; ++h)
                  if (dst[h] != nullptr) dst[h][q * T] = byte_perm(x, y, h ? 0x7632u : 0x5410u);
              }
            }
          } else if constexpr (TRACE) {
            // the row's codes into the words, then the words the row completes to memory
#pragma unroll
            for (int h = 0; h < H; ++h) {
              const int hh = TRACE ? h : 0;
#pragma unroll
              for (int cx = 0; cx < R; ++cx) {
                const int e = r * R + cx;
                const uint32_t bits = (uint32_t)code[hh][TRACE ? cx : 0] << (8 * (e % 4));
                word[hh][TRACE ? e / 4 : 0] = e % 4 == 0 ? bits : (word[hh][TRACE ? e / 4 : 0] | bits);
              }
              if (dst[hh] != nullptr) {
#pragma unroll
                for (int q = 0; q < CW; ++q) {
                  const int last = min(4 * q + 3, R * R - 1);
                  if (last >= r * R && last < (r + 1) * R) dst[hh][q * T] = word[hh][TRACE ? q : 0];
                }
              }
            }
          }
#pragma unroll
          for (int cx = 0; cx <= R; ++cx) prow[cx] = nprow[cx];
          crow[0] = lfc[r];
#pragma unroll
          for (int cx = 0; cx < R; ++cx) crow[cx + 1] = hv[r][cx];
        }
      }
      if constexpr (WIN) {
        // window 0 sweeps every slice: the slices below the other windows to their checkpoints
#pragma unroll
        for (int h = 0; h < H; ++h) {
          const int m = win_m(h), d = win_last(h) - i;
          if (wq == 0 && ck != nullptr && m > 0 && d >= m && d % m == 0) {
            int* dst = ck + ck_off[p[h]] + (int64_t)(d / m - 1) * (n2[h] + 1) * (n3[h] + 1);
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
              for (int cx = 0; cx < R; ++cx)
                if (j0 + r <= n2[h] && k0 + cx <= n3[h])
                  dst[(int64_t)(j0 + r) * (n3[h] + 1) + k0 + cx] = L::half(hv[r][cx], h);
          }
        }
      }

      // end cells
      if (MODE == LOCAL) {
        // the square's largest from its rows' largest, which then point to its first cell
        V rowm[R];
#pragma unroll
        for (int r = 0; r < R; ++r) rowm[r] = tree_max<L, R>(hv[r]);
        const V m = tree_max<L, R>(rowm);
#pragma unroll
        for (int h = 0; h < H; ++h) {
          const int mh = L::half(m, h);
          if (track[h] && mh >= gbest[h] && may_win(mh, i, j0, bsc[h], cell_i(h), cell_j(h))) {
            const int e = first_cell_rows<L, R>(hv, rowm, mh, h);
            const int fr = e / R, fc = e - fr * R;
            if (better4(mh, i, j0 + fr, k0 + fc, bsc[h], cell_i(h), cell_j(h), cell_k(h))) {
              bsc[h] = mh; cell_i(h) = i; cell_j(h) = j0 + fr; cell_k(h) = k0 + fc;
            }
          }
        }
      }
      if (MODE == SEMI && i > 0) {
        // end faces: rows j >= n2, columns k >= n3, slices i >= n1 (cells past the ends never win)
        bool face[H], any = false;
        int rf[H], cf[H];
#pragma unroll
        for (int h = 0; h < H; ++h) {
          rf[h] = i >= n1[h] ? 0 : n2[h] - j0;  // first face row of the square (all rows on the last slice)
          cf[h] = n3[h] - k0;
          face[h] = track[h] && (rf[h] < R || cf[h] < R);
          any |= face[h];
        }
        if (any) {
          V rowm[R], colm[R];
          const PastMasks<L, R> rmask(rf), cmask(cf);
#pragma unroll
          for (int r = 0; r < R; ++r) {
            rowm[r] = hv[r][0];
#pragma unroll
            for (int cx = 1; cx < R; ++cx) rowm[r] = L::vmax(rowm[r], hv[r][cx]);
          }
#pragma unroll
          for (int cx = 0; cx < R; ++cx) {
            colm[cx] = hv[0][cx];
#pragma unroll
            for (int r = 1; r < R; ++r) colm[cx] = L::vmax(colm[cx], hv[r][cx]);
          }
          V m = L::neg();
#pragma unroll
          for (int r = 0; r < R; ++r) m = L::vmax(m, L::select(rmask.at(r), rowm[r], L::neg()));
#pragma unroll
          for (int cx = 0; cx < R; ++cx)
            m = L::vmax(m, L::select(cmask.at(cx), colm[cx], L::neg()));
#pragma unroll
          for (int h = 0; h < H; ++h) {
            const int mh = L::half(m, h);
            if (face[h] && mh >= gbest[h] && may_win(mh, i, j0, bsc[h], cell_i(h), cell_j(h))) {
              const int e = first_cell<L, R>(hv, mh, h, [&](int r, int cx) { return r >= rf[h] || cx >= cf[h]; });
              const int fr = e / R, fc = e - fr * R;
              if (better4(mh, i, j0 + fr, k0 + fc, bsc[h], cell_i(h), cell_j(h), cell_k(h))) {
                bsc[h] = mh; cell_i(h) = i; cell_j(h) = j0 + fr; cell_k(h) = k0 + fc;
              }
            }
          }
        }
      }
      if (MODE == GLOBAL) {
#pragma unroll
        for (int h = 0; h < H; ++h) {
          const int rr = n2[h] - j0, cc = n3[h] - k0;
          if (track[h] && i == n1[h] && rr >= 0 && rr < R && cc >= 0 && cc < R) {
            V e = hv[0][0];
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
              for (int cx = 0; cx < R; ++cx)
                if (r == rr && cx == cc) e = hv[r][cx];
            bsc[h] = L::half(e, h) - (OFF ? 2 * sc.gap_extend * (n1[h] + n2[h] + n3[h]) : 0);
            cell_i(h) = n1[h]; cell_j(h) = n2[h]; cell_k(h) = n3[h];
          }
        }
      }

      // borders for the next tiles, in 16-byte stores: the bottom row with the corner in front (the last
      // value of the column on the left: cell (j0 + R - 1, k0 - 1)), the right column; spare ints 0
      if (J < JT - 1 && u == S - 1) {
        int x4[BROW] = {};
        x4[0] = L::bits(lfc[R - 1]);
#pragma unroll
        for (int cx = 0; cx < R; ++cx) x4[1 + cx] = L::bits(hv[R - 1][cx]);
        store_words(const_cast<int*>(row), x4);
      }
      if (K < KT - 1 && v == S - 1) {
        int x4[BCOL] = {};
#pragma unroll
        for (int r = 0; r < R; ++r) x4[r] = L::bits(hv[r][R - 1]);
        store_words(const_cast<int*>(col), x4);
      }
    }
    // the wave: every TRIPLET_WAVE_EVERY slices (and the last), the count of slices whose borders every
    // lane has written, behind a fence for the borders
    const int done = t - 2 * S + 3;
    const bool count = wave && on && done > 0 && (done % TRIPLET_WAVE_EVERY == 0 || done == stop - lo0 + 1);
    const bool publish = wave && multi_w && warp_any(count);
    if (publish) __threadfence();
    if (multi_w) step_fence();  // this step's writes before the next step's reads
    if (publish && count && lane == 0) *(volatile int*)(prog + slot) = done;
    if (MODE != GLOBAL && y % TRIPLET_BEST_EVERY == 0) {
#pragma unroll
      for (int h = 0; h < H; ++h) gbest[h] = warp_max<T>(bsc[h]);
    }
    if (on) {
      ++x;
      if (++t == steps) {
        t = 0;
        if (++K == KT) { K = 0; ++J; }
      }
    }
  }

#pragma unroll
  for (int h = 0; h < H; ++h) {
    bi[h] = cell_i(h); bj[h] = cell_j(h); bk[h] = cell_k(h);
    group_best4<T>(bsc[h], bi[h], bj[h], bk[h]);
  }
  bool write = lane == 0;
  if (wave) {
    // the tile's best end cells; the group that finishes the item's last tile reduces every tile's
    write = false;
    if (item && lane == 0) {
      int* best = prog + ntiles;
#pragma unroll
      for (int h = 0; h < H; ++h) {
        int* rec = best + ((int64_t)slot * H + h) * 4;
        rec[0] = bsc[h]; rec[1] = bi[h]; rec[2] = bj[h]; rec[3] = bk[h];
      }
      __threadfence();
      if (atomicAdd(sync + 1 + w, 1) == JT * KT - 1) {
        __threadfence();
        for (int q = first; q < first + JT * KT; ++q) {
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
  }
#pragma unroll
  for (int h = 0; h < H; ++h) {
    if (p[h] >= 0 && write && !(WIN && wq > 0)) {  // a window below the last: the end cells are known
      int* o = out + 4 * (int64_t)p[h];
      if (track[h]) { o[0] = bsc[h]; o[1] = bi[h]; o[2] = bj[h]; o[3] = bk[h]; }
      else { o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0; }  // semi-global with an empty sequence
    }
  }
}

// ---- triplet_small16: a whole slice a thread ----

// Q x Q cells of two triplets (16-bit halves), swept along i by one thread. order: items of two triplets
// (-1: none), every n2, n3 < Q.
template <int MODE, int Q>
__device__ __forceinline__ void small_sweep(const uint8_t* __restrict__ a, const int64_t* __restrict__ aoff,
                                            const uint8_t* __restrict__ b, const int64_t* __restrict__ boff,
                                            const uint8_t* __restrict__ c, const int64_t* __restrict__ coff,
                                            const int* __restrict__ order, int nwork, const Scoring& sc,
                                            int* __restrict__ out) {
  using L = Lane16;
  using V = L::V;
  constexpr int H = 2;
  static_assert(MODE == GLOBAL || MODE == SEMI || MODE == LOCAL, "triplet modes: global, semi-global, local");
  static_assert(Q >= 2 && Q <= 12, "Q: 2 .. 12");
  const int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (w >= nwork) return;
  int p[H], n1[H], n2[H], n3[H];
  const uint8_t *as[H], *bs[H], *cs[H];
  bool track[H];
  int N1 = 0;
  uint32_t bsel[Q][H], csel[Q][H];  // selectors of the B codes of rows 1..Q-1, the C codes of columns 1..Q-1
#pragma unroll
  for (int h = 0; h < H; ++h) {
    p[h] = order[H * w + h];
    const ItemTriplet t = item_triplet<MODE>(p[h], a, aoff, b, boff, c, coff);
    n1[h] = t.n1; n2[h] = t.n2; n3[h] = t.n3;
    as[h] = t.a; bs[h] = t.b; cs[h] = t.c;
    track[h] = t.track;
    N1 = max(N1, track[h] ? n1[h] : 0);
  }
#pragma unroll
  for (int r = 1; r < Q; ++r) {
    int cb[H], cc[H];
#pragma unroll
    for (int h = 0; h < H; ++h) {
      cb[h] = r <= n2[h] ? bs[h][r - 1] : PAD;
      cc[h] = r <= n3[h] ? cs[h][r - 1] : PAD;
    }
#pragma unroll
    for (int h = 0; h < H; ++h) {
      bsel[r][h] = L::selector(cb[h], h);
      csel[r][h] = L::selector(cc[h], h);
    }
  }
  // Global mode holds D + 2g (i + j + k) (OFF): a residue against two gaps then costs nothing, each pair score
  // is s + 2g (g2), and a cell takes six instructions, not eight; the end cell gives the offset back. Such a
  // value lies in [0, (match + 2g) (i + j + k)] (D is at least the alignment of every residue alone, at most
  // match a residue), below 2 max(match, 2g) (N1 + 2Q): what fits16 keeps under 2 x 16000.
  constexpr bool OFF = MODE == GLOBAL;
  const V g2 = L::splat(OFF ? 2 * sc.gap_extend : 0);
  // the B-C pair scores (+ g2) of rows and columns 1..Q-1, row-major, cell e in component e % 4 of word e / 4
  constexpr int E = (Q - 1) * (Q - 1), BQ = (E + 3) / 4;
  __shared__ uint4 bcs[BQ * THREADS];
  uint4* const mybc = bcs + threadIdx.x;
#pragma unroll
  for (int q = 0; q < BQ; ++q) {
    uint32_t word[4];
#pragma unroll
    for (int e = 4 * q; e < 4 * q + 4; ++e) {
      uint32_t x = 0;
      if (e < E) {
        // C's profile against B's selector (pair scores are symmetric)
        const int r = e / (Q - 1) + 1, cx = e % (Q - 1) + 1;
        int cc[H];
#pragma unroll
        for (int h = 0; h < H; ++h) cc[h] = cx <= n3[h] ? cs[h][cx - 1] : PAD;
        uint32_t lo[H], hi;
        L::profiles(sc, cc, lo, hi);
        x = L::add(L::score(lo, hi, bsel[r]), g2);
      }
      word[e % 4] = x;
    }
    mybc[q * THREADS] = make_uint4(word[0], word[1], word[2], word[3]);
  }

  // best end cell of each half: semi-global starts at (0, 0, n3), the first end-face cell (0)
  int bsc[H], bi[H], bj[H], bk[H];
#pragma unroll
  for (int h = 0; h < H; ++h) {
    bsc[h] = MODE == GLOBAL ? NEG : 0;
    bi[h] = 0; bj[h] = 0;
    bk[h] = MODE == SEMI && track[h] ? n3[h] : 0;
  }
  // semi-global: whether every triplet of the item fills the slice (its end faces: row and column Q-1), and the
  // slices before the first of their last ones
  bool side_q = true;
  int last = N1;
#pragma unroll
  for (int h = 0; h < H; ++h) {
    side_q &= !track[h] || (n2[h] == Q - 1 && n3[h] == Q - 1);
    last = track[h] ? min(last, n1[h]) : last;
  }
  const V vng2 = L::splat(-2 * sc.gap_extend);
  V hv[Q][Q];
  for (int i = 0; i <= N1; ++i) {
    if (i == 0) {
      // slice 0: the moves within the slice (a, B, C); global's origin 0, local floored at 0
#pragma unroll
      for (int r = 0; r < Q; ++r) {
#pragma unroll
        for (int cx = 0; cx < Q; ++cx) {
          V x;
          if (MODE == SEMI || (r == 0 && cx == 0)) {
            x = L::splat(0);
          } else {
            V y;
            if (r > 0 && cx > 0) {
              const int e = (r - 1) * (Q - 1) + cx - 1;
              const uint4 wd = mybc[(e / 4) * THREADS];
              const V sbc = e % 4 == 0 ? wd.x : e % 4 == 1 ? wd.y : e % 4 == 2 ? wd.z : wd.w;
              y = L::addmax(hv[r - 1][cx - 1], sbc, L::vmax(hv[r - 1][cx], hv[r][cx - 1]));
            } else {
              y = r > 0 ? hv[r - 1][cx] : hv[r][cx - 1];
            }
            x = MODE == LOCAL ? L::vmax(L::add(y, vng2), L::splat(0)) : OFF ? y : L::add(y, vng2);
          }
          hv[r][cx] = x;
        }
      }
    } else {
      // A's letter in each half and its pair scores against the rows and the columns
      V sab[Q], sac[Q];
      a_pair_scores<L, Q, 1>(sc, as, n1, i, bsel, csel, sab, sac);
      if (OFF) {
#pragma unroll
        for (int r = 1; r < Q; ++r) {
          sab[r] = L::add(sab[r], g2);
          sac[r] = L::add(sac[r], g2);
        }
      }
      V prow[Q];  // row r-1 of slice i-1 (hv held it before row r-1 took slice i)
#pragma unroll
      for (int r = 0; r < Q; ++r) {
        V old[Q];  // row r of slice i-1
#pragma unroll
        for (int cx = 0; cx < Q; ++cx) old[cx] = hv[r][cx];
        uint4 wd;
#pragma unroll
        for (int cx = 0; cx < Q; ++cx) {
          const V pv = old[cx];
          V x;
          if (MODE == SEMI && (r == 0 || cx == 0)) {
            x = L::splat(0);  // start faces
          } else if (r > 0 && cx > 0) {
            const int e = (r - 1) * (Q - 1) + cx - 1;
            if (cx == 1 || e % 4 == 0) wd = load_shared_here(mybc + (e / 4) * THREADS);
            const V sbc = e % 4 == 0 ? wd.x : e % 4 == 1 ? wd.y : e % 4 == 2 ? wd.z : wd.w;
            x = cell<MODE, OFF, L>({prow[cx - 1], prow[cx], old[cx - 1], pv, hv[r - 1][cx - 1], hv[r - 1][cx],
                                    hv[r][cx - 1]}, sab[r], sac[cx], sbc, vng2);
          } else {
            // column 0: A, c and B; row 0: A, b and C; the corner: A
            V y = pv;
            if (r > 0) y = L::vmax(L::addmax(prow[0], sab[r], pv), hv[r - 1][0]);
            if (cx > 0) y = L::vmax(L::addmax(old[cx - 1], sac[cx], pv), hv[0][cx - 1]);
            x = MODE == LOCAL ? L::addmax0(y, vng2, L::neg()) : OFF ? y : L::add(y, vng2);
          }
          hv[r][cx] = x;
        }
#pragma unroll
        for (int cx = 0; cx < Q; ++cx) prow[cx] = old[cx];
      }
    }

    // end cells of slice i
    if (MODE == GLOBAL) {
      if (i == n1[0] || i == n1[1]) {
        // cell (n2, n3) of each half by masks (an index into the registers would copy them to memory)
        V e = L::neg();
#pragma unroll
        for (int r = 0; r < Q; ++r)
#pragma unroll
          for (int cx = 0; cx < Q; ++cx)
            e = L::vmax(e, L::select(L::mask(r == n2[0] && cx == n3[0], r == n2[1] && cx == n3[1]), hv[r][cx],
                                     L::neg()));
#pragma unroll
        for (int h = 0; h < H; ++h) {
          if (track[h] && i == n1[h]) {
            bsc[h] = L::half(e, h) - 2 * sc.gap_extend * (n1[h] + n2[h] + n3[h]);
            bi[h] = i; bj[h] = n2[h]; bk[h] = n3[h];
          }
        }
      }
    } else if (MODE == LOCAL || i > 0) {
      // local: every cell; semi-global: the end faces (rows j >= n2, columns k >= n3, every cell of slices
      // i >= n1). Cells past a triplet's ends never exceed the cell they project on, which comes first.
      // Each row's largest candidate, then the slice's; a row is searched only where its largest is the best.
      // semi-global, both triplets of side Q before their last slice: row and column Q-1
      const bool fast = MODE == SEMI && side_q && i < last;
      V rowm[Q];
      if (MODE == LOCAL) {
#pragma unroll
        for (int r = 0; r < Q; ++r) rowm[r] = tree_max<L, Q>(hv[r]);
      } else if (fast) {
#pragma unroll
        for (int r = 0; r < Q - 1; ++r) rowm[r] = hv[r][Q - 1];
        rowm[Q - 1] = tree_max<L, Q>(hv[Q - 1]);
      } else {
        // cells off the faces count as 0, which never passes a face's best (each slice's face holds the
        // start-face cell (i, n2, 0) = 0)
        V cm[Q];
#pragma unroll
        for (int cx = 0; cx < Q; ++cx) cm[cx] = L::mask(cx >= n3[0], cx >= n3[1]);
#pragma unroll
        for (int r = 0; r < Q; ++r) {
          const V rm = L::mask(r >= n2[0] || i >= n1[0], r >= n2[1] || i >= n1[1]);
          V x[Q];
#pragma unroll
          for (int cx = 0; cx < Q; ++cx) x[cx] = hv[r][cx] & (rm | cm[cx]);
          rowm[r] = tree_max<L, Q>(x);
        }
      }
      const V m = tree_max<L, Q>(rowm);
#pragma unroll
      for (int h = 0; h < H; ++h) {
        const int mh = L::half(m, h);
        if (track[h] && mh > bsc[h]) {  // a later slice wins only by a larger score
          int fr = -1, fc = -1;
          if (fast) {  // rows 0 .. Q-2: their last cell
#pragma unroll
            for (int r = 0; r < Q - 1; ++r)
              if (fr < 0 && L::eq(rowm[r], mh, h)) { fr = r; fc = Q - 1; }
            if (fr < 0) {
              fr = Q - 1;
#pragma unroll
              for (int cx = 0; cx < Q; ++cx)
                if (fc < 0 && L::eq(hv[Q - 1][cx], mh, h)) fc = cx;
            }
          } else {
#pragma unroll
            for (int r = 0; r < Q; ++r) {
              if (fc < 0 && L::eq(rowm[r], mh, h)) {
#pragma unroll
                for (int cx = 0; cx < Q; ++cx)
                  if (fc < 0 && (MODE == LOCAL || r >= n2[h] || cx >= n3[h] || i >= n1[h]) &&
                      L::eq(hv[r][cx], mh, h)) {
                    fr = r;
                    fc = cx;
                  }
              }
            }
          }
          bsc[h] = mh; bi[h] = i; bj[h] = fr; bk[h] = fc;
        }
      }
    }
  }
#pragma unroll
  for (int h = 0; h < H; ++h) {
    if (p[h] >= 0) {
      int* o = out + 4 * (int64_t)p[h];
      if (track[h]) { o[0] = bsc[h]; o[1] = bi[h]; o[2] = bj[h]; o[3] = bk[h]; }
      else { o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0; }  // semi-global with an empty sequence
    }
  }
}

}  // namespace tri

#define TRIPLET_PARAMS                                                                                  \
  const uint8_t *__restrict__ a, const int64_t *__restrict__ aoff, const uint8_t *__restrict__ b,     \
      const int64_t *__restrict__ boff, const uint8_t *__restrict__ c, const int64_t *__restrict__ coff, \
      const int *__restrict__ order, int nwork, int match, int mismatch, int gap_open, int gap_extend,   \
      int n_penalty, int *__restrict__ border, const int64_t *__restrict__ border_off, int *__restrict__ out, \
      const int *__restrict__ tiles, int ntiles, int *__restrict__ sync

template <int MODE, int R, int T, int W>
__global__ void TRIPLET_SCORE_BOUNDS triplet_score(TRIPLET_PARAMS) {
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane32, W != 0>(a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off,
                                              out, tiles, ntiles, sync);
}

template <int MODE, int R, int T, int W>
__global__ void TRIPLET_SCORE16_BOUNDS triplet_score16(TRIPLET_PARAMS) {
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane16, W != 0>(a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off,
                                              out, tiles, ntiles, sync);
}

template <int MODE, int Q>
__global__ void TRIPLET_SMALL_BOUNDS triplet_small16(TRIPLET_PARAMS) {
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::small_sweep<MODE, Q>(a, aoff, b, boff, c, coff, order, nwork, sc, out);
}

template <int MODE, int R, int T, int W>
__global__ void TRIPLET_TRACE_BOUNDS triplet_trace(TRIPLET_PARAMS, uint8_t* __restrict__ dirs,
                                                   const int64_t* __restrict__ dir_off,
                                                   const int* __restrict__ wslices, int wq, int* __restrict__ ck,
                                                   const int64_t* __restrict__ ck_off) {
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane32, (W & 1) != 0, true, (W & 2) != 0, (W & 4) != 0>(
      a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off, out, tiles, ntiles, sync, dirs, dir_off,
      wslices, wq, ck, ck_off);
}

template <int MODE, int R, int T, int W>
__global__ void TRIPLET_TRACE16_BOUNDS triplet_trace16(TRIPLET_PARAMS, uint8_t* __restrict__ dirs,
                                                     const int64_t* __restrict__ dir_off,
                                                     const int* __restrict__ wslices, int wq, int* __restrict__ ck,
                                                     const int64_t* __restrict__ ck_off) {
  const Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane16, (W & 1) != 0, true, (W & 2) != 0, (W & 4) != 0>(
      a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off, out, tiles, ntiles, sync, dirs, dir_off,
      wslices, wq, ck, ck_off);
}

// One thread a triplet: from the end cell triplet_trace<MODE, R, T, W> (or triplet_trace16) found (out),
// back through the codes of the triplet (their layout) to the first START, then the runs of kinds in
// forward order.
template <int MODE, int R, int T>
__global__ void __launch_bounds__(tri::THREADS)
    triplet_walk(const int* __restrict__ order, int nwork, const int64_t* __restrict__ aoff,
                 const int64_t* __restrict__ boff, const int64_t* __restrict__ coff, const int* __restrict__ out,
                 const uint8_t* __restrict__ dirs, const int64_t* __restrict__ dir_off,
                 const int64_t* __restrict__ run_off, uint8_t* __restrict__ run_op, int* __restrict__ run_len,
                 int* __restrict__ info, const int* __restrict__ wslices, int wq, const int* __restrict__ ck,
                 const int64_t* __restrict__ ck_off, const uint8_t* __restrict__ a,
                 const uint8_t* __restrict__ b, const uint8_t* __restrict__ c, int match, int mismatch,
                 int gap_extend, int n_penalty, int vals) {
  const int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (w >= nwork) return;
  const int p = order[w];
  if (p < 0) return;
  const int n1 = (int)(aoff[p + 1] - aoff[p]), n2 = (int)(boff[p + 1] - boff[p]), n3 = (int)(coff[p + 1] - coff[p]);
  int* inf = info + 4 * (int64_t)p;
  if (MODE == SEMI && (n1 == 0 || n2 == 0 || n3 == 0)) {  // no DP: the empty alignment at (0, 0, 0)
    inf[0] = 0; inf[1] = 0; inf[2] = 0; inf[3] = 0;
    return;
  }
  // the layout of triplet_trace<MODE, R, T, W>: tile, step, word, lane (see the header), of window wq
  constexpr int S = tri::Side<T>::S, SR = S * R, CW = tri::Codes<R>::WORDS;
  const uint8_t* base = dirs + dir_off[p];
  const int m = wslices != nullptr ? wslices[2 * p] : 0;
  const int last = m > 0 ? wslices[2 * p + 1] : n1;  // the slice its windows count from
  int lo, hi;
  const int64_t KT = (n3 + SR) / SR, steps = tri::window_of<S>(last, m, wq, lo, hi);
  uint8_t* op = run_op + run_off[p];
  int* len = run_len + run_off[p];
  int i, j, k, nr = 0, cur = -1, count = 0;
  if (m > 0 && wq > 0) {  // a window below the first: the walk goes on where the window above left it
    if (inf[3] >= 0 || hi <= 0) return;  // the walk has ended
    i = inf[0]; j = inf[1]; k = inf[2]; nr = -inf[3] - 1;
    if (nr > 0) { --nr; cur = op[nr]; count = len[nr]; }  // the last run may go on
  } else {
    i = out[4 * (int64_t)p + 1]; j = out[4 * (int64_t)p + 2]; k = out[4 * (int64_t)p + 3];
  }
  // the byte of cell (i, j, k): its code, or (vals) the low byte of its value
  auto at = [&](int i, int j, int k) -> int {
    const int J = j / SR, K = k / SR, jj = j - J * SR, kk = k - K * SR;
    const int u = jj / R, v = kk / R, e = (jj - u * R) * R + (kk - v * R);
    const int64_t x = (J * KT + K) * steps + (i - lo + u + v);
    return base[((x * CW + e / 4) * T + u * S + v) * 4 + e % 4];
  };
  const Scoring sc{match, mismatch, 0, gap_extend, n_penalty};
  const uint8_t *as = a + aoff[p] - 1, *bs = b + boff[p] - 1, *cs = c + coff[p] - 1;  // residue i at as[i]
  // vals in windows: the checkpoints triplet_trace kept (slot q: slice lo_q - 1 of window q, (n2 + 1) x (n3 + 1))
  const int64_t area = (int64_t)(n2 + 1) * (n3 + 1);
  const int* ckp = vals && m > 0 ? ck + ck_off[p] : nullptr;
  // vals: the value X of the cell the walk stands on: the end cell's score, or where the walk left the window
  // above (slice lo - 1 of that window: its checkpoint). Global mode: the sweep held D + 2g (i + j + k) (its
  // offset form, TRIPLET_OPT_OFF), and so do the bytes and the checkpoints; X is D.
  constexpr bool OFF = MODE == GLOBAL && TRIPLET_OPT_OFF;
  int X = out[4 * (int64_t)p];
  if (ckp != nullptr && wq > 0 && nr + (cur >= 0) > 0)
    X = ckp[(wq - 1) * area + (int64_t)j * (n3 + 1) + k] - (OFF ? 2 * gap_extend * (i + j + k) : 0);
  // runs from the end back (a triplet's room: n1 + n2 + n3 + 1 runs, at most one a column)
  bool done = true;
  while (i >= 0 && j >= 0 && k >= 0) {
    if (i < lo) { done = false; break; }  // below the window: the next window's walk goes on
    int d = tri::START;
    if (vals) {
      // the first kind in tie order whose candidate is the cell's value: its neighbour's low byte is that of
      // X minus the kind's column score (exact: no candidate falls 256 or more below X, values_fit)
      if (MODE == GLOBAL ? (i | j | k) == 0 : MODE == SEMI ? (i == 0 || j == 0 || k == 0) : X <= 0) break;
      const int g2 = 2 * gap_extend;
      const int sab = i && j ? sa::subst(sc, as[i], bs[j]) : 0, sac = i && k ? sa::subst(sc, as[i], cs[k]) : 0;
      const int sbc = j && k ? sa::subst(sc, bs[j], cs[k]) : 0;
      const int di[7] = {1, 0, 1, 1, 1, 0, 0}, dj[7] = {1, 1, 0, 1, 0, 1, 0}, dk[7] = {1, 1, 1, 0, 0, 0, 1};
      const int col[7] = {sab + sac + sbc, sbc - g2, sac - g2, sab - g2, -g2, -g2, -g2};
      int nb[7];  // the neighbours' bytes, loaded together (one wait a step), -1 outside the cube
#pragma unroll
      for (int q = 0; q < 7; ++q)
        nb[q] = i < di[q] || j < dj[q] || k < dk[q] ? -1
                : i - di[q] >= lo ? at(i - di[q], j - dj[q], k - dk[q])
                                  : ckp[wq * area + (int64_t)(j - dj[q]) * (n3 + 1) + k - dk[q]] & 0xff;
#pragma unroll
      for (int q = 6; q >= 0; --q)
        d = nb[q] == ((X - col[q] + (OFF ? g2 * (i - di[q] + j - dj[q] + k - dk[q]) : 0)) & 0xff) ? q : d;
      if (d < tri::START) X -= col[d];
    } else {
      d = at(i, j, k);
    }
    if (d >= tri::START) break;
    if (d == cur) {
      ++count;
    } else {
      if (cur >= 0) { op[nr] = (uint8_t)cur; len[nr] = count; ++nr; }
      cur = d;
      count = 1;
    }
    i -= (d == 0 || d == 2 || d == 3 || d == 4);
    j -= (d == 0 || d == 1 || d == 3 || d == 5);
    k -= (d == 0 || d == 1 || d == 2 || d == 6);
  }
  if (cur >= 0) { op[nr] = (uint8_t)cur; len[nr] = count; ++nr; }
  if (!done) {  // where the walk stands, and its runs so far (count -1 - runs: not ended)
    inf[0] = i; inf[1] = j; inf[2] = k; inf[3] = -1 - nr;
    return;
  }
  sa::reverse_runs(op, len, nr);  // forward order: start to end
  inf[0] = i; inf[1] = j; inf[2] = k; inf[3] = nr;
}
