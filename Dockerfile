# seqalign with the CUDA runtime (NVRTC included: kernels compile at run time).
# Same steps as the README's quick start: the distribution seqalign-cli with its
# cuda extra (pip install 'seqalign-cli[cuda]'), here from the copied checkout;
# then the CPU engine compiled into NUMBA_CACHE_DIR, so that a run loads it
# instead of compiling, and an unprivileged user to run as.
#
#   docker build -t seqalign-cli .
#   docker run --rm seqalign-cli info
#   docker run --rm --gpus all -v "$PWD:/data" -w /data seqalign-cli pair q.fa t.fa -o out.sam
#
# tests/test_container.py replays these instructions in a Debian root (debootstrap, chroot) and
# runs the result; only the base image (FROM) is not checked there.
FROM nvidia/cuda:13.0.1-runtime-ubuntu24.04
# samtools: merges BAM parts (examples/snakemake); ca-certificates: pip's HTTPS to PyPI
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv samtools ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY . /opt/seqalign-cli
RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir '/opt/seqalign-cli[cuda]'
ENV PATH=/opt/venv/bin:$PATH \
    NUMBA_CACHE_DIR=/var/cache/seqalign/numba \
    CUPY_CACHE_DIR=/var/cache/seqalign/cupy
# The caches are writable by every user: a container's copy is its own, and `docker run --user
# UID:GID` (as cwltool and nf-core's docker profile do) then loads the compiled engine too. Where
# they cannot be written (a read-only Apptainer image), seqalign falls back to a folder of the
# user's own under /tmp, filled from the caches the wheel ships (seqalign_cli/jit.py).
RUN useradd --uid 10001 --create-home seqalign \
    && mkdir -p "$NUMBA_CACHE_DIR" "$CUPY_CACHE_DIR" && chmod -R 0777 /var/cache/seqalign
USER 10001
# The compile step (tests/test_packaging.py runs this line): small jobs of every subcommand, as
# the runtime user, files left writable by all (umask 0000).
RUN umask 0000 && seqalign compile
ENTRYPOINT ["seqalign"]
CMD ["--help"]
