#!/usr/bin/env cwl-runner
cwlVersion: v1.2
class: CommandLineTool
label: seqalign graph
doc: |
  Exact alignment of reads against every walk of a sequence graph (GFA1, a
  DAG once oriented). Writes OUTPUT_NAME.FORMAT and the run's stderr to
  OUTPUT_NAME.log. shard K/N aligns the K-th of N parts of the reads: the N
  GAF/TSV outputs concatenated in K order are the whole run's output.

baseCommand: [seqalign, graph]

hints:
  DockerRequirement:
    dockerPull: seqalign-cli:latest
  ResourceRequirement:
    coresMin: $(inputs.threads)

inputs:
  graph:
    type: File
    doc: the graph, GFA1 (plain or gzip)
    inputBinding: {position: 1}
  reads:
    type: File
    doc: the reads, FASTA or FASTQ (plain, gzip or bgzip)
    inputBinding: {position: 2}
  mode:
    type:
      - "null"
      - type: enum
        symbols: [global, glocal, local]
    doc: alignment mode (default glocal)
    inputBinding: {prefix: --mode}
  forward_only:
    type: boolean?
    doc: align to walks of forward ('>') segments only
    inputBinding: {prefix: --forward-only}
  match:
    type: int?
    inputBinding: {prefix: --match}
  mismatch:
    type: int?
    inputBinding: {prefix: --mismatch}
  gap_open:
    type: int?
    inputBinding: {prefix: --gap-open}
  gap_extend:
    type: int?
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
    doc: K/N, the K-th of N parts of the reads (K from 1)
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
      symbols: [gaf, tsv]
    default: gaf
    inputBinding: {prefix: --format}
  output_name:
    type: string
    default: reads
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
