# seqalign with the CUDA runtime (NVRTC included: kernels compile at run time).
# Same steps as the README's quick start: the distribution seqalign-cli with its
# cuda extra (pip install 'seqalign-cli[cuda]'), here from the copied checkout.
FROM nvidia/cuda:13.0.1-runtime-ubuntu24.04
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
COPY . /opt/seqalign-cli
RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir '/opt/seqalign-cli[cuda]'
ENV PATH=/opt/venv/bin:$PATH
ENTRYPOINT ["seqalign"]
CMD ["--help"]
