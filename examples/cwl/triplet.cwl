#!/usr/bin/env cwl-runner
cwlVersion: v1.2
class: CommandLineTool
label: seqalign triplet
doc: |
  Exact 3-way alignment (sum-of-pairs, linear gaps) of sequence triplets: the
  i-th records of A, B and C, or records 3t, 3t+1, 3t+2 of A alone with
  interleaved. Writes OUTPUT_NAME.FORMAT and the run's stderr to
  OUTPUT_NAME.log. shard K/N aligns the K-th of N parts of the input: the N
  TSV/MAF outputs concatenated in K order are the whole run's output.

baseCommand: [seqalign, triplet]

hints:
  DockerRequirement:
    dockerPull: seqalign-cli:latest
  ResourceRequirement:
    coresMin: $(inputs.threads)

inputs:
  a:
    type: File
    doc: first sequences (or all of them, with interleaved), FASTA or FASTQ
    inputBinding: {position: 1}
  b:
    type: File?
    inputBinding: {position: 2}
  c:
    type: File?
    inputBinding: {position: 3}
  interleaved:
    type: boolean?
    doc: a alone holds the triplets as records 3t, 3t+1, 3t+2
    inputBinding: {prefix: --interleaved}
  mode:
    type:
      - "null"
      - type: enum
        symbols: [global, semi-global, local]
    doc: alignment mode (default global)
    inputBinding: {prefix: --mode}
  match:
    type: int?
    inputBinding: {prefix: --match}
  mismatch:
    type: int?
    inputBinding: {prefix: --mismatch}
  gap_extend:
    type: int?
    doc: cost of a residue against a gap (gaps are linear for triplets)
    inputBinding: {prefix: --gap-extend}
  n_penalty:
    type: int?
    inputBinding: {prefix: --n-penalty}
  score_only:
    type: boolean?
    doc: no traceback (TSV only)
    inputBinding: {prefix: --score-only}
  max_matrix_mb:
    type: int?
    inputBinding: {prefix: --max-matrix-mb}
  shard:
    type: string?
    doc: K/N, the K-th of N parts of the input (K from 1)
    inputBinding: {prefix: --shard}
  backend:
    type:
      - "null"
      - type: enum
        symbols: [auto, cpu, cuda]
    inputBinding: {prefix: --backend}
  device:
    type: int?
    inputBinding: {prefix: --device}
  threads:
    type: int
    default: 1
    inputBinding: {prefix: --threads}
  batch_size:
    type: int?
    inputBinding: {prefix: --batch-size}
  format:
    type:
      type: enum
      symbols: [tsv, maf]
    default: tsv
    inputBinding: {prefix: --format}
  output_name:
    type: string
    default: triplets
    doc: the output file is OUTPUT_NAME.FORMAT
    inputBinding:
      prefix: --output
      valueFrom: $(self).$(inputs.format)

stderr: $(inputs.output_name).log

outputs:
  alignment:
    type: File
    outputBinding:
      glob: $(inputs.output_name).$(inputs.format)
  log:
    type: stderr
