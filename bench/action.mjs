#!/usr/bin/env node
/**
 * The bundled Action's cost before it does anything: its size, and its cold start, from spawning
 * `node action/dist/index.js` to the first request reaching a local HTTP stand-in for GitHub's API
 * (it includes Node.js's own start-up). Median of BENCH_RUNS runs (default 7) after a warm-up, and
 * the same for `node -e ""` to show what Node.js itself costs. Targets: under 150 ms, under 1.5 MB.
 * It runs the bundle on the Node.js that runs it: `node_modules/.bin/node bench/action.mjs` measures
 * Node.js 24, the Action's runtime. On Linux it also reads the CPU time the process has used when
 * its request arrives (/proc/<pid>/task/<pid>/schedstat, its main thread): wall-clock time on a loaded
 * machine counts the waits for a CPU, this does not.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { RUNS, benchRow } from "./lib.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BUNDLE = join(ROOT, "action", "dist", "index.js");
const TARGET_MS = 150;
const TARGET_BYTES = 1.5 * 1024 * 1024;

if (!existsSync(BUNDLE)) {
  console.error("bench: action/dist/index.js is missing: run npm run bundle first");
  process.exit(1);
}

let firstRequest;
const server = createServer((request, response) => {
  firstRequest?.(performance.now());
  firstRequest = undefined;
  response.writeHead(404, { "content-type": "application/json" });
  response.end('{"message":"bench"}');
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}`;
const dir = mkdtempSync(join(tmpdir(), "taskgate-bench-action-"));
writeFileSync(join(dir, "event.json"), "{}");
const env = {
  PATH: process.env.PATH,
  GITHUB_EVENT_NAME: "schedule",
  GITHUB_EVENT_PATH: join(dir, "event.json"),
  GITHUB_REPOSITORY: "acme/web",
  GITHUB_API_URL: url,
  GITHUB_GRAPHQL_URL: `${url}/graphql`,
  INPUT_TOKEN: "bench",
  GITHUB_OUTPUT: join(dir, "output"),
  RUNNER_TEMP: dir,
};

/** The CPU time (ms) the process's main thread has used so far; `undefined` off Linux. */
function cpuOf(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return undefined;
  }
}

function once(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first;
    let cpu;
    const child = spawn(process.execPath, args, { env, stdio: "ignore" });
    firstRequest = (at) => {
      first = at - started;
      cpu = cpuOf(child.pid);
    };
    child.on("error", reject);
    child.on("close", () => resolve({ first, cpu, total: performance.now() - started }));
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const bundle = [];
const cpus = [];
const bare = [];
await once([BUNDLE]);
for (let run = 0; run < RUNS; run++) {
  const { first, cpu } = await once([BUNDLE]);
  bundle.push(first);
  if (cpu !== undefined) cpus.push(cpu);
  bare.push((await once(["-e", ""])).total);
}
server.close();
rmSync(dir, { recursive: true, force: true });

const size = statSync(BUNDLE).size;
const cold = median(bundle);
console.log(`taskgate action bench: ${RUNS} run(s) after 1 warm-up (node ${process.version})`);
console.log(
  `bundle size      ${(size / 1024).toFixed(0)} KiB   target < ${(TARGET_BYTES / 1024).toFixed(0)} KiB   ${size < TARGET_BYTES ? "ok" : "MISSED"}`,
);
console.log(
  `cold start       ${cold.toFixed(1)} ms   (spawn → first request; target < ${TARGET_MS} ms)   ${cold < TARGET_MS ? "ok" : "MISSED"}`,
);
const cpu = cpus.length === RUNS ? median(cpus) : undefined;
if (cpu !== undefined) console.log(`  its CPU time   ${cpu.toFixed(1)} ms   (main thread, spawn → first request)`);
console.log(`node -e ""       ${median(bare).toFixed(1)} ms   (Node.js's own start and exit, for comparison)`);
benchRow(
  "Action: bundle size",
  `${(size / 1024).toFixed(0)} KiB`,
  `< ${(TARGET_BYTES / 1024).toFixed(0)} KiB`,
  size < TARGET_BYTES,
);
benchRow(
  `Action: cold start, spawn → first request (node ${process.version})`,
  `${cold.toFixed(1)} ms${cpu === undefined ? "" : ` (CPU ${cpu.toFixed(1)} ms)`}; node -e "" ${median(bare).toFixed(1)} ms`,
  `< ${TARGET_MS} ms`,
  cold < TARGET_MS,
);
console.log(
  `BENCH_JSON ${JSON.stringify({ bench: "action", runs: RUNS, bytes: size, coldStartMs: cold, cpuMs: cpu, nodeMs: median(bare) })}`,
);
