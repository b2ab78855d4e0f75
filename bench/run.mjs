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
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RUNS, cleanUp, intFromEnv, measure, prng, run, tempDirs } from "./lib.mjs";

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

const DIST_FILES = ["dist/core/service.js", "dist/core/evaluate.js", "dist/core/config.js", "dist/git/repository.js"];
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
const { CONFIG_PATH, readLimits } = await load("dist/core/config.js");
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
// Synthetic repositories

const WORDS = (
  "the task spec design test plan edge case input output error retry cache index parser state " +
  "approval review branch commit merge build release user config limit file folder path token " +
  "request response timeout queue worker schedule metric log trace handler module service client " +
  "server should must may never always when unless because therefore however consider verify"
).split(" ");

/** Builds a pool of paragraphs once; file bodies are a few of them behind a file-specific heading. */
function paragraphs(random, count) {
  const pool = [];
  for (let i = 0; i < count; i++) {
    const words = [];
    const length = 30 + Math.floor(random() * 90);
    for (let w = 0; w < length; w++) words.push(WORDS[Math.floor(random() * WORDS.length)]);
    pool.push(`${words.join(" ")}.`);
  }
  return pool;
}

const pad = (n) => String(n).padStart(5, "0");
const APPROVED_AT = (day) => `2024-05-${String((day % 28) + 1).padStart(2, "0")}T09:30:00Z`;

/**
 * The state mix of a repository that has run for a while: many finished tasks, a good share in
 * research and implementation, a few in every other state. Weights sum to 100.
 */
const STATE_MIX = [
  ["research", 12],
  ["research:awaiting_approval", 5],
  ["design", 3],
  ["implement", 20],
  ["bug_find", 8],
  ["adversarial_bug_find", 5],
  ["doc_review", 7],
  ["referee", 4],
  ["complete", 36],
];

/**
 * Plans the tasks of a repository: per task, its state and files. About 1% of the tasks carry one
 * deliberate defect each (exactly one violation), so the audit has something to report.
 */
function planRepository(taskCount, srcCount, seed) {
  const random = prng(seed);
  const pool = paragraphs(random, 64);
  const body = (title, min, max) => {
    const parts = [`# ${title}`, ""];
    const n = min + Math.floor(random() * (max - min + 1));
    for (let i = 0; i < n; i++) parts.push(pool[Math.floor(random() * pool.length)], "");
    return parts.join("\n");
  };
  const pickState = () => {
    let roll = random() * 100;
    for (const [state, weight] of STATE_MIX) {
      roll -= weight;
      if (roll < 0) return state;
    }
    return "complete";
  };

  const tasks = [];
  let defects = 0;
  for (let i = 1; i <= taskCount; i++) {
    const id = `task-${pad(i)}`;
    const state = pickState();
    const files = new Map();
    const approvals = [];
    const viaDesign = random() < 0.25; // went research → design → implement
    const at = STAGE_ORDER.indexOf(state);
    const past = (stage) => at > STAGE_ORDER.indexOf(stage);
    const reached = (stage) => at >= STAGE_ORDER.indexOf(stage);

    files.set("SPEC.md", body(`${id}: specification`, 2, 5));
    if (past("research:awaiting_approval")) approvals.push(`research:approved|${APPROVED_AT(i)}|alice`);
    if (state === "design" || (viaDesign && past("design"))) {
      if (state !== "design" || random() < 0.7) files.set("DESIGN.md", body(`${id}: design`, 2, 4));
      if (state !== "design") approvals.push(`design:approved|${APPROVED_AT(i + 3)}|bob`);
    }
    if (reached("bug_find") && (past("bug_find") || random() < 0.6)) {
      files.set("BUG_REPORT.md", body(`${id}: bug report`, 1, 3));
    }
    if (reached("adversarial_bug_find") && (past("adversarial_bug_find") || random() < 0.6)) {
      files.set("ADVERSARIAL_BUG_REPORT.md", body(`${id}: adversarial bug report`, 1, 3));
    }
    if (reached("doc_review") && (past("doc_review") || random() < 0.6)) {
      files.set("DOC_REVIEW.md", body(`${id}: documentation review`, 1, 2));
    }
    if (reached("referee") && (past("referee") || random() < 0.5)) {
      files.set("VERDICT.md", `# ${id}: verdict\n\nPASS\n\n${pool[i % pool.length]}\n`);
    }
    if (random() < 0.5) files.set("NOTES.md", body(`${id}: notes`, 1, 3));

    // One defect in about 1% of the tasks, each worth exactly one violation.
    let defect;
    if (random() < 0.01) {
      if (state === "complete") {
        files.set("VERDICT.md", `# ${id}: verdict\n\nFAIL\n`);
        defect = "verdict-not-pass";
      } else if (state === "implement" && !viaDesign) {
        approvals.length = 0;
        defect = "approval-forged";
      } else if (state === "research") {
        files.set("DESIGN.md", body(`${id}: design`, 1, 2));
        defect = "artifact-forbidden";
      } else if (state === "doc_review") {
        files.set("ADVERSARIAL_BUG_REPORT.md", "");
        defect = "artifact-empty";
      }
      if (defect) defects++;
    }

    files.set(".state", `${state}\n`);
    files.set(".state.approvals", approvals.map((line) => `${line}\n`).join(""));
    tasks.push({ id, state, files, viaDesign, defect });
  }

  const src = [];
  for (let i = 1; i <= srcCount; i++) {
    const lines = [`// module ${i}`, `export const id${i} = ${i};`];
    const n = 10 + Math.floor(random() * 60);
    for (let l = 0; l < n; l++) lines.push(`// ${pool[(i + l) % pool.length].slice(0, 70)}`);
    src.push([`src/pkg-${String(i % 20).padStart(2, "0")}/module-${pad(i)}.ts`, `${lines.join("\n")}\n`]);
  }
  return { tasks, src, defects, body };
}

/** Pipeline order of the states the planner uses (for "is the task past stage X"). */
const STAGE_ORDER = [
  "research",
  "research:awaiting_approval",
  "research:approved",
  "design",
  "implement",
  "bug_find",
  "adversarial_bug_find",
  "doc_review",
  "referee",
  "complete",
];

/**
 * The pull request (one commit by carol on branch `pr`): moves a clean `implement` task to
 * `bug_find` (adds BUG_REPORT.md, edits a project file), a clean `research` task to
 * `research:awaiting_approval`, and adds a new task at `research`.
 */
function planPullRequest(plan) {
  const clean = (state) =>
    plan.tasks.find((task) => task.state === state && !task.defect && !task.files.has("BUG_REPORT.md"));
  const implement = clean("implement");
  const research = clean("research");
  if (!implement || !research) throw new Error("the synthetic repository has no clean implement/research task");
  const newId = `task-${pad(plan.tasks.length + 1)}`;
  const [srcPath, srcText] = plan.src[0];
  return {
    tasks: [implement.id, research.id, newId],
    files: [
      [`tasks/${implement.id}/.state`, "bug_find\n"],
      [`tasks/${implement.id}/BUG_REPORT.md`, plan.body(`${implement.id}: bug report`, 1, 2)],
      [srcPath, `${srcText}// fixed while looking for bugs\n`],
      [`tasks/${research.id}/.state`, "research:awaiting_approval\n"],
      [`tasks/${newId}/.state`, "research\n"],
      [`tasks/${newId}/.state.approvals`, ""],
      [`tasks/${newId}/SPEC.md`, plan.body(`${newId}: specification`, 1, 3)],
    ],
  };
}

/** The fast-import stream: `main` with every file, then `pr` on top of it. */
function* importStream(plan, pr) {
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const file = (path, text) => `M 100644 inline ${path}\n${data(text)}`;
  const who = (name, time) => `${name} <${name}@example.com> ${time} +0000`;

  yield `commit refs/heads/main\nmark :1\nauthor ${who("alice", 1714550400)}\ncommitter ${who("alice", 1714550400)}\n`;
  yield data(`Synthetic repository: ${plan.tasks.length} tasks\n`);
  yield file(CONFIG_PATH, "preset: phases\n");
  yield file("README.md", "# Synthetic taskgate repository\n");
  for (const [path, text] of plan.src) yield file(path, text);
  for (const task of plan.tasks) {
    let chunk = "";
    for (const [name, text] of task.files) chunk += file(`tasks/${task.id}/${name}`, text);
    yield chunk;
  }
  yield "\n";

  yield `commit refs/heads/pr\nmark :2\nauthor ${who(PR_AUTHOR, 1714640400)}\ncommitter ${who(PR_AUTHOR, 1714640400)}\n`;
  yield data(`Move ${pr.tasks.join(", ")}\n`);
  yield "from :1\n";
  for (const [path, text] of pr.files) yield file(path, text);
  yield "\ndone\n";
}

/** Creates a bare repository in a new temporary folder and fills it with one fast-import process. */
async function buildRepository(taskCount, srcCount, seed) {
  const started = performance.now();
  const plan = planRepository(taskCount, srcCount, seed);
  const pr = planPullRequest(plan);
  const dir = mkdtempSync(join(tmpdir(), "taskgate-bench-"));
  tempDirs.push(dir);
  await run("git", ["init", "-q", "--bare", "-b", "main", dir]);
  await run("git", ["fast-import", "--quiet", "--done"], { cwd: dir, input: Readable.from(importStream(plan, pr)) });
  const files = plan.tasks.reduce((sum, task) => sum + task.files.size, 0) + plan.src.length + 2;
  return { dir, plan, pr, files, buildMs: performance.now() - started };
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

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
