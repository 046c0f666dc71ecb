# Builds a .slt file from PostgreSQL's own answers (the oracle): the source
# holds slt records without results; every statement runs in a fresh
# database "slt" of a running server, and each query's rows become the
# record's expected rows (booleans as true/false, NULL, (empty)); an
# expected error must be in PostgreSQL's message too.
#
#   PGHOST=/tmp/sock PGUSER=me python3 scripts/pg_slt.py scripts/pg_slt_types.src > testdata/sql/types.slt
import os, subprocess, sys
PSQL=["/usr/lib/postgresql/15/bin/psql","-h",os.environ.get("PGHOST","/tmp/types-pg"),"-U",os.environ.get("PGUSER","t"),"-X","-q","-A","-t","-F","\t","-P","null=NULL","-v","ON_ERROR_STOP=1"]
subprocess.run(PSQL+["-d","postgres","-c","DROP DATABASE IF EXISTS slt"],check=True)
subprocess.run(PSQL+["-d","postgres","-c","CREATE DATABASE slt"],check=True)
recs=[l for l in open(sys.argv[1]).read().split("\n\n") if l.strip()]
out=[]
for r in recs:
    lines=r.strip("\n").split("\n")
    comments=[l for l in lines if l.startswith("#")]
    body=[l for l in lines if not l.startswith("#")]
    if not body:
        out.append("\n".join(comments)); continue
    head, sql = body[0], "\n".join(body[1:])
    p=subprocess.run(PSQL+["-d","slt","-c",sql],capture_output=True,text=True)
    if head.startswith("statement"):
        if head=="statement ok":
            if p.returncode!=0: sys.exit("PG failed: %s\n%s"%(sql,p.stderr))
            out.append("\n".join(comments+["statement ok",sql]))
        else:
            want=head[len("statement error "):]
            if p.returncode==0 or want not in p.stderr: sys.exit("PG did not fail with %r: %s\n%s"%(want,sql,p.stderr))
            out.append("\n".join(comments+[head,sql]))
        continue
    if p.returncode!=0: sys.exit("PG failed: %s\n%s"%(sql,p.stderr))
    rows=[]
    for l in p.stdout.rstrip("\n").split("\n") if p.stdout.strip("\n")!="" else []:
        cells=[]
        for c in l.split("\t"):
            if c=="t": c="true"
            elif c=="f": c="false"
            elif c=="": c="(empty)"
            cells.append(c)
        rows.append(" ".join(cells))
    out.append("\n".join(comments+[head,sql,"----"]+rows))
print("\n\n".join(out))
