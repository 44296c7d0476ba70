# seqalign with the CUDA runtime (NVRTC included: kernels compile at run time).
# Same steps as the README's quick start.
FROM nvidia/cuda:13.0.1-runtime-ubuntu24.04
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
COPY . /opt/seqalign
RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir '/opt/seqalign[cuda]'
ENV PATH=/opt/venv/bin:$PATH
ENTRYPOINT ["seqalign"]
CMD ["--help"]
