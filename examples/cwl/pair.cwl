#!/usr/bin/env cwl-runner
cwlVersion: v1.2
class: CommandLineTool
label: seqalign pair
doc: |
  Exact alignment of read pairs: QUERY (reads) against TARGET (references),
  the i-th query with the i-th target unless cross, interleaved or pairs says
  otherwise. Writes OUTPUT_NAME.FORMAT and the run's stderr to OUTPUT_NAME.log.
  shard K/N aligns the K-th of N parts of the input: the N TSV/PAF outputs
  concatenated in K order are the whole run's output.

baseCommand: [seqalign, pair]

hints:
  DockerRequirement:
    dockerPull: seqalign-cli:latest
  ResourceRequirement:
    coresMin: $(inputs.threads)

inputs:
  query:
    type: File
    doc: reads, FASTA or FASTQ (plain, gzip or bgzip)
    inputBinding: {position: 1}
  target:
    type: File?
    doc: references, FASTA or FASTQ (not with interleaved)
    inputBinding: {position: 2}
  cross:
    type: boolean?
    doc: every query against every target
    inputBinding: {prefix: --cross}
  interleaved:
    type: boolean?
    doc: query alone holds the pairs as consecutive records
    inputBinding: {prefix: --interleaved}
  pairs:
    type: File?
    doc: TSV of query_name, target_name[:region]
    inputBinding: {prefix: --pairs}
  mode:
    type:
      - "null"
      - type: enum
        symbols: [global, semi-global, glocal, local]
    doc: alignment mode (default global)
    inputBinding: {prefix: --mode}
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
  strand:
    type:
      - "null"
      - type: enum
        symbols: [forward, both]
    inputBinding: {prefix: --strand}
  score_only:
    type: boolean?
    doc: no traceback (TSV only)
    inputBinding: {prefix: --score-only}
  cigar_m:
    type: boolean?
    inputBinding: {prefix: --cigar-m}
  max_matrix_mb:
    type: int?
    inputBinding: {prefix: --max-matrix-mb}
  read_group:
    type: string?
    doc: SAM/BAM read group header line, like '@RG\tID:x\tSM:y'
    inputBinding: {prefix: --read-group}
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
      symbols: [tsv, sam, bam, paf]
    default: tsv
    inputBinding: {prefix: --format}
  output_name:
    type: string
    default: aligned
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
