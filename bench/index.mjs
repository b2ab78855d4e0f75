#!/usr/bin/env node
/**
 * `npm run bench`: runs every benchmark in turn, shows its output as it comes, collects the
 * `BENCH_ROW {...}` lines they print (one per figure) and ends with one table: measure, today's
 * value, target, met. A benchmark that is missing is skipped with a note; one that fails adds a row
 * saying so. The exit code is 0 whatever the figures (timings depend on the machine); it is 1 only
 * when `dist/` is missing.
 *
 * BENCH_ONLY=run,cli (names without `.mjs`; `app` for bench/app.measure.ts, `pages-app` for
 * bench/pages.measure.ts) runs only those. Every
 * other setting (BENCH_TASKS, BENCH_RUNS, ...) passes through to the benchmarks.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const node = (script) => ({
  name: script.replace(/\.mjs$/, ""),
  file: `bench/${script}`,
  args: [join(ROOT, "bench", script)],
});
const BENCHES = [
  node("run.mjs"),
  node("board.mjs"),
  node("growth.mjs"),
  node("secrets.mjs"),
  node("pages.mjs"),
  node("action.mjs"),
  node("start.mjs"),
  node("cli.mjs"),
  node("agents.mjs"),
  {
    name: "app",
    file: "bench/app.measure.ts",
    command: join(ROOT, "node_modules", ".bin", "vitest"),
    args: ["run", "-c", "vitest.bench.config.ts", "--reporter=verbose", "bench/app.measure.ts"],
  },
  {
    name: "pages-app",
    file: "bench/pages.measure.ts",
    command: join(ROOT, "node_modules", ".bin", "vitest"),
    args: ["run", "-c", "vitest.bench.config.ts", "--reporter=verbose", "bench/pages.measure.ts"],
  },
];

if (!existsSync(join(ROOT, "dist", "cli", "main.js"))) {
  console.error("bench: dist/ is missing: run npm run build first");
  process.exit(1);
}
const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim().replace(/\.mjs$/, ""));
if (only) {
  const unknown = only.filter((name) => !BENCHES.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    console.error(
      `bench: BENCH_ONLY names no benchmark "${unknown.join(", ")}"; known: ${BENCHES.map((b) => b.name).join(", ")}`,
    );
    process.exit(1);
  }
}

/** Runs one benchmark, echoing its output; resolves with its exit code and its BENCH_ROW figures. */
function runBench(bench) {
  return new Promise((resolve) => {
    const child = spawn(bench.command ?? process.execPath, bench.args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const rows = [];
    let rest = "";
    const take = (text) => {
      for (const line of text.split("\n")) {
        const match = /BENCH_ROW (\{.*\})\s*$/.exec(line);
        if (!match) continue;
        try {
          rows.push(JSON.parse(match[1]));
        } catch {
          rows.push({
            measure: `${bench.file}: unreadable BENCH_ROW`,
            value: line.slice(0, 80),
            target: "",
            met: false,
          });
        }
      }
    };
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      const text = rest + chunk.toString("utf8");
      const cut = text.lastIndexOf("\n") + 1;
      take(text.slice(0, cut));
      rest = text.slice(cut);
    });
    child.on("error", (error) => resolve({ code: -1, rows, error }));
    child.on("close", (code, signal) => {
      take(rest);
      resolve({ code: code ?? (signal ? `signal ${signal}` : -1), rows });
    });
  });
}

const started = performance.now();
const table = [];
const notes = [];
for (const bench of BENCHES) {
  if (only && !only.includes(bench.name)) continue;
  if (!existsSync(join(ROOT, bench.file))) {
    notes.push(`${bench.file} is not there: skipped`);
    console.log(`\n=== ${bench.file}: not there, skipped\n`);
    continue;
  }
  console.log(`\n=== ${bench.file}\n`);
  const benchStarted = performance.now();
  const { code, rows, error } = await runBench(bench);
  const seconds = ((performance.now() - benchStarted) / 1000).toFixed(1);
  for (const row of rows) table.push({ source: bench.name, ...row });
  if (code !== 0) {
    const why = error ? error.message : `exit code ${code}`;
    table.push({
      source: bench.name,
      measure: `${bench.file} did not finish`,
      value: why,
      target: "finishes",
      met: false,
    });
    console.log(`\n=== ${bench.file}: ${why} after ${seconds} s`);
  } else {
    console.log(`\n=== ${bench.file}: ${rows.length} figure(s) in ${seconds} s`);
    if (rows.length === 0) notes.push(`${bench.file} printed no BENCH_ROW line`);
  }
}

// ---------------------------------------------------------------------------------------------
// The table

const text = (value) => String(value ?? "").replace(/\|/g, "\\|");
const header = ["measure", "today's value", "target", "met"];
const lines = table.map((row) => [
  text(row.measure),
  text(row.value),
  text(row.target),
  row.met === true ? "yes" : "**no**",
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
const format = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`;
console.log();
console.log(`taskgate benchmarks (node ${process.version}, ${((performance.now() - started) / 1000).toFixed(0)} s)`);
console.log();
console.log(format(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const line of lines) console.log(format(line));
console.log();
const missed = table.filter((row) => row.met !== true).length;
console.log(`${table.length - missed} of ${table.length} figure(s) met their target; ${missed} missed.`);
for (const note of notes) console.log(`note: ${note}`);
process.exitCode = 0;
