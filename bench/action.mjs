#!/usr/bin/env node
/**
 * The bundled Action's cost before it does anything: its size, and its cold start, from spawning
 * `node action/dist/index.js` to the first request reaching a local HTTP stand-in for GitHub's API
 * (it includes Node.js's own start-up). Median of BENCH_RUNS runs (default 7) after a warm-up, and
 * the same for `node -e ""` to show what Node.js itself costs. Targets: under 150 ms, under 1.5 MB.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { RUNS } from "./lib.mjs";

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

function once(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first;
    firstRequest = (at) => (first = at - started);
    const child = spawn(process.execPath, args, { env, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve({ first, total: performance.now() - started }));
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const bundle = [];
const bare = [];
await once([BUNDLE]);
for (let run = 0; run < RUNS; run++) {
  bundle.push((await once([BUNDLE])).first);
  bare.push((await once(["-e", ""])).total);
}
server.close();

const size = statSync(BUNDLE).size;
const cold = median(bundle);
console.log(`taskgate action bench: ${RUNS} run(s) after 1 warm-up (node ${process.version})`);
console.log(
  `bundle size      ${(size / 1024).toFixed(0)} KiB   target < ${(TARGET_BYTES / 1024).toFixed(0)} KiB   ${size < TARGET_BYTES ? "ok" : "MISSED"}`,
);
console.log(
  `cold start       ${cold.toFixed(1)} ms   (spawn → first request; target < ${TARGET_MS} ms)   ${cold < TARGET_MS ? "ok" : "MISSED"}`,
);
console.log(`node -e ""       ${median(bare).toFixed(1)} ms   (Node.js's own start and exit, for comparison)`);
console.log(
  `BENCH_JSON ${JSON.stringify({ bench: "action", runs: RUNS, bytes: size, coldStartMs: cold, nodeMs: median(bare) })}`,
);
