#!/usr/bin/env nextflow
// Scatter/gather with the SEQALIGN_PAIR module: params.shards tasks, each aligning one part
// of the input (--shard K/N, set per task in nextflow.config), then the parts concatenated
// in K order into one TSV, the same file one whole run writes.
//
//     nextflow run examples/nextflow/main.nf --shards 4 -with-docker
nextflow.enable.dsl = 2

include { SEQALIGN_PAIR } from './modules/seqalign/pair/main'

params.query  = "${projectDir}/../reads.fa.gz"
params.target = "${projectDir}/../windows.fa.gz"
params.shards = 3
params.outdir = 'results'

workflow {
    parts = Channel.of(1..params.shards).map { k ->
        [[id: 'aligned', shard: k, shards: params.shards], file(params.query), file(params.target)]
    }
    SEQALIGN_PAIR(parts)
    SEQALIGN_PAIR.out.alignment
        .toSortedList { a, b -> a[0].shard <=> b[0].shard }
        .flatMap { sorted -> sorted.collect { part -> part[1] } }
        .collectFile(name: 'aligned.tsv', storeDir: params.outdir, sort: false)
}
