// peer.cjs: LanceDB as a peer of stablerow's peerbench (issue 19).
//
// Driven by package lance (bench/lance/lance.go) over a pipe: one JSON
// request per line on stdin, one JSON reply per line on stdout ({"error"}
// on failure). Bulk data never goes through the pipe: columns, id lists and
// answers are little-endian binary files the Go side writes and reads.
//
// CommonJS on purpose: @lancedb/lancedb is CommonJS and checks `instanceof
// arrow.Table`; an ES module import of apache-arrow loads its ESM build, a
// second copy of the classes, and LanceDB then silently writes 0 rows.
//
// Requests:
//   {op:"load", dir, k, payload, rows}   create t(k BIGINT, payload DOUBLE)
//        with stable row ids (storage option new_table_enable_stable_row_ids)
//        from the binary columns; row i gets row id i.
//   {op:"open", dir}                      connect and open t again (cold).
//   {op:"take", ids, cols, out}           takeRowIds(ids) selecting cols
//        ("payload" or "content" = k, payload), then the seed contract
//        restored: one row per requested id in request order, NULL for a
//        miss (LanceDB drops misses and repeats and returns rows in address
//        order). Replies ms (whole, timed here), rawMs (takeRowIds to an
//        Arrow table only), rows (rows LanceDB returned); writes the answer
//        to out when given: valid bytes[n], k int64[n], payload float64[n].
//   {op:"delete", pred}                   DELETE; replies the rows deleted.
//   {op:"update", where}                  UPDATE SET payload = payload (a
//        rewrite of those rows, content and row ids unchanged).
//   {op:"optimize"}                       compaction + cleanup of old versions.
"use strict";
const fs = require("node:fs");
const readline = require("node:readline");
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const BATCH = 1 << 16;
let db = null;
let tbl = null;

function now() { return Number(process.hrtime.bigint()) / 1e6; }

function readTyped(path, Ctor) {
  const buf = fs.readFileSync(path);
  // Copy into a fresh (8-byte aligned) buffer: readFileSync may return a
  // view into a pool at any offset.
  const ab = new ArrayBuffer(buf.length);
  new Uint8Array(ab).set(buf);
  return new Ctor(ab);
}

const schema = new arrow.Schema([
  new arrow.Field("k", new arrow.Int64(), true),
  new arrow.Field("payload", new arrow.Float64(), true),
]);

async function load(req) {
  fs.rmSync(req.dir, { recursive: true, force: true });
  const k = readTyped(req.k, BigInt64Array);
  const p = readTyped(req.payload, Float64Array);
  if (k.length !== req.rows || p.length !== req.rows) throw new Error(`columns of ${k.length}/${p.length} rows, want ${req.rows}`);
  const batches = [];
  for (let lo = 0; lo < req.rows; lo += BATCH) {
    const n = Math.min(BATCH, req.rows - lo);
    batches.push(new arrow.RecordBatch(schema, arrow.makeData({
      type: new arrow.Struct(schema.fields), length: n, nullCount: 0,
      children: [
        arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: k.subarray(lo, lo + n) }),
        arrow.makeData({ type: new arrow.Float64(), length: n, nullCount: 0, data: p.subarray(lo, lo + n) }),
      ],
    })));
  }
  const t0 = now();
  db = await lancedb.connect(req.dir);
  tbl = await db.createTable("t", new arrow.Table(schema, batches), {
    mode: "create",
    storageOptions: { new_table_enable_stable_row_ids: "true" },
  });
  const count = await tbl.countRows();
  if (count !== req.rows) throw new Error(`LanceDB holds ${count} rows after the load, want ${req.rows}`);
  return { ms: now() - t0 };
}

async function open(req) {
  if (tbl) tbl.close();
  if (db) db.close();
  const t0 = now();
  db = await lancedb.connect(req.dir);
  tbl = await db.openTable("t");
  return { ms: now() - t0 };
}

function column(t, name) {
  const c = t.getChild(name);
  if (!c) throw new Error(`take returned no ${name} column`);
  return c.toArray(); // one typed array (a copy when there are several chunks)
}

async function take(req) {
  const raw = readTyped(req.ids, BigUint64Array);
  const ids = Array.from(raw); // takeRowIds' input form: bigint[]
  const content = req.cols === "content";
  if (global.gc) global.gc();
  const t0 = now();
  const got = await tbl.takeRowIds(ids).withRowId().select(content ? ["k", "payload"] : ["payload"]).toArrow();
  const t1 = now();
  const rid = column(got, "_rowid");
  const pay = column(got, "payload");
  const kv = content ? column(got, "k") : null;
  const at = new Map();
  for (let j = 0; j < rid.length; j++) at.set(Number(rid[j]), j);
  const n = ids.length;
  const valid = new Uint8Array(n);
  const outP = new Float64Array(n);
  const outK = content ? new BigInt64Array(n) : null;
  for (let i = 0; i < n; i++) {
    const j = at.get(Number(raw[i]));
    if (j === undefined) continue;
    valid[i] = 1;
    outP[i] = pay[j];
    if (content) outK[i] = kv[j];
  }
  const t2 = now();
  if (req.out) {
    const fd = fs.openSync(req.out, "w");
    fs.writeSync(fd, valid);
    fs.writeSync(fd, new Uint8Array((outK || new BigInt64Array(n)).buffer));
    fs.writeSync(fd, new Uint8Array(outP.buffer));
    fs.closeSync(fd);
  }
  return { ms: t2 - t0, rawMs: t1 - t0, rows: got.numRows };
}

async function del(req) {
  const before = await tbl.countRows();
  const t0 = now();
  await tbl.delete(req.pred);
  const ms = now() - t0;
  return { ms, deleted: before - (await tbl.countRows()) };
}

async function update(req) {
  const t0 = now();
  const r = await tbl.update({ where: req.where, valuesSql: { payload: "payload" } });
  return { ms: now() - t0, updated: Number(r && r.rowsUpdated !== undefined ? r.rowsUpdated : -1) };
}

async function optimize() {
  const t0 = now();
  const st = await tbl.optimize({ cleanupOlderThan: new Date() });
  return { ms: now() - t0, stats: st };
}

const ops = { load, open, take, delete: del, update, optimize };

const rl = readline.createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on("line", (line) => {
  chain = chain.then(async () => {
    let reply;
    try {
      const req = JSON.parse(line);
      const f = ops[req.op];
      if (!f) throw new Error(`unknown op ${req.op}`);
      reply = await f(req);
    } catch (e) {
      reply = { error: String(e && e.stack ? e.stack : e) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  });
});
rl.on("close", () => { chain.then(() => process.exit(0)); });
