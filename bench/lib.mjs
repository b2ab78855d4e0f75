/** Helpers shared by the benchmarks: settings, a seeded PRNG, child processes, medians, temp dirs. */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";

export const RUNS = intFromEnv("BENCH_RUNS", 7, 1);

export function intFromEnv(name, fallback, min) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    console.error(`bench: ${name} must be an integer >= ${min}, got "${raw}"`);
    process.exit(1);
  }
  return value;
}

export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function run(command, args, { cwd, input, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: env && { ...process.env, ...env },
      stdio: [input ? "pipe" : "ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} failed (${code}): ${stderr.trim()}`)),
    );
    if (input) {
      child.stdin.on("error", () => {}); // git failed early: its exit code and stderr tell why
      input.pipe(child.stdin);
    }
  });
}

export async function measure(...fns) {
  const counters = fns.map(() => ({ count: 0 }));
  const results = [];
  for (const [i, fn] of fns.entries()) results.push(await fn(counters[i]));
  const processes = counters.map((counter) => counter.count);
  const times = fns.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    for (const [i, fn] of fns.entries()) {
      const start = performance.now();
      await fn(counters[i]);
      times[i].push(performance.now() - start);
    }
  }
  return fns.map((_, i) => ({ ...stats(times[i]), processes: processes[i], result: results[i] }));
}

export function stats(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median: round(median), min: round(sorted[0]), max: round(sorted.at(-1)) };
}

const round = (ms) => Math.round(ms * 10) / 10;

/** Temporary folders, removed at the end and on Ctrl-C (unless BENCH_KEEP is set). */
export const tempDirs = [];
export function cleanUp() {
  if (process.env.BENCH_KEEP) {
    console.log(`kept ${tempDirs.join(" ")}`);
    return;
  }
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

/**
 * One figure for the table `npm run bench` ends with (bench/index.mjs collects these lines):
 * `BENCH_ROW {"measure", "value", "target", "met"}`, value and target as short strings.
 */
export function benchRow(measure, value, target, met) {
  console.log(`BENCH_ROW ${JSON.stringify({ measure, value, target, met: Boolean(met) })}`);
}
