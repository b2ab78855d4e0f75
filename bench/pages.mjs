#!/usr/bin/env node
/**
 * taskgate benchmark of the HTML pages: the repository page of a synthetic board of BENCH_TASKS tasks
 * (default 10,000; a quarter waiting on another, a fifth in review), in-process against `dist/`.
 * Times, as medians of BENCH_RUNS runs (default 7) after one warm-up, interleaved:
 *
 * - tasks: every task's row read from the snapshot (`boardTasks`: the board read, what each
 *   waits on, who may review it);
 * - page: `repositoryPage` of the first page (200 rows, the counts, the waits-on list and graph);
 * - filtered: the same with `?role=frontend&page=3`;
 * - total: tasks and page together, with the CPU time it took: the figure held to under a second.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RUNS, benchRow, intFromEnv, measure } from "./lib.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TASKS = intFromEnv("BENCH_TASKS", 10_000, 100);
const TARGET_MS = 1000;

if (!existsSync(join(ROOT, "dist/pages/repository.js"))) {
  console.error("bench: dist/pages/repository.js is missing: run npm run build first");
  process.exit(1);
}
const load = (file) => import(pathToFileURL(join(ROOT, file)).href);
const { parseConfig } = await load("dist/core/index.js");
const { boardTasks } = await load("dist/pages/data.js");
const { repositoryPage } = await load("dist/pages/repository.js");

/** A board of `count` tasks as a snapshot: definitions, ledger and config, nothing else. */
function boardSnapshot(count) {
  const roles = ["backend", "frontend", "qa"];
  const statuses = ["todo", "in_progress", "review", "done", "blocked"];
  const definitions = [];
  const tasks = {};
  for (let i = 0; i < count; i++) {
    const id = `T-${i}`;
    definitions.push({
      id,
      title: `Task number ${i} <of> the "board"`,
      role: roles[i % 3],
      stage: `S${i % 12}`,
      reviewer_role: "qa",
      depends_on: i % 4 === 1 ? [`T-${i - 1}`] : [],
      paths: [`src/t${i}/**`],
    });
    const status = statuses[i % 5];
    if (status === "todo") continue;
    tasks[id] = {
      status,
      owner: status === "done" ? null : `dev${i % 40}/agent`,
      external_wait: false,
      blocked_by: status === "blocked" ? [`T-${(i + 7) % count}`] : [],
      history: [],
    };
  }
  const file = (path, text) => [path, { path, kind: "file", size: text.length, text }];
  const files = new Map([
    file(".github/taskgate.yml", "preset: board\nroles:\n  qa: [quinn, rita, sam]\n  backend: [a]\n  frontend: [b]\n"),
    file("planning/tasks.json", JSON.stringify({ tasks: definitions })),
    file("state/tasks.json", JSON.stringify({ revision: 1, tasks })),
  ]);
  return { rev: "bench", files };
}

const parsed = parseConfig(
  "preset: board\nroles:\n  qa: [quinn, rita, sam]\n  backend: [a]\n  frontend: [b]\n  coordinator: [c]\n",
);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
const config = parsed.config;
const snapshot = boardSnapshot(TASKS);
const page = (tasks, query) =>
  repositoryPage({ owner: "acme", repo: "board", branch: "main", sha: "0".repeat(40), preset: "board", tasks }, query);

const tasks = boardTasks(config, snapshot);
if (tasks.length !== TASKS) throw new Error(`read ${tasks.length} tasks of ${TASKS}`);
const html = page(tasks);
const rows = (html.match(/<tr><td>/g) ?? []).length;

const [read, render, filtered, total] = await measure(
  () => boardTasks(config, snapshot).length,
  () => page(tasks).length,
  () => page(tasks, "role=frontend&page=3").length,
  () => page(boardTasks(config, snapshot)).length,
);
/** The CPU time (user + system) of tasks + page, median of RUNS runs. */
const cpuTimes = [];
for (let run = 0; run < RUNS; run++) {
  const start = process.cpuUsage();
  page(boardTasks(config, snapshot));
  const used = process.cpuUsage(start);
  cpuTimes.push((used.user + used.system) / 1000);
}
cpuTimes.sort((a, b) => a - b);
const cpuPerTotal = Math.round(cpuTimes[cpuTimes.length >> 1] * 10) / 10;

console.log(`board of ${TASKS} tasks: first page ${Math.round(html.length / 1024)} KiB, ${rows} task rows`);
console.log(`tasks from the snapshot: median ${read.median} ms (min ${read.min}, max ${read.max})`);
console.log(`repository page, page 1: median ${render.median} ms (min ${render.min}, max ${render.max})`);
console.log(`repository page, role filter page 3: median ${filtered.median} ms`);
console.log(`tasks + page: median ${total.median} ms, ${cpuPerTotal} ms of CPU`);
benchRow(
  `pages: repository page of a ${TASKS}-task board (tasks + render, median)`,
  `${total.median} ms`,
  `< ${TARGET_MS} ms`,
  total.median < TARGET_MS,
);
benchRow("pages: CPU time of that page (median)", `${cpuPerTotal} ms`, `< ${TARGET_MS} ms`, cpuPerTotal < TARGET_MS);
benchRow(
  `pages: render only, page 1 of ${TASKS} tasks (median)`,
  `${render.median} ms`,
  `< ${TARGET_MS / 4} ms`,
  render.median < TARGET_MS / 4,
);
benchRow(
  `pages: first page's size (${rows} rows)`,
  `${Math.round(html.length / 1024)} KiB`,
  "< 1024 KiB",
  html.length < 1024 * 1024 && rows === 200,
);
console.log(
  `BENCH_JSON ${JSON.stringify({ tasks: TASKS, read, render, filtered, total, cpu: cpuPerTotal, bytes: html.length })}`,
);
