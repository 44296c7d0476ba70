"""One anti-diagonal of a long pair's DP in explicit vectors, and the atomics its threads wait on (numba intrinsics).

``cpu_long_pair.py`` sweeps one pair along anti-diagonals; here is the loop over
one diagonal's cells, written as LLVM vector code (64
bytes a step: 32 int16 or 16 int32 lanes, which LLVM splits where the
machine's vectors are narrower). Written out rather than left to LLVM's loop
vectoriser, it has no run-time alias checks and no scalar remainder loop on
entry to each diagonal: the last, partial step is a whole vector whose
lanes past the diagonal keep their old values (a select before the store).
Every buffer it reads therefore needs ``PAD`` elements of slack past the
last one used (their contents are never used).

The arithmetic is ``dp.py``'s, in the lane dtype with its wraparound: H,
E and F from the previous two diagonals, the substitution score a compare
of the two letters (and where the pair holds an N, of their bitwise or
with 3). Local mode clamps H at 0 and returns the diagonal's largest H;
the other modes return the smallest H seen so far (``acc``), which tells
whether narrow lanes stayed exact. Given a byte array (a traceback), the
loop also writes each cell's direction byte by ``dp``'s tie rule: H from
the diagonal first, then F, then E; local mode's stop where H is 0; the
extension flags where extending beats opening. Without one (None), the
compiled loop leaves them out.

``load_acquire``/``store_release``: one int64 element read and written as
atomics, the stripes' progress counters of the threaded sweep; ``spin_pause``
the processor's hint inside the loop that waits on one, ``yield_cpu`` the
system's ``sched_yield`` once the wait lasts (the thread waited on may need
this core).
"""

from __future__ import annotations

import sys

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: bytes per vector step
VEC_BYTES = 64
#: elements of slack after the end of every buffer the diagonal loop reads (codes, diagonals, E)
PAD = VEC_BYTES


@intrinsic
def cells(typingctx, q, trev, Hm2, Hm1, Fm1, E, H0, F0, lo, n, qo, to, mtc, mis, npn, goe, ge, local, has_n, acc,
          dirs, do):
    """The n cells of one diagonal from row lo (see ``cpu_long_pair._tile``: the arrays and offsets); mtc, mis,
    npn, goe, ge: the scoring in the lane dtype; local, has_n: run-time flags; returns acc updated (local:
    the largest H of acc and the diagonal, else the smallest). dirs: None, or uint8 receiving the cells'
    direction bytes from dirs[do] (``dp``'s: the source of H in bits 0-1, 3 for local mode's stop, 4 where
    E extends, 8 where F extends; ``PAD`` bytes of slack after the last)."""
    T = H0.dtype
    i64 = types.int64
    with_dirs = isinstance(dirs, types.Array)
    sig = T(q, trev, Hm2, Hm1, Fm1, E, H0, F0, i64, i64, i64, i64, T, T, T, T, T, types.boolean, types.boolean, T,
            dirs, i64)
    bits = T.bitwidth
    width = VEC_BYTES * 8 // bits

    def codegen(context, builder, signature, args):
        arrays = [context.make_array(ty)(context, builder, val).data for ty, val in zip(signature.args[:8], args[:8])]
        qp, tp, hm2p, hm1p, fm1p, ep, h0p, f0p = arrays
        lo_, n_, qo_, to_ = args[8:12]
        mtc_, mis_, npn_, goe_, ge_ = args[12:17]
        local_, has_n_, acc_ = args[17:20]
        dirp = context.make_array(signature.args[20])(context, builder, args[20]).data if with_dirs else None
        do_ = args[21]
        i32, i64 = ir.IntType(32), ir.IntType(64)
        ity = ir.IntType(bits)
        VT = ir.VectorType(ity, width)
        V8 = ir.VectorType(ir.IntType(8), width)
        align = bits // 8

        def splat(x, vty=VT):
            one = builder.insert_element(ir.Constant(vty, ir.Undefined), x, i32(0))
            return builder.shuffle_vector(one, ir.Constant(vty, ir.Undefined), ir.Constant(ir.VectorType(i32, width),
                                                                                          [0] * width))

        def at(p, idx, vty):
            return builder.bitcast(builder.gep(p, [idx]), vty.as_pointer())

        def vmax(a, b):
            return builder.select(builder.icmp_signed(">=", a, b), a, b)

        def vmin(a, b):
            return builder.select(builder.icmp_signed("<=", a, b), a, b)

        s_mtc, s_mis, s_npn, s_goe, s_ge = (splat(x) for x in (mtc_, mis_, npn_, goe_, ge_))
        three = ir.Constant(V8, [3] * width)

        def byte(x):
            return ir.Constant(V8, [x] * width)

        zero = ir.Constant(VT, [0] * width)
        top = ir.Constant(VT, [(1 << (bits - 1)) - 1] * width)
        bottom = ir.Constant(VT, [-(1 << (bits - 1))] * width)
        lanes = ir.Constant(VT, list(range(width)))
        accp = cgutils.alloca_once(builder, VT)
        v = builder.sub(lo_, i64(1))

        def step(k, mask, is_local, with_n):
            a = builder.load(at(qp, builder.add(qo_, k), V8), align=1)
            b = builder.load(at(tp, builder.add(to_, k), V8), align=1)
            s = builder.select(builder.icmp_unsigned("==", a, b), s_mtc, s_mis)
            if with_n:
                s = builder.select(builder.icmp_unsigned(">", builder.or_(a, b), three), s_npn, s)
            uk = builder.add(lo_, k)  # the cell's row: the left neighbour's H and E
            vk = builder.add(v, k)  # the row above: the upper and diagonal neighbours
            diag = builder.add(builder.load(at(hm2p, vk, VT), align=align), s)
            f_open = builder.sub(builder.load(at(hm1p, vk, VT), align=align), s_goe)
            f_ext = builder.sub(builder.load(at(fm1p, vk, VT), align=align), s_ge)
            e_open = builder.sub(builder.load(at(hm1p, uk, VT), align=align), s_goe)
            e_ext = builder.sub(builder.load(at(ep, uk, VT), align=align), s_ge)
            f = vmax(f_open, f_ext)
            e = vmax(e_open, e_ext)
            h = vmax(vmax(diag, f), e)
            if is_local:
                h = vmax(h, zero)
            if with_dirs:
                src = builder.select(builder.icmp_signed("==", h, diag), byte(0),
                                     builder.select(builder.icmp_signed("==", h, f), byte(1), byte(2)))
                if is_local:
                    src = builder.select(builder.icmp_signed("==", h, zero), byte(3), src)
                src = builder.or_(src, builder.select(builder.icmp_signed(">", e_ext, e_open), byte(4), byte(0)))
                src = builder.or_(src, builder.select(builder.icmp_signed(">", f_ext, f_open), byte(8), byte(0)))
                ptr = at(dirp, builder.add(do_, k), V8)
                if mask is not None:
                    src = builder.select(mask, src, builder.load(ptr, align=1))
                builder.store(src, ptr, align=1)
            seen = h if mask is None else builder.select(mask, h, bottom if is_local else top)
            old = builder.load(accp)
            builder.store(vmax(old, seen) if is_local else vmin(old, seen), accp)
            for val, p in ((h, h0p), (f, f0p), (e, ep)):
                ptr = at(p, uk, VT)
                if mask is not None:
                    val = builder.select(mask, val, builder.load(ptr, align=align))
                builder.store(val, ptr, align=align)

        def sweep(is_local, with_n):
            builder.store(bottom if is_local else top, accp)
            whole = builder.udiv(n_, i64(width))
            with cgutils.for_range(builder, whole) as loop:
                step(builder.mul(loop.index, i64(width)), None, is_local, with_n)
            done = builder.mul(whole, i64(width))
            rest = builder.sub(n_, done)
            with builder.if_then(builder.icmp_signed(">", rest, i64(0))):
                step(done, builder.icmp_signed("<", lanes, splat(builder.trunc(rest, ity))), is_local, with_n)
            name = f"llvm.vector.reduce.{'smax' if is_local else 'smin'}.v{width}i{bits}"
            reduce = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ity, [VT]), name)
            red = builder.call(reduce, [builder.load(accp)])
            return vmax(red, acc_) if is_local else vmin(red, acc_)

        result = cgutils.alloca_once(builder, ity)
        with builder.if_else(local_) as (is_local, other):
            for flag, block in ((True, is_local), (False, other)):
                with block:
                    with builder.if_else(has_n_) as (with_n, without):
                        with with_n:
                            builder.store(sweep(flag, True), result)
                        with without:
                            builder.store(sweep(flag, False), result)
        return builder.load(result)

    return sig, codegen


@intrinsic
def load_acquire(typingctx, arr, i):
    """arr[i] (int64) read with acquire ordering."""
    sig = types.int64(arr, types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.gep(context.make_array(signature.args[0])(context, builder, args[0]).data, [args[1]])
        return builder.load_atomic(ptr, "acquire", 8)

    return sig, codegen


@intrinsic
def store_release(typingctx, arr, i, value):
    """arr[i] (int64) = value with release ordering."""
    sig = types.void(arr, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.gep(context.make_array(signature.args[0])(context, builder, args[0]).data, [args[1]])
        builder.store_atomic(args[2], ptr, "release", 8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def spin_pause(typingctx):
    """The processor's spin-wait hint (x86 ``pause``, arm64 ``yield``; nothing elsewhere)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        _emit_pause(builder)
        return context.get_dummy_value()

    return sig, codegen


def _emit_pause(builder):
    """Emit the spin-wait hint of the machine's architecture."""
    arch = llvm.get_process_triple().split("-")[0]
    if arch in ("x86_64", "i386", "i686"):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause")
        builder.call(fn, [])
    elif arch in ("aarch64", "arm64"):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(32)]),
                                            "llvm.aarch64.hint")
        builder.call(fn, [ir.IntType(32)(1)])


@intrinsic
def yield_cpu(typingctx):
    """``sched_yield()`` (POSIX; a pause elsewhere)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if sys.platform.startswith("win"):
            _emit_pause(builder)
        else:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen
