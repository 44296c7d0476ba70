"""Input: FASTA/FASTQ reading, pairing of records, region fetch, encoding."""
