// seqalign pair: exact alignment of read pairs (FASTA/FASTQ in; TSV, SAM, BAM or PAF out).
// Options go in task.ext.args (the output format too: --format sam|bam|paf, default tsv);
// --shard K/N there aligns the K-th of N parts of the input (see ../../../README.md).
process SEQALIGN_PAIR {
    tag "${meta.id}"
    label 'process_medium'

    conda "${moduleDir}/environment.yml"
    container 'seqalign-cli:latest'

    input:
    tuple val(meta), path(query), path(target)

    output:
    tuple val(meta), path("*.{tsv,sam,bam,paf}"), emit: alignment
    tuple val(meta), path("*.seqalign.log")      , emit: log
    path "versions.yml"                           , emit: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args        = task.ext.args ?: ''
    def prefix      = task.ext.prefix ?: "${meta.id}"
    def extension   = args.contains('--format sam') ? 'sam' :
                      args.contains('--format bam') ? 'bam' :
                      args.contains('--format paf') ? 'paf' : 'tsv'
    def target_file = target ? "${target}" : ''
    """
    seqalign pair \\
        ${args} \\
        --threads ${task.cpus} \\
        --output ${prefix}.${extension} \\
        ${query} \\
        ${target_file} \\
        2> >(tee ${prefix}.seqalign.log >&2)

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        seqalign: \$(seqalign --version | sed 's/^seqalign //')
    END_VERSIONS
    """

    stub:
    def args      = task.ext.args ?: ''
    def prefix    = task.ext.prefix ?: "${meta.id}"
    def extension = args.contains('--format sam') ? 'sam' :
                    args.contains('--format bam') ? 'bam' :
                    args.contains('--format paf') ? 'paf' : 'tsv'
    """
    touch ${prefix}.${extension}
    touch ${prefix}.seqalign.log

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        seqalign: \$(seqalign --version | sed 's/^seqalign //')
    END_VERSIONS
    """
}
