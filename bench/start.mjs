#!/usr/bin/env node
/**
 * Start-up benchmark: the CPU time (user + system, children included) of `taskgate --version`,
 * `taskgate --help` and a usage error, against a bare Node.js start (`node -e ""`). They load the
 * CLI's entry and nothing else, so they should cost about what Node.js itself costs to start.
 *
 * The commands run interleaved, one warm-up round then BENCH_RUNS rounds (default 7), and the table
 * shows each median; the ratio is the command's median over the bare start's. Runs `bin/taskgate.js`
 * over dist/ as a user does: build first (`npm run build`, which bundles the CLI).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuTime } from "./cpu.mjs";
import { RUNS } from "./lib.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin", "taskgate.js");
const ENTRY = join(ROOT, "dist", "cli", "main.js");
const TARGET_RATIO = 1.5;

if (!existsSync(ENTRY)) {
  console.error("bench: dist/ is missing: run `npm run build` first");
  process.exit(1);
}
if (!readFileSync(ENTRY, "utf8").startsWith("// taskgate's bundled CLI")) {
  console.warn("bench: dist/cli/main.js is tsc's output, not the bundle: `npm run build` bundles the CLI");
}

const node = process.execPath;
const MEASURES = [
  { name: "bare Node.js start", args: ["-e", ""], exitCodes: [0] },
  { name: "taskgate --version", args: [BIN, "--version"], exitCodes: [0] },
  { name: "taskgate --help", args: [BIN, "--help"], exitCodes: [0] },
  { name: "taskgate usage error (unknown command)", args: [BIN, "frobnicate"], exitCodes: [2] },
];

const times = MEASURES.map(() => []);
for (let round = -1; round < RUNS; round++) {
  for (const [i, measure] of MEASURES.entries()) {
    const { total } = cpuTime(node, measure.args, { cwd: ROOT, exitCodes: measure.exitCodes });
    if (round >= 0) times[i].push(total); // round -1 warms the file cache up
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const bare = median(times[0]);
const rows = MEASURES.map((measure, i) => {
  const value = median(times[i]);
  const ratio = value / bare;
  const reference = i === 0;
  return {
    measure: measure.name,
    median: value,
    min: Math.min(...times[i]),
    ratio,
    value: reference ? `${seconds(value)}` : `${seconds(value)} (${ratio.toFixed(2)}× bare start)`,
    target: reference ? "reference" : `≤ ${TARGET_RATIO}× bare start`,
    met: reference || ratio <= TARGET_RATIO,
  };
});

function seconds(value) {
  return `${value.toFixed(3)} s`;
}

console.log(`\ntaskgate start-up: CPU time (user + sys), median of ${RUNS} interleaved runs after a warm-up\n`);
const header = ["measure", "median", "min", "× bare", "target", "met"];
const table = rows.map((row, i) => [
  row.measure,
  seconds(row.median),
  seconds(row.min),
  i === 0 ? "1.00" : row.ratio.toFixed(2),
  row.target,
  i === 0 ? "" : row.met ? "yes" : "MISSED",
]);
const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => cells[column].length)));
const line = (cells) => cells.map((cell, column) => cell.padEnd(widths[column])).join("  ");
console.log(line(header));
console.log(line(widths.map((width) => "-".repeat(width))));
for (const cells of table) console.log(line(cells));
console.log();
for (const row of rows) {
  const fields = [
    `"measure": ${JSON.stringify(row.measure)}`,
    `"value": ${JSON.stringify(row.value)}`,
    `"target": ${JSON.stringify(row.target)}`,
    `"met": ${row.met}`,
  ];
  console.log(`BENCH_ROW {${fields.join(", ")}}`);
}
