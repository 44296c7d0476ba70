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
// This file holds the kernels, each with its arguments, layout and thread mapping, and the instantiation table
// of the build checks; their device code is in triplet/, a header a concern:
//   triplet/switches.cuh  the tuning switches (SEQALIGN_KERNEL_DEFINES) and the launch bounds
//   triplet/args.cuh      the parameter lists, the threads a block, a work item's triplets
//   triplet/lanes.cuh     lane groups and the two lane types (int32; two 16-bit halves)
//   triplet/layout.cuh    the traceback bytes' layout: the sweep's store, the walk's reads
//   triplet/cell.cuh      the cell recursion (scores; codes)
//   triplet/ends.cuh      end cells: the order, a square's search, the group's reduction
//   triplet/borders.cuh   borders between lanes (shuffles) and between tiles (memory)
//   triplet/wave.cuh      the tile wave: tiles taken, waited for, published, reduced
//   triplet/sweep.cuh     the lane groups' sweep: a driver over named phases
//   triplet/small.cuh     triplet_small16's sweep: a whole slice a thread
//   triplet/walk.cuh      triplet_walk's walk back through the bytes
//
// Lengths: any (int32 coordinates, int64 scratch offsets). The host keeps on
// the CPU the triplets whose score bound passes int32 lanes, and a triplet
// whose scratch alone passes 1 GiB (n1 * n3 beyond about 2.6e8); launches
// are split so that their scratch fits it.

#include "common.cuh"
#include "triplet/switches.cuh"
#include "triplet/args.cuh"
#include "triplet/sweep.cuh"
#include "triplet/small.cuh"
#include "triplet/walk.cuh"

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
// Thread mapping (TrioSeq; triplet/sweep.cuh): T = S*S lanes a group (T = 1, 4 or 16; several groups a warp,
// THREADS a block), one work item a group (W = 1: one tile of an item, triplet/wave.cuh), lane l = u*S + v
// owning the R x R square of rows j = J*S*R + u*R + [0, R) and columns k = K*S*R + v*R + [0, R) of the (j, k)
// slice of every i, in registers. The group sweeps i (A) one slice at a time; lanes run as an anti-diagonal
// wavefront over the S x S squares: at step t lane (u, v) computes slice i = t - u - v, so a pass takes
// n1 + 2S - 1 steps. Borders between lanes go by shuffles, between tiles (slices past the group's (S*R)^2:
// several passes, tile (J, K) after tile (J, K-1) in row-major order) through border (triplet/borders.cuh);
// the warp synchronizes before and after the cells of every step. End cells: triplet/ends.cuh.
template <int MODE, int R, int T, int W>
__global__ void TRIPLET_SCORE_BOUNDS triplet_score(TRIPLET_PARAMS) {
  const sa::Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane32, W != 0>(a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off,
                                              out, tiles, ntiles, sync);
}

// triplet_score16: the same sweep with two triplets in the low and high
// 16-bit halves of every register (one DPX instruction updates two cells);
// the host pairs triplets of similar shape and sends only items whose every
// value fits (seqalign_cli/families/triplet/plan.py: fits16). Loops cover
// the larger lengths of the two; each half keeps its own end cell.
template <int MODE, int R, int T, int W>
__global__ void TRIPLET_SCORE16_BOUNDS triplet_score16(TRIPLET_PARAMS) {
  const sa::Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane16, W != 0>(a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off,
                                              out, tiles, ntiles, sync);
}

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
template <int MODE, int Q>
__global__ void TRIPLET_SMALL_BOUNDS triplet_small16(TRIPLET_PARAMS) {
  const sa::Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::small_sweep<MODE, Q>(a, aoff, b, boff, c, coff, order, nwork, sc, out);
}

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
template <int MODE, int R, int T, int W>
__global__ void TRIPLET_TRACE_BOUNDS triplet_trace(TRIPLET_TRACE_PARAMS) {
  const sa::Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane32, (W & 1) != 0, true, (W & 2) != 0, (W & 4) != 0>(
      a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off, out, tiles, ntiles, sync, dirs, dir_off,
      wslices, wq, ck, ck_off);
}

// Kernel triplet_trace16<MODE, R, T, W>  (16-bit lanes, two triplets a group)
//   the arguments of triplet_trace, order as for triplet_score16. Each half
//   writes its triplet's codes in the layout above by the triplet's own
//   lengths (its KT, JT and n1 + 2S - 1 steps, what triplet_walk reads):
//   the steps of its own tiles only, and of its own slices. The seven
//   candidates are compared as one chain of max16_which (one DPX instruction
//   for both halves, with a predicate a half: whether the earlier kinds'
//   best stays), so the first of equal kinds wins as in triplet_trace.
template <int MODE, int R, int T, int W>
__global__ void TRIPLET_TRACE16_BOUNDS triplet_trace16(TRIPLET_TRACE_PARAMS) {
  const sa::Scoring sc{match, mismatch, gap_open, gap_extend, n_penalty};
  tri::sweep<MODE, R, T, tri::Lane16, (W & 1) != 0, true, (W & 2) != 0, (W & 4) != 0>(
      a, aoff, b, boff, c, coff, order, nwork, sc, border, border_off, out, tiles, ntiles, sync, dirs, dir_off,
      wslices, wq, ck, ck_off);
}

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
//   From the end cell the walk follows the codes back to the first START (triplet/walk.cuh).
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
  tri::walk<MODE, R, T>(order, nwork, aoff, boff, coff, out, dirs, dir_off, run_off, run_op, run_len, info, wslices,
                        wq, ck, ck_off, a, b, c, match, mismatch, gap_extend, n_penalty, vals);
}
