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
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RUNS, cleanUp, intFromEnv, measure, prng, run, tempDirs } from "./lib.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TASKS = intFromEnv("BENCH_TASKS", 10_000, 100);
const TARGET_RATIO = 3;
const TARGET_CHECK_MS = 1000;

if (!existsSync(join(ROOT, "dist/core/service.js"))) {
  console.error("bench: dist/core/service.js is missing: run npm run build first");
  process.exit(1);
}
const load = (file) => import(pathToFileURL(join(ROOT, file)).href);
const { auditRevision, checkPullRequest, loadConfig, renderStatus } = await load("dist/core/service.js");
const { GitRepository } = await load("dist/git/repository.js");
const { readLimits } = await load("dist/core/config.js");

// ---------------------------------------------------------------------------------------------
// The synthetic board

const ROLES = ["front", "backend", "protocol", "crypto", "storage", "media", "realtime", "security", "qa", "docs"];
// Every role a definition names is configured; the PR's author, carol, is a maintainer (its pull
// request also plans a new task).
const CONFIG = `preset: board\nmaintainers: [carol]\nroles:\n${ROLES.map((role) => `  ${role}: [${role === "qa" ? "quinn" : "carol"}]`).join("\n")}\n`;
const id = (n) => `T${String(n).padStart(5, "0")}`;
const at = (n) => `2026-0${1 + (n % 9)}-${String(1 + (n % 28)).padStart(2, "0")}T10:00:00Z`;

/** Definitions, ledger and the files they name. Statuses: 40% done, 10% review, 15% in progress, 5% blocked. */
function planBoard(count, seed) {
  const random = prng(seed);
  const definitions = [];
  const tasks = {};
  const files = new Map();
  const done = [];
  let revision = 0;
  const carolTask = { claimable: undefined, submittable: undefined };
  for (let n = 1; n <= count; n++) {
    const task = id(n);
    const role = ROLES[n % ROLES.length];
    const roll = random();
    const status =
      roll < 0.4 ? "done" : roll < 0.5 ? "review" : roll < 0.65 ? "in_progress" : roll < 0.7 ? "blocked" : "todo";
    const pool = status === "todo" || status === "blocked" ? definitions.map((d) => d.id) : done;
    const depends_on = [];
    for (let k = Math.floor(random() * 3); k > 0 && pool.length > 0; k--) {
      const dep = pool[Math.floor(random() * Math.min(pool.length, 200)) + Math.max(0, pool.length - 200)];
      if (dep && !depends_on.includes(dep)) depends_on.push(dep);
    }
    definitions.push({
      id: task,
      title: `Task ${n}: ${role} work item`,
      role,
      stage: `S${1 + Math.floor((n - 1) / Math.max(1, Math.round(count / 20)))}`,
      reviewer_role: "qa",
      depends_on,
      paths: [`src/${role}/${task}/**`],
      outcome: `The ${role} part ${n} works and is tested.`,
      steps: ["implement", "test"],
      checks: ["npm test"],
      external: false,
    });
    const owner = `agent-${n}/run-1`;
    const history = [];
    if (status !== "todo") history.push({ at: at(n), by: owner, action: "claim", from: "todo", to: "in_progress" });
    if (status === "review" || status === "done") {
      history.push({
        at: at(n + 1),
        by: owner,
        action: "submit",
        from: "in_progress",
        to: "review",
        evidence: `state/evidence/${task}.md`,
        handoff: `state/handoffs/${task}.md`,
      });
      files.set(`state/evidence/${task}.md`, `# Evidence for ${task}\n\nnpm test: ${n % 90} passed\n`);
      files.set(`state/handoffs/${task}.md`, `# Handoff ${task}\n\nDone as specified; see evidence.\n`);
    }
    if (status === "done") {
      history.push({ at: at(n + 2), by: "quinn", action: "approve", from: "review", to: "done" });
      done.push(task);
    }
    let blocked_by = [];
    if (status === "blocked") {
      history.push({ at: at(n + 1), by: owner, action: "escalate", from: "in_progress", to: "blocked" });
      blocked_by = [id(Math.max(1, n - 1))];
      files.set(`state/issues/${task}-run-1.json`, `{"task": "${task}", "problem": "missing interface"}\n`);
      files.set(`state/handoffs/${task}.md`, `# Handoff ${task}\n\nBlocked; see the issue report.\n`);
    }
    if (status === "todo") {
      if (depends_on.length === 0 && !carolTask.claimable) carolTask.claimable = task;
      continue;
    }
    const unfinished = status === "in_progress" || status === "review";
    const entryOwner = unfinished ? owner : null;
    if (status === "in_progress" && !carolTask.submittable) {
      // One task claimed by carol's agent, for the PR to submit.
      for (const item of history) item.by = "carol/a1";
      tasks[task] = { status, owner: "carol/a1", external_wait: false, blocked_by, history };
      carolTask.submittable = task;
    } else {
      tasks[task] = { status, owner: entryOwner, external_wait: false, blocked_by, history };
    }
    revision += history.length;
  }
  return { definitions, ledger: { revision, tasks }, files, carol: carolTask };
}

function* importStream(plan, rendered) {
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const file = (path, text) => `M 100644 inline ${path}\n${data(text)}`;
  const who = (name, time) => `${name} <${name}@example.com> ${time} +0000`;
  yield `commit refs/heads/main\nauthor ${who("alice", 1764500000)}\ncommitter ${who("alice", 1764500000)}\n`;
  yield data("Synthetic board\n");
  yield file(".github/taskgate.yml", CONFIG);
  yield file("planning/tasks.json", `${JSON.stringify({ tasks: plan.definitions }, null, 2)}\n`);
  yield file("state/tasks.json", `${JSON.stringify(plan.ledger, null, 2)}\n`);
  for (const [path, text] of plan.files) yield file(path, text);
  for (const [path, text] of rendered ?? []) yield file(path, text);
  yield "\ndone\n";
}

/** The PR: carol claims one task, submits another, and plans a new one. */
function* prStream(plan) {
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const file = (path, text) => `M 100644 inline ${path}\n${data(text)}`;
  const who = (name, time) => `${name} <${name}@example.com> ${time} +0000`;
  const { claimable, submittable } = plan.carol;
  const ledger = structuredClone(plan.ledger);
  ledger.tasks[claimable] = {
    status: "in_progress",
    owner: "carol/a2",
    external_wait: false,
    blocked_by: [],
    history: [{ at: "2026-11-30T10:00:00Z", by: "carol/a2", action: "claim", from: "todo", to: "in_progress" }],
  };
  const submitted = ledger.tasks[submittable];
  submitted.status = "review";
  submitted.history.push({
    at: "2026-11-30T11:00:00Z",
    by: "carol/a1",
    action: "submit",
    from: "in_progress",
    to: "review",
    evidence: `state/evidence/${submittable}.md`,
  });
  ledger.revision += 2;
  const fresh = id(plan.definitions.length + 1);
  const definitions = [
    ...plan.definitions,
    { ...plan.definitions[0], id: fresh, title: "A new task", depends_on: [], paths: [`src/new/${fresh}/**`] },
  ];
  const role = plan.definitions.find((d) => d.id === claimable).role;
  yield `commit refs/heads/pr\nauthor ${who("carol", 1764600000)}\ncommitter ${who("carol", 1764600000)}\n`;
  yield data("claim, submit, plan\n");
  yield "from refs/heads/main^0\n";
  yield file("planning/tasks.json", `${JSON.stringify({ tasks: definitions }, null, 2)}\n`);
  yield file("state/tasks.json", `${JSON.stringify(ledger, null, 2)}\n`);
  yield file(`state/evidence/${submittable}.md`, "# Evidence\n\nnpm test: 12 passed\n");
  yield file(`state/handoffs/${submittable}.md`, "# Handoff\n\nReady for review.\n");
  yield file(`src/${role}/${claimable}/index.ts`, "export const started = true;\n");
  yield "\ndone\n";
}

async function buildBoard(count, seed) {
  const started = performance.now();
  const plan = planBoard(count, seed);
  const dir = mkdtempSync(join(tmpdir(), "taskgate-bench-board-"));
  tempDirs.push(dir);
  await run("git", ["init", "-q", "--bare", "-b", "main", dir]);
  await run("git", ["fast-import", "--quiet", "--done"], { cwd: dir, input: Readable.from(importStream(plan)) });
  // Render the status files from the board itself and commit them, as a repository that renders has.
  const repo = await GitRepository.open(dir);
  const rendered = await renderStatus(repo, await repo.resolve("main"));
  await run("git", ["fast-import", "--quiet", "--done", "--force"], {
    cwd: dir,
    input: Readable.from(importStream(plan, rendered.files)),
  });
  await run("git", ["fast-import", "--quiet", "--done"], { cwd: dir, input: Readable.from(prStream(plan)) });
  const files = plan.files.size + rendered.files.size + 3;
  return { dir, plan, files, buildMs: performance.now() - started };
}

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
