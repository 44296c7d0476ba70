"""Re-create the subsets in this folder from /work/shared/data/pairwise.

Run from the repository root: python tests/data/pairwise/make_subsets.py
(see tests/data/README.md for provenance). Deterministic: fixed pair indices.
"""

import gzip
import os
import shutil

SRC = "/work/shared/data/pairwise"
DST = os.path.dirname(os.path.abspath(__file__))

# set -> (query fasta, target fasta, expected-file prefix, expected suffix, which pairs)
SETS = {
    "gasal2": ("gasal2/query_batch.fasta.gz", "gasal2/target_batch.fasta.gz",
               "gasal2/expected/gasal2", ".first2000.tsv.gz", lambda i: i < 300),
    "covid_ont": ("covid_ont/covid_ont.query.fa.gz", "covid_ont/covid_ont.target.fa.gz",
                  "covid_ont/covid_ont", ".tsv.gz", lambda i: i % 10 == 0),
    "na12878_illumina": ("na12878_illumina/na12878_chr22_illumina.query.fa.gz",
                         "na12878_illumina/na12878_chr22_illumina.target.fa.gz",
                         "na12878_illumina/na12878_chr22_illumina", ".tsv.gz",
                         lambda i: i % 7 == 0),
}
SCHEMES = ("m1_x4_o6_e1", "m2_x4_o4_e2")
MODES = ("global", "glocal", "local")
WFA_SETS = ("affine", "biwfa.affine", "affine.p0", "affine.p1", "affine.p2", "affine.p3",
            "affine.p4", "affine.p5", "edit", "indel")


def read_fasta(path):
    recs = []
    with gzip.open(path, "rt") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith(">"):
                recs.append([line[1:], []])
            elif line:
                recs[-1][1].append(line)
    return [(name, "".join(parts)) for name, parts in recs]


def write_gz(path, text):
    # mtime=0: byte-identical output on every run
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        fh.write(text.encode())


def main():
    for name, (qfa, tfa, prefix, suffix, keep) in SETS.items():
        qs = read_fasta(os.path.join(SRC, qfa))
        ts = read_fasta(os.path.join(SRC, tfa))
        for scheme in SCHEMES:
            for mode in MODES:
                src = os.path.join(SRC, f"{prefix}_{scheme}.{mode}{suffix}")
                with gzip.open(src, "rt") as fh:
                    lines = fh.read().splitlines()
                out = [ln for ln in lines if ln.startswith("#") or ln.startswith("idx\t")]
                body = [ln for ln in lines if not (ln.startswith("#") or ln.startswith("idx\t"))]
                kept = [ln for ln in body if keep(int(ln.split("\t")[0]))]
                out.insert(1, f"# subset of {os.path.relpath(src, SRC)}: {len(kept)} of {len(body)} rows")
                write_gz(os.path.join(DST, f"{name}_{scheme}.{mode}.tsv.gz"), "\n".join(out + kept) + "\n")
                idx = [int(ln.split("\t")[0]) for ln in kept]
        # pair idx of the expected files = record index in the FASTA files
        fq = "".join(f">{qs[i][0]} idx={i}\n{qs[i][1]}\n" for i in idx)
        ft = "".join(f">{ts[i][0]} idx={i}\n{ts[i][1]}\n" for i in idx)
        write_gz(os.path.join(DST, f"{name}.query.fa.gz"), fq)
        write_gz(os.path.join(DST, f"{name}.target.fa.gz"), ft)
    # WFA2: all 305 pairs, expected scores (first column of each .alg file)
    with open(os.path.join(SRC, "wfa2/wfa.utest.seq")) as fh:
        write_gz(os.path.join(DST, "wfa.utest.seq.gz"), fh.read())
    cols = []
    for s in WFA_SETS:
        with open(os.path.join(SRC, f"wfa2/wfa.utest.check/test.{s}.alg")) as fh:
            cols.append([ln.split("\t")[0] for ln in fh.read().splitlines()])
    rows = ["\t".join(["pair"] + [f"test.{s}" for s in WFA_SETS])]
    rows += ["\t".join([str(k)] + [c[k] for c in cols]) for k in range(len(cols[0]))]
    write_gz(os.path.join(DST, "wfa2_expected_scores.tsv.gz"), "\n".join(rows) + "\n")
    shutil.copyfile(os.path.join(SRC, "cudaaligner_global_edge_cases.tsv"),
                    os.path.join(DST, "cudaaligner_global_edge_cases.tsv"))


if __name__ == "__main__":
    main()
