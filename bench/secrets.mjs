#!/usr/bin/env node
/**
 * taskgate secret scanner benchmark: `scanSecrets` and `redactSecrets` on one long line built to
 * make a backtracking pattern explode (the inputs the tests feed, at 1 MB), and on the same line at
 * 2 MB. One warm-up, then the median of BENCH_RUNS runs (default 7), sizes interleaved. Doubling the
 * line must at most multiply the time by 2.2 (linear); above that the row says FAIL (exit code 0).
 * The last line printed is `BENCH_JSON {...}` for machines.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RUNS, benchRow } from "./lib.mjs";

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
if (!existsSync(join(ROOT, "dist/core/index.js"))) {
  console.error("bench: dist/core/index.js is missing: run npm run build first");
  process.exit(1);
}
const { redactSecrets, scanSecrets } = await import(pathToFileURL(join(ROOT, "dist/core/index.js")).href);
const LIMIT = 2.2;

/** Each input as a function of its length in repetitions (about 1 MB at `n`). */
const INPUTS = [
  ["a's", (n) => "a".repeat(n * 8)],
  ["password-equals repetitions", (n) => "password=".repeat(n)],
  ["a_token-colon repetitions", (n) => "a_token:".repeat(n)],
  ["password-equals-semicolon repetitions", (n) => "password=;;;;;;;; ".repeat(n)],
  ["Slack prefixes", (n) => "xoxb-".repeat(n * 2)],
  ["JWT-like segments", (n) => "eyJa.".repeat(n * 2)],
  ["BEGIN words", (n) => `-----BEGIN ${"A ".repeat(n * 4)}`],
  ["Google prefixes", (n) => "-AIza".repeat(n * 2)],
];

function time(line) {
  const started = performance.now();
  scanSecrets(line);
  redactSecrets(line);
  return performance.now() - started;
}

const rows = [];
for (const [name, make] of INPUTS) {
  const small = make(1 << 17);
  const large = make(1 << 18);
  time(small);
  time(large);
  const a = [];
  const b = [];
  for (let run = 0; run < RUNS; run++) {
    a.push(time(small));
    b.push(time(large));
  }
  const ratio = median(b) / median(a);
  rows.push({ name, bytes: small.length, ms: median(a), ms2: median(b), ratio, ok: ratio <= LIMIT });
}
console.log(
  `taskgate secret scanner: ${RUNS} run(s) per size after a warm-up, medians; doubling must stay <= ${LIMIT}x`,
);
for (const row of rows) {
  console.log(
    `${row.name.padEnd(40)} ${(row.bytes / 1e6).toFixed(1)} MB ${row.ms.toFixed(1).padStart(8)} ms   x2: ${row.ms2.toFixed(1).padStart(8)} ms   ${row.ratio.toFixed(2)}x ${row.ok ? "ok" : "FAIL"}`,
  );
}
for (const row of rows) {
  benchRow(
    `secret scanner: growth ×2 of a line, ${row.name}`,
    `${row.ratio.toFixed(2)}× (${row.ms.toFixed(1)} → ${row.ms2.toFixed(1)} ms)`,
    `≤ ${LIMIT}×`,
    row.ok,
  );
}
console.log(`BENCH_JSON ${JSON.stringify({ bench: "secrets", runs: RUNS, rows })}`);
