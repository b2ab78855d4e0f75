#!/usr/bin/env node
/**
 * taskgate through the command a user runs: `node bin/taskgate.js <verb> --repo DIR ...` on real git
 * repositories (bench/repos.mjs), timed in CPU time (user + system, of the process and of the git
 * processes it runs: bench/cpu.mjs). Every figure is the median of BENCH_RUNS runs (default 7) after
 * one warm-up run, and the measurements a figure compares run interleaved, round by round, so a
 * change in the machine's load touches all of them alike. Every run's result is checked (exit code,
 * conclusion, counts) before its time is kept: a command that answers wrongly gives no figure.
 *
 * - growth: the CPU time at N and at 2N (target <= 2.2x) of a phases pull request adding N tasks, a
 *   board pull request appending N history entries to one task, one adding N definitions, and the
 *   audits of N phases tasks and of a board of N tasks;
 * - floors: audits at BENCH_TASKS tasks against the least any correct audit must do (bench/floor.mjs,
 *   target <= 1.3x), a 3-task board check against reading and parsing its ledgers and definitions
 *   (<= 2.5x), a 3-task phases check against the same check on a tenth of the tasks (<= 1.3x) and
 *   against a bare `node -e ""` plus one `git ls-tree -r` of the repository (<= 3x);
 * - memory: peak RSS of the audits of a 100,000-task phases repository and of a 50,000-task board,
 *   against the task store's size (target <= 12x the store + 150 MB).
 *
 * Settings: BENCH_TASKS (10,000), BENCH_RUNS (7), BENCH_CLI_PR_N (5,000), BENCH_CLI_HISTORY_N (100,000),
 * BENCH_CLI_DEFINITIONS_N (20,000), BENCH_MEM_PHASES (100,000), BENCH_MEM_BOARD (50,000; 0 skips either),
 * BENCH_CLI_FIGURES (which groups of figures: pr, history, definitions, audit-phases, audit-board,
 * check-board, check-phases, memory-phases, memory-board; default all). Prints `BENCH_ROW {...}` per
 * figure and `BENCH_JSON {...}` last. Exit code 0 whatever the timings.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { cpuTime, peakRss } from "./cpu.mjs";
import { RUNS, benchRow, cleanUp, intFromEnv, tempDirs } from "./lib.mjs";
import {
  BOARD_CONFIG,
  LARGE_FILES,
  boardThreeTaskChange,
  buildBoard,
  buildDefinitionsBoard,
  buildHistoryBoard,
  buildPhases,
  newTasksChange,
  threeTaskChange,
} from "./repos.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin/taskgate.js");
const FLOOR = join(ROOT, "bench/floor.mjs");

// ---------------------------------------------------------------------------------------------
// Settings

const TASKS = intFromEnv("BENCH_TASKS", 10_000, 100);
const SMALL = Math.max(10, Math.round(TASKS / 10));
const HALF = Math.max(10, Math.round(TASKS / 2));
const PR_N = intFromEnv("BENCH_CLI_PR_N", 5_000, 2);
const HISTORY_N = intFromEnv("BENCH_CLI_HISTORY_N", 100_000, 2);
const DEFINITIONS_N = intFromEnv("BENCH_CLI_DEFINITIONS_N", 20_000, 2);
const MEM_PHASES = intFromEnv("BENCH_MEM_PHASES", 100_000, 0);
const MEM_BOARD = intFromEnv("BENCH_MEM_BOARD", 50_000, 0);
/** The groups of figures, each measured on its own (BENCH_CLI_FIGURES=pr,check-board runs two of them). */
const GROUPS = [
  "pr",
  "history",
  "definitions",
  "audit-phases",
  "audit-board",
  "check-board",
  "check-phases",
  "memory-phases",
  "memory-board",
];
const SELECTED = new Set((process.env.BENCH_CLI_FIGURES ?? GROUPS.join(",")).split(",").map((name) => name.trim()));
for (const name of SELECTED) {
  if (!GROUPS.includes(name)) {
    console.error(`bench: BENCH_CLI_FIGURES takes ${GROUPS.join(", ")}; got "${name}"`);
    process.exit(1);
  }
}

const GROWTH_LIMIT = 2.2;
const AUDIT_FLOOR_LIMIT = 1.3;
const BOARD_CHECK_FLOOR_LIMIT = 2.5;
const CHECK_SIZE_LIMIT = 1.3;
const CHECK_START_LIMIT = 3;
const MEMORY_FACTOR = 12;
const MEMORY_EXTRA = 150 * 1024 * 1024;

if (!existsSync(join(ROOT, "dist/cli/main.js"))) {
  console.error("bench: dist/cli/main.js is missing: run npm run build first");
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Formatting

const int = (n) => n.toLocaleString("en-US");
const fixed = (n, digits = 2) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const secs = (n) => `${fixed(n, 2)} s`;
const mb = (bytes) => {
  const value = bytes / (1024 * 1024);
  return `${value < 10 ? fixed(value, 1) : int(Math.round(value))} MB`;
};
const times = (ratio) => `${fixed(ratio, 2)}×`;

/** Every figure: printed as a BENCH_ROW line at once, and in the table at the end. */
const rows = [];
function row(measure, value, target, met, detail = {}) {
  rows.push({ measure, value, target, met, ...detail });
  benchRow(measure, value, target, met);
}

// ---------------------------------------------------------------------------------------------
// Commands and the checks of their results

/** taskgate's exit codes (success, failure, usage or config error, pending): its report tells which. */
const EXIT_CODES = [0, 1, 2, 3];

/** `taskgate <args>` as a user runs it. */
const taskgate = (args) => () => cpuTime(process.execPath, [BIN, ...args], { exitCodes: EXIT_CODES });

/**
 * Reads taskgate's text report: the summary line (conclusion and counts), the violation codes (one
 * line each, before `pending:`) and the `moved:` lines.
 */
function readReport(stdout) {
  const lines = stdout.trimEnd().split("\n");
  const summary = /^(\w+): (\d+) violation\(s\), (\d+) pending approval\(s\)/.exec(lines.at(-1) ?? "");
  if (!summary) return undefined;
  const codes = {};
  let moved = 0;
  let inPending = false;
  for (const line of lines.slice(1, -1)) {
    if (line === "pending:") inPending = true;
    else if (line.startsWith("moved: ")) moved++;
    else if (!inPending && !line.startsWith("to record: ")) {
      const code = /^.*?: ([a-z][a-z0-9-]*): /.exec(line)?.[1];
      if (code) codes[code] = (codes[code] ?? 0) + 1;
    }
  }
  return { conclusion: summary[1], violations: Number(summary[2]), pending: Number(summary[3]), moved, codes };
}

const firstLines = (text, count = 3) => text.trim().split("\n").slice(0, count).join(" | ");

/**
 * A check of a taskgate report: the exit code, and each field of `expected` that is given
 * (`conclusion`, `violations`, `pending`, `moved`, `codes`). Returns what is wrong, or undefined.
 */
const expectReport = (expected) => (result) => {
  const report = readReport(result.stdout);
  const wrong = [];
  if (result.code !== expected.code) wrong.push(`exit code ${result.code}, expected ${expected.code}`);
  if (!report) wrong.push("no summary line");
  else {
    for (const key of ["conclusion", "violations", "pending", "moved"]) {
      if (expected[key] !== undefined && report[key] !== expected[key])
        wrong.push(`${key} ${report[key]}, expected ${expected[key]}`);
    }
    if (expected.codes && JSON.stringify(sorted(report.codes)) !== JSON.stringify(sorted(expected.codes)))
      wrong.push(`violations ${JSON.stringify(report.codes)}, expected ${JSON.stringify(expected.codes)}`);
  }
  if (wrong.length === 0) return undefined;
  const shown = report ? firstLines(result.stdout.split("\n").slice(1).join("\n")) : firstLines(result.stderr);
  return `${wrong.join("; ")}${shown ? ` (${shown})` : ""}`;
};
const sorted = (counts) => Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));

/** A floor (bench/floor.mjs): exit 0 and a JSON line whose fields equal `expected`. */
const floor = (args) => () => cpuTime(process.execPath, [FLOOR, ...args]);
const expectFloor = (expected) => (result) => {
  if (result.code !== 0) return `exit code ${result.code}: ${firstLines(result.stderr)}`;
  let found;
  try {
    found = JSON.parse(result.stdout);
  } catch {
    return `no JSON from the floor: ${firstLines(result.stdout)}`;
  }
  for (const [key, value] of Object.entries(expected)) {
    if (JSON.stringify(found[key]) !== JSON.stringify(value))
      return `the floor found ${key} ${JSON.stringify(found[key])}, expected ${JSON.stringify(value)}`;
  }
  return undefined;
};
const expectExit0 = (result) =>
  result.code === 0 ? undefined : `exit code ${result.code}: ${firstLines(result.stderr)}`;

/** Counts of the planted defects of a phases plan, by violation code. */
function plantedCodes(plan) {
  const codes = {};
  for (const task of plan.tasks) if (task.defect) codes[task.defect] = (codes[task.defect] ?? 0) + 1;
  return codes;
}

// ---------------------------------------------------------------------------------------------
// Measuring

const median = (values) => {
  const list = [...values].sort((a, b) => a - b);
  const mid = list.length >> 1;
  return list.length % 2 ? list[mid] : (list[mid - 1] + list[mid]) / 2;
};

/**
 * Runs `jobs` (`{ label, run, verify }`) once each to warm up, then BENCH_RUNS rounds of all of them
 * in turn. A job whose result `verify` finds wrong is dropped at once (its `problem` says why) and
 * gets no figure. Returns, per job, the medians of total, user and system CPU and wall time (s).
 */
async function measureGroup(title, jobs) {
  const started = performance.now();
  process.stdout.write(`measuring ${title}: ${jobs.length} commands × (1 + ${RUNS}) runs ...`);
  const state = jobs.map((job) => ({ job, problem: undefined, runs: [] }));
  for (let round = 0; round <= RUNS; round++) {
    for (const entry of state) {
      if (entry.problem) continue;
      let result;
      let problem;
      try {
        result = await entry.job.run();
        problem = entry.job.verify(result);
      } catch (error) {
        problem = error.message.split("\n").slice(0, 3).join(" | ");
      }
      if (problem) {
        entry.problem = problem;
        console.warn(`\nbench: warning: ${entry.job.label}: ${problem}; no figure from it`);
      } else if (round > 0) entry.runs.push(result);
    }
  }
  console.log(` ${fixed((performance.now() - started) / 1000, 1)} s`);
  return state.map(({ job, problem, runs }) => ({
    label: job.label,
    problem,
    total: problem ? NaN : median(runs.map((r) => r.total)),
    user: problem ? NaN : median(runs.map((r) => r.user)),
    sys: problem ? NaN : median(runs.map((r) => r.sys)),
    wall: problem ? NaN : median(runs.map((r) => r.wall)),
  }));
}

/** Runs two commands one after the other as one job: their times add up (a floor made of two parts). */
const both = (first, second) => async () => {
  const [a, b] = [await first(), await second()];
  return {
    user: a.user + b.user,
    sys: a.sys + b.sys,
    total: a.total + b.total,
    wall: a.wall + b.wall,
    code: a.code || b.code,
    stdout: b.stdout,
    stderr: a.stderr + b.stderr,
  };
};

const measured = [];
function keep(results) {
  for (const result of results) measured.push(result);
  return results;
}

/** Why a figure has no value: the problems of the measurements it needs. */
const invalid = (...results) =>
  results
    .filter((result) => result.problem)
    .map((result) => `${result.label}: ${result.problem}`)
    .join("; ");

/**
 * A growth figure from the runs at 1, N and 2N. The ratio is 2N over N. The 1-change run is what the
 * command costs whatever N (Node.js's start, loading, the config, git's set-up): the net ratio,
 * (2N - 1) / (N - 1), is the growth of the rest. The figure meets its target when the ratio does,
 * and the net ratio too once the part that grows is at least as large as the fixed part (below that,
 * the net ratio is mostly noise, and the detail says so).
 */
function growthRow(measure, [one, atN, at2N], n) {
  const problems = invalid(one, atN, at2N);
  if (problems) {
    row(measure, "no figure: a command answered wrongly", `≤ ${GROWTH_LIMIT}×`, false, { problems });
    return;
  }
  const ratio = at2N.total / atN.total;
  const growing = atN.total - one.total;
  const net = (at2N.total - one.total) / growing;
  const judged = growing >= one.total;
  const met = ratio <= GROWTH_LIMIT && (!judged || net <= GROWTH_LIMIT);
  const value = `${times(ratio)} (${secs(atN.total)} → ${secs(at2N.total)}; net ${judged ? times(net) : `${times(net)}, too small to judge`})`;
  row(measure, value, `≤ ${GROWTH_LIMIT}×`, met, {
    n,
    seconds: [one.total, atN.total, at2N.total],
    ratio,
    net,
  });
}

/** A ratio figure: `a / b`, met when at most `limit`. */
function ratioRow(measure, a, b, limit, describe) {
  const problems = invalid(a, b);
  if (problems) {
    row(measure, "no figure: a command answered wrongly", `≤ ${limit}×`, false, { problems });
    return;
  }
  const ratio = a.total / b.total;
  row(
    measure,
    `${times(ratio)} (${secs(a.total)} / ${secs(b.total)})`,
    `≤ ${limit}×${describe ? ` ${describe}` : ""}`,
    ratio <= limit,
    {
      seconds: [a.total, b.total],
      ratio,
    },
  );
}

function removeRepository(repo) {
  if (process.env.BENCH_KEEP) return;
  rmSync(repo.dir, { recursive: true, force: true });
  tempDirs.splice(tempDirs.indexOf(repo.dir), 1);
}

/** The sum of the sizes of the blobs under `paths` at `main`: the task store's size. */
async function storeBytes(dir, paths) {
  const listing = await cpuTime("git", ["ls-tree", "-r", "-z", "-l", "main", "--", ...paths], { cwd: dir });
  let bytes = 0;
  for (const record of listing.stdout.split("\0")) {
    const size = Number(record.slice(0, record.indexOf("\t")).trim().split(/ +/)[3]);
    if (Number.isFinite(size)) bytes += size;
  }
  return bytes;
}

function built(label, repo) {
  console.log(`built ${label}: ${int(repo.files)} files in ${fixed(repo.buildMs / 1000, 1)} s`);
  return repo;
}

// ---------------------------------------------------------------------------------------------
// The figures

const prFiles = mkdtempSync(join(tmpdir(), "taskgate-bench-pr-"));
tempDirs.push(prFiles);
const prJson = (author) => {
  const path = join(prFiles, `${author}.json`);
  writeFileSync(path, `${JSON.stringify({ author })}\n`);
  return path;
};

/** (a) a phases pull request adding N tasks, on a SMALL-task repository; also the 3-task check there. */
async function phasesPullRequests(small) {
  const check = (head) => taskgate(["check", "--repo", small.dir, "--base", "main", "--head", head]);
  const jobs = [1, PR_N, 2 * PR_N].map((n) => ({
    label: `check of a phases PR adding ${int(n)} task(s)`,
    run: check(`add-${n}`),
    verify: expectReport({ code: 0, conclusion: "success", violations: 0, pending: 0, moved: n }),
  }));
  const results = keep(await measureGroup(`phases PRs adding 1, ${int(PR_N)}, ${int(2 * PR_N)} tasks`, jobs));
  growthRow(`CLI growth ×2: phases PR adding N tasks (N = ${int(PR_N)})`, results, PR_N);
}

/** (b) a board pull request appending N history entries to one task. */
async function boardHistory() {
  const sizes = [1, HISTORY_N, 2 * HISTORY_N];
  const repo = built(
    `one-task board, branches of ${sizes.map(int).join(", ")} history entries`,
    await buildHistoryBoard(sizes),
  );
  const pr = prJson("alice");
  const jobs = sizes.map((n) => ({
    label: `check of a board PR appending ${int(n)} history entries`,
    run: taskgate(["check", "--repo", repo.dir, "--base", "main", "--head", `history-${n}`, "--pr", pr]),
    verify: expectReport({ code: 0, conclusion: "success", violations: 0, pending: 0 }),
  }));
  const results = keep(await measureGroup("board PRs appending history entries", jobs));
  growthRow(
    `CLI growth ×2: board PR appending N history entries to one task (N = ${int(HISTORY_N)})`,
    results,
    HISTORY_N,
  );
  removeRepository(repo);
}

/** (c) a board pull request adding N definitions. */
async function boardDefinitions() {
  const sizes = [1, DEFINITIONS_N, 2 * DEFINITIONS_N];
  const repo = built(
    `one-task board, branches of ${sizes.map(int).join(", ")} new definitions`,
    await buildDefinitionsBoard(sizes),
  );
  const pr = prJson("alice");
  const jobs = sizes.map((n) => ({
    label: `check of a board PR adding ${int(n)} definitions`,
    run: taskgate(["check", "--repo", repo.dir, "--base", "main", "--head", `definitions-${n}`, "--pr", pr]),
    verify: expectReport({ code: 0, conclusion: "success", violations: 0, pending: 0 }),
  }));
  const results = keep(await measureGroup("board PRs adding definitions", jobs));
  growthRow(`CLI growth ×2: board PR adding N definitions (N = ${int(DEFINITIONS_N)})`, results, DEFINITIONS_N);
  removeRepository(repo);
}

/** (d) and the audit floor, phases: audits of 1, HALF and TASKS tasks, and the floor at TASKS, interleaved. */
async function phasesAudits(one, half, full) {
  const audit = (repo, label) => ({
    label: `phases audit of ${label}`,
    run: taskgate(["audit", "--repo", repo.dir, "--ref", "main"]),
    verify: expectReport({
      code: repo.plan.defects > 0 ? 1 : 0,
      violations: repo.plan.defects,
      codes: plantedCodes(repo.plan),
      pending: 0,
    }),
  });
  const jobs = [
    audit(one, "1 task"),
    audit(half, `${int(HALF)} tasks`),
    audit(full, `${int(TASKS)} tasks`),
    {
      label: `phases audit floor, ${int(TASKS)} tasks`,
      run: floor(["audit-phases", full.dir, "main"]),
      verify: expectFloor({ tasks: TASKS }),
    },
  ];
  const [auditOne, auditHalf, auditFull, auditFloor] = keep(await measureGroup("phases audits", jobs));
  growthRow(`CLI growth ×2: phases audit of N tasks (N = ${int(HALF)})`, [auditOne, auditHalf, auditFull], HALF);
  ratioRow(`CLI phases audit / its floor (${int(TASKS)} tasks)`, auditFull, auditFloor, AUDIT_FLOOR_LIMIT);
}

/** (d) and the audit floor, board: audits of boards of 1, HALF and TASKS tasks, and the floor at TASKS, interleaved. */
async function boardAudits(one, half, full) {
  const audit = (repo, label) => ({
    label: `board audit of ${label}`,
    run: taskgate(["audit", "--repo", repo.dir, "--ref", "main"]),
    verify: expectReport({ code: 0, conclusion: "success", violations: 0, pending: 0 }),
  });
  const jobs = [
    audit(one, "1 task"),
    audit(half, `${int(HALF)} tasks`),
    audit(full, `${int(TASKS)} tasks`),
    {
      label: `board audit floor, ${int(TASKS)} tasks`,
      run: floor(["audit-board", full.dir, "main"]),
      verify: expectFloor({ definitions: TASKS }),
    },
  ];
  const [auditOne, auditHalf, auditFull, auditFloor] = keep(await measureGroup("board audits", jobs));
  growthRow(`CLI growth ×2: board audit of N tasks (N = ${int(HALF)})`, [auditOne, auditHalf, auditFull], HALF);
  ratioRow(`CLI board audit / its floor (${int(TASKS)} tasks)`, auditFull, auditFloor, AUDIT_FLOOR_LIMIT);
}

/** The 3-task board check at TASKS tasks against reading and parsing its two ledgers and definitions. */
async function boardCheck(full) {
  const jobs = [
    {
      label: `board 3-task check, ${int(TASKS)} tasks`,
      run: taskgate(["check", "--repo", full.dir, "--base", "main", "--head", "pr", "--pr", prJson("carol")]),
      verify: expectReport({ code: 3, conclusion: "action_required", violations: 0, pending: 1 }),
    },
    {
      label: `board check floor, ${int(TASKS)} tasks`,
      run: floor(["check-board", full.dir, "main", "pr"]),
      verify: expectFloor({ definitions: [TASKS, TASKS + 1] }),
    },
  ];
  const [check, checkFloor] = keep(await measureGroup("the board's 3-task check", jobs));
  ratioRow(`CLI board 3-task check / its floor (${int(TASKS)} tasks)`, check, checkFloor, BOARD_CHECK_FLOOR_LIMIT);
}

/** The 3-task phases check at TASKS tasks, at SMALL tasks, and a bare start plus one `git ls-tree -r`. */
async function phasesCheck(small, full) {
  const check = (repo, label) => ({
    label: `phases 3-task check, ${label}`,
    run: taskgate(["check", "--repo", repo.dir, "--base", "main", "--head", "pr"]),
    verify: expectReport({ code: 3, conclusion: "action_required", violations: 0, pending: 1, moved: 3 }),
  });
  const jobs = [
    check(full, `${int(TASKS)} tasks`),
    check(small, `${int(SMALL)} tasks`),
    {
      label: `node -e "" + git ls-tree -r (${int(TASKS)} tasks)`,
      run: both(
        () => cpuTime(process.execPath, ["-e", ""]),
        () => cpuTime("git", ["ls-tree", "-r", "main"], { cwd: full.dir }),
      ),
      verify: (result) => expectExit0(result) ?? (result.stdout.length > 0 ? undefined : "git ls-tree listed nothing"),
    },
  ];
  const [big, little, start] = keep(await measureGroup("the phases 3-task check", jobs));
  ratioRow(`CLI phases 3-task check: ${int(TASKS)} / ${int(SMALL)} tasks`, big, little, CHECK_SIZE_LIMIT);
  ratioRow(
    `CLI phases 3-task check / (node start + git ls-tree -r), ${int(TASKS)} tasks`,
    big,
    start,
    CHECK_START_LIMIT,
  );
}

/** Peak RSS of one audit against the store's size; `expected` checks its report. */
async function memoryRow(measure, repo, storePaths, verify) {
  const store = await storeBytes(repo.dir, storePaths);
  const limit = MEMORY_FACTOR * store + MEMORY_EXTRA;
  let result;
  let problem;
  try {
    result = await peakRss(BIN, ["audit", "--repo", repo.dir, "--ref", "main"], { exitCodes: EXIT_CODES });
    problem = verify(result) ?? (result.rss === undefined ? "no peak RSS recorded" : undefined);
  } catch (error) {
    problem = error.message.split("\n").slice(0, 3).join(" | ");
  }
  const target = `≤ ${MEMORY_FACTOR}× store + 150 MB (${mb(limit)})`;
  if (problem) {
    console.warn(`bench: warning: ${measure}: ${problem}; no figure from it`);
    row(measure, "no figure: the audit answered wrongly", target, false, { problems: problem });
    return;
  }
  console.log(
    `${measure}: peak RSS ${mb(result.rss)}, store ${mb(store)}, ${secs(result.total)} CPU, ${secs(result.wall)} wall`,
  );
  row(
    measure,
    `${mb(result.rss)} = ${fixed(result.rss / store, 1)}× the store (${mb(store)})`,
    target,
    result.rss <= limit,
    {
      rss: result.rss,
      store,
      seconds: result.total,
    },
  );
}

async function memoryPhases() {
  const repo = built(`phases, ${int(MEM_PHASES)} tasks`, await buildPhases({ tasks: MEM_PHASES, seed: 3 }));
  await memoryRow(
    `CLI peak RSS: phases audit, ${int(MEM_PHASES)} tasks`,
    repo,
    ["tasks/"],
    expectReport({
      code: repo.plan.defects > 0 ? 1 : 0,
      violations: repo.plan.defects,
      codes: plantedCodes(repo.plan),
    }),
  );
  removeRepository(repo);
}

async function memoryBoard() {
  // Its rendered matrix.md passes the default 1 MiB file limit above about 12,000 tasks (the audit
  // would report it stale, unable to read its stamp): this board raises the limit, as its team would.
  const repo = built(
    `board, ${int(MEM_BOARD)} tasks`,
    await buildBoard({ tasks: MEM_BOARD, seed: 3, config: BOARD_CONFIG + LARGE_FILES }),
  );
  await memoryRow(
    `CLI peak RSS: board audit, ${int(MEM_BOARD)} tasks`,
    repo,
    ["planning/", "state/"],
    expectReport({ code: 0, conclusion: "success", violations: 0 }),
  );
  removeRepository(repo);
}

/** Builds a repository the first time it is asked for (and prints how long that took). */
function once(label, build) {
  let promise;
  const get = () => (promise ??= build().then((repo) => built(label(), repo)));
  get.built = () => promise;
  return get;
}

// ---------------------------------------------------------------------------------------------
// Main

try {
  const started = performance.now();
  console.log(
    `taskgate CLI bench: ${int(TASKS)} tasks, ${RUNS} run(s) per measurement after 1 warm-up, CPU time of the process and its children (node ${process.version})`,
  );
  const small = once(
    () => `phases, ${int(SMALL)} tasks, with branches adding 1, ${int(PR_N)} and ${int(2 * PR_N)} tasks`,
    () => {
      const branches = { pr: threeTaskChange };
      for (const n of [1, PR_N, 2 * PR_N]) branches[`add-${n}`] = (plan) => newTasksChange(plan, n);
      return buildPhases({ tasks: SMALL, seed: 2, branches });
    },
  );
  const full = once(
    () => `phases, ${int(TASKS)} tasks`,
    () => buildPhases({ tasks: TASKS, seed: 1, branches: { pr: threeTaskChange } }),
  );
  const one = once(
    () => "phases, 1 task",
    () => buildPhases({ tasks: 1, seed: 4 }),
  );
  const half = once(
    () => `phases, ${int(HALF)} tasks`,
    () => buildPhases({ tasks: HALF, seed: 5 }),
  );
  const fullBoard = once(
    () => `board, ${int(TASKS)} tasks`,
    () => buildBoard({ tasks: TASKS, seed: 1, branches: { pr: boardThreeTaskChange } }),
  );
  const oneBoard = once(
    () => "board, 1 task",
    () => buildBoard({ tasks: 1, seed: 4 }),
  );
  const halfBoard = once(
    () => `board, ${int(HALF)} tasks`,
    () => buildBoard({ tasks: HALF, seed: 5 }),
  );
  const figures = {
    pr: async () => phasesPullRequests(await small()),
    history: boardHistory,
    definitions: boardDefinitions,
    "audit-phases": async () => phasesAudits(await one(), await half(), await full()),
    "audit-board": async () => boardAudits(await oneBoard(), await halfBoard(), await fullBoard()),
    "check-board": async () => boardCheck(await fullBoard()),
    "check-phases": async () => phasesCheck(await small(), await full()),
    "memory-phases": async () => MEM_PHASES > 0 && memoryPhases(),
    "memory-board": async () => MEM_BOARD > 0 && memoryBoard(),
  };
  for (const name of GROUPS) {
    if (!SELECTED.has(name)) continue;
    console.log();
    await figures[name]();
  }
  for (const repo of [small, full, one, half, fullBoard, oneBoard, halfBoard]) {
    const built = await repo.built();
    if (built) removeRepository(built);
  }
  console.log();
  console.log("CPU time per command (medians, seconds):");
  const header = ["command", "total", "user", "sys", "wall"];
  const lines = measured.map((m) =>
    m.problem
      ? [m.label, "invalid", "", "", ""]
      : [m.label, fixed(m.total), fixed(m.user), fixed(m.sys), fixed(m.wall)],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  for (const line of [header, ...lines]) {
    console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "));
  }
  console.log();
  for (const r of rows) console.log(`${r.met ? "met   " : "MISSED"}  ${r.measure}: ${r.value} (target ${r.target})`);
  console.log(`total ${fixed((performance.now() - started) / 1000, 1)} s`);
  console.log(
    `BENCH_JSON ${JSON.stringify({
      bench: "cli",
      tasks: TASKS,
      runs: RUNS,
      node: process.version,
      commands: measured,
      figures: rows,
    })}`,
  );
} finally {
  cleanUp();
}
