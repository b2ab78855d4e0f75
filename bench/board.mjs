#!/usr/bin/env node
/**
 * taskgate benchmark for the `board` preset: a synthetic ledger of BENCH_TASKS tasks (default
 * 10,000) with definitions, history, evidence, handoffs and rendered status files, built with
 * `git fast-import`. Times, in-process against `dist/`:
 *
 * - audit: `auditRevision` (read + parse + every rule + re-rendering to detect matrix-stale);
 * - floor: the same git reads plus `JSON.parse` of the definitions and the ledger;
 * - check: `checkPullRequest` of a PR touching 3 tasks (a claim, a submit, a new definition), on the
 *   big ledger and on one ten times smaller.
 *
 * Medians of BENCH_RUNS runs (default 7) after one warm-up, interleaved. Last line: BENCH_JSON.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RUNS, benchRow, cleanUp, intFromEnv, measure } from "./lib.mjs";
import { boardThreeTaskChange, buildBoard as buildBoardRepository } from "./repos.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TASKS = intFromEnv("BENCH_TASKS", 10_000, 100);
const TARGET_RATIO = 3;
const TARGET_CHECK_MS = 1000;

if (!existsSync(join(ROOT, "dist/core/service.js"))) {
  console.error("bench: dist/core/service.js is missing: run npm run build first");
  process.exit(1);
}
const load = (file) => import(pathToFileURL(join(ROOT, file)).href);
const { auditRevision, checkPullRequest, loadConfig } = await load("dist/core/service.js");
const { GitRepository } = await load("dist/git/repository.js");
const { readLimits } = await load("dist/core/kernel/config.js");

// ---------------------------------------------------------------------------------------------
// The synthetic board (bench/repos.mjs): `main` with the rendered status files, branch `pr` with the
// 3-task pull request

const buildBoard = (count, seed) =>
  buildBoardRepository({ tasks: count, seed, branches: { pr: boardThreeTaskChange } });

// ---------------------------------------------------------------------------------------------
// Measurements

const auditOnce = (dir) => async () => auditRevision(await GitRepository.open(dir), "main");
const floorOnce = (dir) => async () => {
  const repo = await GitRepository.open(dir);
  const sha = await repo.resolve("main");
  const loaded = await loadConfig(repo, sha);
  const snapshot = await repo.readSnapshot(sha, loaded.model.auditScope(), readLimits(loaded.config));
  const defs = JSON.parse(snapshot.files.get("planning/tasks.json").text);
  const ledger = JSON.parse(snapshot.files.get("state/tasks.json").text);
  return defs.tasks.length + Object.keys(ledger.tasks).length;
};
/** What any check of a board must do: read the two board files at the merge base and at the head, and parse them. */
const checkFloorOnce = (dir) => async () => {
  const repo = await GitRepository.open(dir);
  const [base, head] = [await repo.resolve("main"), await repo.resolve("pr")];
  const loaded = await loadConfig(repo, base);
  const scope = { paths: ["planning/tasks.json", "state/tasks.json"], prefixes: [] };
  const mergeBase = await repo.mergeBase(base, head);
  let count = 0;
  for (const rev of [mergeBase, head]) {
    const snapshot = await repo.readSnapshot(rev, scope, readLimits(loaded.config));
    count += JSON.parse(snapshot.files.get("planning/tasks.json").text).tasks.length;
    count += Object.keys(JSON.parse(snapshot.files.get("state/tasks.json").text).tasks).length;
  }
  return count;
};
const checkOnce = (dir) => async () =>
  checkPullRequest(await GitRepository.open(dir), { base: "main", head: "pr", pr: { author: "carol" } });

const fmt = (n, digits = 1) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

try {
  const started = performance.now();
  console.log(`taskgate board bench: ${TASKS.toLocaleString("en-US")} tasks, ${RUNS} run(s) after 1 warm-up`);
  // A limit large enough for the ledger of the big board is part of the config a real team would set.
  const big = await buildBoard(TASKS, 1);
  const small = await buildBoard(Math.max(10, Math.round(TASKS / 10)), 2);
  console.log(
    `built ${big.files.toLocaleString("en-US")} files in ${fmt(big.buildMs / 1000)} s; small: ${small.files} files`,
  );
  const [auditM, floorM] = await measure(auditOnce(big.dir), floorOnce(big.dir));
  const [checkM, checkFloorM, checkSmallM] = await measure(
    checkOnce(big.dir),
    checkFloorOnce(big.dir),
    checkOnce(small.dir),
  );
  const ratio = auditM.median / floorM.median;
  const checkFloorRatio = checkM.median / checkFloorM.median;
  const checkRatio = checkM.median / checkSmallM.median;
  console.log();
  console.log(
    `audit (${TASKS} tasks)        median ${fmt(auditM.median)} ms  (min ${fmt(auditM.min)}, max ${fmt(auditM.max)})`,
  );
  console.log(
    `floor (read + JSON.parse)    median ${fmt(floorM.median)} ms  (min ${fmt(floorM.min)}, max ${fmt(floorM.max)})`,
  );
  console.log(
    `check (3-task PR)            median ${fmt(checkM.median)} ms  (min ${fmt(checkM.min)}, max ${fmt(checkM.max)})`,
  );
  console.log(`check floor (read + JSON.parse of both revisions' board files) median ${fmt(checkFloorM.median)} ms`);
  console.log(`check (3-task PR, ${Math.round(TASKS / 10)} tasks) median ${fmt(checkSmallM.median)} ms`);
  console.log();
  const verdict = (ok) => (ok ? "ok" : "MISSED");
  console.log(`audit/floor ${fmt(ratio, 2)}x (target <= ${TARGET_RATIO}x) ${verdict(ratio <= TARGET_RATIO)}`);
  console.log(
    `check ${fmt(checkM.median)} ms (target < ${TARGET_CHECK_MS} ms) ${verdict(checkM.median < TARGET_CHECK_MS)}`,
  );
  console.log(`check/check floor ${fmt(checkFloorRatio, 2)}x (the ledger is one file: every check reads it whole)`);
  console.log(`check big/small ${fmt(checkRatio, 2)}x (the ledger itself grows with the board; the rest does not)`);
  const auditReport = auditM.result;
  const checkReport = checkM.result;
  console.log(
    `sanity: audit ${auditReport.conclusion}, ${auditReport.violations.length} violation(s): ${[...new Set(auditReport.violations.map((v) => v.code))].join(", ") || "none"}`,
  );
  console.log(
    `sanity: check ${checkReport.conclusion}, ${checkReport.violations.length} violation(s), ${checkReport.pending.length} pending, transitions: ${checkReport.transitions.length}`,
  );
  for (const v of checkReport.violations.slice(0, 5)) console.warn(`bench: check violation: ${v.code} ${v.message}`);
  for (const v of auditReport.violations.slice(0, 5)) console.warn(`bench: audit violation: ${v.code} ${v.message}`);
  const auditSane = auditReport.violations.length === 0;
  const checkSane = checkReport.conclusion === "action_required" && checkReport.violations.length === 0;
  benchRow(
    `in process: board audit / floor (${TASKS.toLocaleString("en-US")} tasks)`,
    `${fmt(ratio, 2)}× (${fmt(auditM.median)} / ${fmt(floorM.median)} ms)${auditSane ? "" : ", unexpected violations"}`,
    `≤ ${TARGET_RATIO}×`,
    auditSane && ratio <= TARGET_RATIO,
  );
  benchRow(
    `in process: board 3-task check (${TASKS.toLocaleString("en-US")} tasks)`,
    `${fmt(checkM.median)} ms${checkSane ? "" : ", wrong result"}`,
    `< ${TARGET_CHECK_MS.toLocaleString("en-US")} ms`,
    checkSane && checkM.median < TARGET_CHECK_MS,
  );
  console.log(`total ${fmt((performance.now() - started) / 1000)} s`);
  const figures = (m) => ({ median: m.median, min: m.min, max: m.max });
  console.log(
    `BENCH_JSON ${JSON.stringify({
      preset: "board",
      tasks: TASKS,
      files: big.files,
      runs: RUNS,
      audit: figures(auditM),
      floor: figures(floorM),
      ratio: Math.round(ratio * 100) / 100,
      check: figures(checkM),
      checkFloor: figures(checkFloorM),
      checkFloorRatio: Math.round(checkFloorRatio * 100) / 100,
      checkSmall: figures(checkSmallM),
      checkRatio: Math.round(checkRatio * 100) / 100,
    })}`,
  );
} finally {
  cleanUp();
}
