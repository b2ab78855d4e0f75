#!/usr/bin/env node
/**
 * taskgate benchmark: builds synthetic git repositories with `git fast-import` in a temporary folder,
 * then times, in-process against the compiled `dist/` modules:
 *
 * - audit: `auditRevision` of a whole revision (read + parse + rules);
 * - floor: the same git reads plus the least parsing any tool needs (first line of `.state`, lines of
 *   `.state.approvals` split on `|`), so audit/floor is what taskgate costs beyond the I/O;
 * - check: `checkPullRequest` of a 3-task pull request, on the big repository and on one ten times
 *   smaller, to show that a check does not grow with the repository.
 *
 * Each figure is the median of BENCH_RUNS runs (default 7) after one warm-up run. Usage (after
 * `npm run build`): `npm run bench`, or `BENCH_TASKS=2000 BENCH_RUNS=3 npm run bench`. The last line
 * printed is `BENCH_JSON {...}` for machines. Nothing is written into the repository.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RUNS, benchRow, cleanUp, intFromEnv, measure } from "./lib.mjs";
import { buildPhases, threeTaskChange } from "./repos.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

// ---------------------------------------------------------------------------------------------
// Settings

const TASKS = intFromEnv("BENCH_TASKS", 10_000, 100);
const SRC_FILES = Math.max(10, Math.round(TASKS / 10)); // 1,000 project files for 10,000 tasks
const TARGET_RATIO = 3;
const TARGET_CHECK_MS = 1000;
const PR_AUTHOR = "carol";

// ---------------------------------------------------------------------------------------------
// The compiled modules (imported once)

const DIST_FILES = [
  "dist/core/service.js",
  "dist/core/evaluate.js",
  "dist/core/kernel/config.js",
  "dist/git/repository.js",
];
for (const file of DIST_FILES) {
  if (!existsSync(join(ROOT, file))) {
    console.error(`bench: ${file} is missing: run npm run build first`);
    process.exit(1);
  }
}
warnIfDistIsStale();

const load = (file) => import(pathToFileURL(join(ROOT, file)).href);
const { auditRevision, checkPullRequest, loadConfig } = await load("dist/core/service.js");
const { audit } = await load("dist/core/evaluate.js");
const { readLimits } = await load("dist/core/kernel/config.js");
const { GitRepository } = await load("dist/git/repository.js");

/** Warns when a source file is newer than its compiled output: the bench would time old code. */
function warnIfDistIsStale() {
  const stale = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
        const out = join(ROOT, "dist", relative(join(ROOT, "src"), path)).replace(/\.ts$/, ".js");
        if (!existsSync(out) || statSync(out).mtimeMs < statSync(path).mtimeMs) stale.push(relative(ROOT, path));
      }
    }
  };
  walk(join(ROOT, "src"));
  if (stale.length > 0) {
    console.warn(
      `bench: warning: dist/ is older than ${stale.slice(0, 3).join(", ")}${stale.length > 3 ? `, … (${stale.length} files)` : ""}; run npm run build for current figures`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Synthetic repositories (bench/repos.mjs): `main`, and branch `pr` with the 3-task pull request

const buildRepository = (taskCount, srcCount, seed) =>
  buildPhases({ tasks: taskCount, src: srcCount, seed, branches: { pr: threeTaskChange } });

// ---------------------------------------------------------------------------------------------
// Measurements

const open = (dir, spawns) => GitRepository.open(dir, { onSpawn: () => spawns.count++ });

/** taskgate's audit, end to end. */
const auditOnce = (dir) => async (spawns) => auditRevision(await open(dir, spawns), "main");

/**
 * The floor: the same git processes as the audit (open, resolve, config read, and a read of the
 * same files: the part of the revision the audit reads, with the same maxFileBytes) and the least
 * parsing a tool needs.
 */
const floorOnce = (dir) => async (spawns) => {
  const repo = await open(dir, spawns);
  const sha = await repo.resolve("main");
  const loaded = await loadConfig(repo, sha);
  if (!loaded) throw new Error("floor: no config");
  const snapshot = await repo.readSnapshot(sha, loaded.model.auditScope(), readLimits(loaded.config));
  return minimalParse(snapshot);
};

/** Per task: the first line of `.state`, and `.state.approvals` as lines split on `|`. */
function minimalParse(snapshot) {
  const tasks = new Map();
  const task = (id) => {
    let entry = tasks.get(id);
    if (!entry) tasks.set(id, (entry = { state: undefined, approvals: [] }));
    return entry;
  };
  for (const [path, entry] of snapshot.files) {
    if (!path.startsWith("tasks/") || entry.text === undefined) continue;
    const slash = path.indexOf("/", 6);
    if (slash < 0) continue;
    const name = path.slice(slash + 1);
    if (name === ".state") task(path.slice(6, slash)).state = entry.text.split("\n", 1)[0];
    else if (name === ".state.approvals") {
      const lines = entry.text.split("\n").filter((line) => line !== "");
      task(path.slice(6, slash)).approvals = lines.map((line) => line.split("|"));
    }
  }
  return tasks;
}

const checkOnce = (dir) => async (spawns) =>
  checkPullRequest(await open(dir, spawns), { base: "main", head: "pr", pr: { author: PR_AUTHOR } });

// ---------------------------------------------------------------------------------------------
// Main

const fmt = (n, digits = 1) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const int = (n) => n.toLocaleString("en-US");

function countCodes(violations) {
  const counts = {};
  for (const item of violations) counts[item.code] = (counts[item.code] ?? 0) + 1;
  return counts;
}

try {
  const started = performance.now();
  console.log(
    `taskgate bench: ${int(TASKS)} tasks, ${RUNS} run(s) per measurement after 1 warm-up (node ${process.version})`,
  );

  const big = await buildRepository(TASKS, SRC_FILES, 1);
  console.log(`built ${int(big.files)} files (${int(TASKS)} tasks) in ${fmt(big.buildMs / 1000, 1)} s: ${big.dir}`);
  const smallTasks = Math.max(10, Math.round(TASKS / 10));
  const small = await buildRepository(smallTasks, Math.max(10, Math.round(SRC_FILES / 10)), 2);
  console.log(
    `built ${int(small.files)} files (${int(smallTasks)} tasks) in ${fmt(small.buildMs / 1000, 1)} s: ${small.dir}`,
  );
  console.log();

  const [auditM, floorM] = await measure(auditOnce(big.dir), floorOnce(big.dir));
  const [checkM, checkSmallM] = await measure(checkOnce(big.dir), checkOnce(small.dir));

  // In-process parts on an already read snapshot, to tell git time from JavaScript time.
  const repo = await GitRepository.open(big.dir);
  const sha = await repo.resolve("main");
  const loaded = await loadConfig(repo, sha);
  const snapshot = await repo.readSnapshot(sha, loaded.model.auditScope(), readLimits(loaded.config));
  const [rulesM, parseM] = await measure(
    async () => audit(loaded.config, { ...snapshot, rev: "main" }),
    async () => minimalParse(snapshot),
  );

  const ratio = auditM.median / floorM.median;
  const checkRatio = checkM.median / checkSmallM.median;
  const auditReport = auditM.result;
  const checkReport = checkM.result;

  const rows = [
    ["measurement", "median ms", "min ms", "max ms", "git procs"],
    [`audit (${int(TASKS)} tasks)`, auditM],
    ["floor (read + minimal parse)", floorM],
    ["check (3-task PR)", checkM],
    [`check (3-task PR, ${int(smallTasks)} tasks)`, checkSmallM],
    ["  audit rules only (no git)", rulesM],
    ["  minimal parse only (no git)", parseM],
  ].map((row, index) =>
    index === 0
      ? row
      : [
          row[0],
          fmt(row[1].median),
          fmt(row[1].min),
          fmt(row[1].max),
          row[1].processes ? String(row[1].processes) : "-",
        ],
  );
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join("  "));
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  console.log();
  const verdict = (ok) => (ok ? "ok" : "MISSED");
  console.log(`audit/floor    ${fmt(ratio, 2)}x   target <= ${TARGET_RATIO}x        ${verdict(ratio <= TARGET_RATIO)}`);
  console.log(
    `check          ${fmt(checkM.median)} ms   target < ${TARGET_CHECK_MS} ms  ${verdict(checkM.median < TARGET_CHECK_MS)}`,
  );
  console.log(
    `check ${int(TASKS)} / ${int(smallTasks)} tasks: ${fmt(checkM.median)} / ${fmt(checkSmallM.median)} ms = ${fmt(checkRatio, 2)}x (1.0x: independent of repository size)`,
  );
  console.log();

  const auditCodes = countCodes(auditReport.violations);
  console.log(
    `sanity: audit ${auditReport.conclusion}, ${auditReport.violations.length} violation(s) ${JSON.stringify(auditCodes)}, ${big.plan.defects} planted`,
  );
  console.log(
    `sanity: check ${checkReport.conclusion}, ${checkReport.violations.length} violation(s), ${checkReport.pending.length} pending, ${checkReport.transitions.length} transition(s): ${checkReport.transitions.map((t) => `${t.task} ${t.from ?? "(new)"} -> ${t.to}`).join("; ")}`,
  );
  const warnings = [];
  if (auditReport.violations.length !== big.plan.defects) {
    warnings.push(`the audit found ${auditReport.violations.length} violation(s), ${big.plan.defects} were planted`);
  }
  for (const [label, report] of [
    ["check", checkReport],
    ["check (small repository)", checkSmallM.result],
  ]) {
    if (report.transitions.length !== 3)
      warnings.push(`${label} reports ${report.transitions.length} transition(s), expected 3`);
    if (report.violations.length > 0) {
      warnings.push(
        `${label} reports violations: ${report.violations.map((v) => `${v.code} ${v.path ?? ""}`).join("; ")}`,
      );
    }
  }
  for (const warning of warnings) console.warn(`bench: warning: ${warning}`);
  const auditSane = auditReport.violations.length === big.plan.defects;
  const checkSane = warnings.length === (auditSane ? 0 : 1);
  benchRow(
    `in process: phases audit / floor (${int(TASKS)} tasks)`,
    `${fmt(ratio, 2)}× (${fmt(auditM.median)} / ${fmt(floorM.median)} ms)${auditSane ? "" : ", wrong violations"}`,
    `≤ ${TARGET_RATIO}×`,
    auditSane && ratio <= TARGET_RATIO,
  );
  benchRow(
    `in process: phases 3-task check (${int(TASKS)} tasks)`,
    `${fmt(checkM.median)} ms${checkSane ? "" : ", wrong result"}`,
    `< ${int(TARGET_CHECK_MS)} ms`,
    checkSane && checkM.median < TARGET_CHECK_MS,
  );
  console.log(`total ${fmt((performance.now() - started) / 1000, 1)} s`);

  const figures = (m) => ({ median: m.median, min: m.min, max: m.max, processes: m.processes });
  const json = {
    tasks: TASKS,
    files: big.files,
    runs: RUNS,
    audit: figures(auditM),
    floor: figures(floorM),
    ratio: Math.round(ratio * 100) / 100,
    check: figures(checkM),
    checkSmall: { tasks: smallTasks, files: small.files, ...figures(checkSmallM) },
    checkRatio: Math.round(checkRatio * 100) / 100,
    rulesOnly: figures(rulesM),
    parseOnly: figures(parseM),
    targets: {
      ratio: TARGET_RATIO,
      ratioMet: ratio <= TARGET_RATIO,
      checkMs: TARGET_CHECK_MS,
      checkMet: checkM.median < TARGET_CHECK_MS,
    },
    auditReport: {
      conclusion: auditReport.conclusion,
      violations: auditReport.violations.length,
      planted: big.plan.defects,
    },
    checkReport: {
      conclusion: checkReport.conclusion,
      violations: checkReport.violations.length,
      pending: checkReport.pending.length,
      transitions: checkReport.transitions.length,
    },
    warnings,
    node: process.version,
  };
  console.log(`BENCH_JSON ${JSON.stringify(json)}`);
} finally {
  cleanUp();
}
