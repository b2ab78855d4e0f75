#!/usr/bin/env node
/**
 * taskgate growth benchmark: shows that `evaluate` grows at most O(N log N) in the size of what a
 * pull request changes. For each scenario it builds, in memory (no git), a base and a head snapshot
 * and a PR context for N (BENCH_GROWTH_N, default 2,000) and for 2N, then times only
 * `evaluate(config, base, head, pr)` from the public API in `dist/core/index.js`: one warm-up run,
 * then the median of BENCH_RUNS runs (default 7), the two sizes interleaved. Doubling N must at most
 * multiply the time by 2.2; a scenario above that is marked FAIL (the exit code stays 0).
 *
 * Scenarios: a board task with N history entries appended; N chained definitions added; a phases PR
 * moving N tasks (and, in 3b, also editing their N specs); N board tasks claimed by N agents.
 * The last line printed is `BENCH_JSON {...}` for machines.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RUNS, benchRow, intFromEnv } from "./lib.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const N = intFromEnv("BENCH_GROWTH_N", 2000, 10);
const LIMIT = 2.2;

if (!existsSync(join(ROOT, "dist/core/index.js"))) {
  console.error("bench: dist/core/index.js is missing: run npm run build first");
  process.exit(1);
}
const { evaluate, parseConfig } = await import(pathToFileURL(join(ROOT, "dist/core/index.js")).href);

// ---------------------------------------------------------------------------------------------
// In-memory inputs

const BOARD_CONFIG = "preset: board\nmaintainers: [alice]\nroles:\n  qa: [quinn]\n  backend: [carol]\n";
const PHASES_CONFIG = "preset: phases\n";
const DEFINITIONS = "planning/tasks.json";
const LEDGER = "state/tasks.json";

function config(yaml) {
  const result = parseConfig(yaml);
  if (!result.ok) throw new Error(`bench: invalid config: ${JSON.stringify(result.issues)}`);
  return result.config;
}

const entry = (path, text) => ({
  path,
  kind: "file",
  size: Buffer.byteLength(text),
  text,
  oid: createHash("sha1").update(text).digest("hex"),
});

/** A snapshot from an iterable of [path, text]. */
const snapshot = (rev, files) => ({ rev, files: new Map([...files].map(([path, text]) => [path, entry(path, text)])) });

/** Every path that differs between the two snapshots, as a PR lists them. */
function changedFiles(base, head) {
  const files = [];
  for (const [path, file] of head.files) {
    const before = base.files.get(path);
    if (!before) files.push({ path, status: "added" });
    else if (before.oid !== file.oid) files.push({ path, status: "modified" });
  }
  for (const path of base.files.keys()) if (!head.files.has(path)) files.push({ path, status: "removed" });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function inputs(configYaml, author, baseFiles, headFiles) {
  const base = snapshot("base", baseFiles);
  const head = snapshot("head", headFiles);
  const pr = {
    author,
    headSha: "c1",
    files: changedFiles(base, head),
    commits: [{ sha: "c1", author, parents: ["base"] }],
    reviews: [],
    permissions: {},
    teams: {},
    revisions: new Map(),
  };
  return { config: config(configYaml), base, head, pr };
}

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
/** Distinct ISO times, one second apart from 2026-01-01T00:00:00Z. */
const at = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(".000Z", "Z");
const definition = (id, dependsOn = []) => ({
  id,
  title: id.toUpperCase(),
  role: "backend",
  stage: "S",
  reviewer_role: "qa",
  depends_on: dependsOn,
  paths: [`src/${id}/**`],
});
const claim = (i, by) => ({ at: at(i), by, action: "claim", from: "todo", to: "in_progress" });

/** 1. One task whose ledger entry gains n `reassign` entries, by a maintainer. */
function historyScenario(n) {
  const definitions = json({ tasks: [definition("t")] });
  const task = (owner, history) => ({ status: "in_progress", owner, external_wait: false, blocked_by: [], history });
  const first = claim(0, "carol/a0");
  const history = [first];
  for (let i = 1; i <= n; i++) {
    history.push({ at: at(i), by: `carol/a${i}`, action: "reassign", from: "in_progress", to: "in_progress" });
  }
  const baseLedger = { revision: 1, tasks: { t: task("carol/a0", [first]) } };
  const headLedger = { revision: 1 + n, tasks: { t: task(`carol/a${n}`, history) } };
  return inputs(
    BOARD_CONFIG,
    "alice",
    [
      [".github/taskgate.yml", BOARD_CONFIG],
      [DEFINITIONS, definitions],
      [LEDGER, json(baseLedger)],
    ],
    [
      [".github/taskgate.yml", BOARD_CONFIG],
      [DEFINITIONS, definitions],
      [LEDGER, json(headLedger)],
    ],
  );
}

/** 2. n definitions added, each depending on the one before. */
function chainScenario(n) {
  const ledger = json({ revision: 0, tasks: {} });
  const head = [definition("t0")];
  for (let i = 1; i <= n; i++) head.push(definition(`t${i}`, [`t${i - 1}`]));
  return inputs(
    BOARD_CONFIG,
    "alice",
    [
      [".github/taskgate.yml", BOARD_CONFIG],
      [DEFINITIONS, json({ tasks: [definition("t0")] })],
      [LEDGER, ledger],
    ],
    [
      [".github/taskgate.yml", BOARD_CONFIG],
      [DEFINITIONS, json({ tasks: head })],
      [LEDGER, ledger],
    ],
  );
}

/** 3. n phases tasks moved from `research` to `research:awaiting_approval`; 3b also edits their specs. */
function phasesScenario(n, editSpecs) {
  const base = [[".github/taskgate.yml", PHASES_CONFIG]];
  const head = [[".github/taskgate.yml", PHASES_CONFIG]];
  for (let i = 1; i <= n; i++) {
    base.push([`tasks/t${i}/.state`, "research\n"], [`tasks/t${i}/SPEC.md`, `spec of t${i}\n`]);
    head.push(
      [`tasks/t${i}/.state`, "research:awaiting_approval\n"],
      [`tasks/t${i}/SPEC.md`, editSpecs ? `spec of t${i}, revised\n` : `spec of t${i}\n`],
    );
  }
  return inputs(PHASES_CONFIG, "carol", base, head);
}

/** 4. n todo tasks, each claimed by its own agent of carol's. */
function claimsScenario(n) {
  const definitions = [];
  const tasks = {};
  for (let i = 1; i <= n; i++) {
    definitions.push(definition(`t${i}`));
    const owner = `carol/a${i}`;
    tasks[`t${i}`] = { status: "in_progress", owner, external_wait: false, blocked_by: [], history: [claim(i, owner)] };
  }
  const defs = json({ tasks: definitions });
  return inputs(
    BOARD_CONFIG,
    "carol",
    [
      [".github/taskgate.yml", BOARD_CONFIG],
      [DEFINITIONS, defs],
      [LEDGER, json({ revision: 0, tasks: {} })],
    ],
    [
      [".github/taskgate.yml", BOARD_CONFIG],
      [DEFINITIONS, defs],
      [LEDGER, json({ revision: n, tasks })],
    ],
  );
}

const SCENARIOS = [
  { id: "1", name: "board: N history entries appended to one task", build: historyScenario, expect: "success" },
  { id: "2", name: "board: N chained definitions added", build: chainScenario, expect: "success" },
  {
    id: "3",
    name: "phases: a PR touching N tasks",
    build: (n) => phasesScenario(n, false),
    expect: "action_required",
    pending: true,
  },
  {
    id: "3b",
    name: "phases: a PR touching N tasks and their specs",
    build: (n) => phasesScenario(n, true),
    expect: "action_required",
    pending: true,
  },
  { id: "4", name: "board: N tasks claimed by N agents in one PR", build: claimsScenario, expect: "success" },
];

// ---------------------------------------------------------------------------------------------
// Measurements

const run = ({ config, base, head, pr }) => evaluate(config, base, head, pr);

function median(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One warm-up run of each, then RUNS rounds timing the two sizes alternately; medians in ms. */
function time(small, large) {
  const reports = [run(small), run(large)];
  const times = [[], []];
  for (let round = 0; round < RUNS; round++) {
    for (const [i, input] of [small, large].entries()) {
      const start = performance.now();
      run(input);
      times[i].push(performance.now() - start);
    }
  }
  return { small: median(times[0]), large: median(times[1]), reports };
}

/** Prints the report's conclusion and counts, and the first violations when there are any. */
function sanity(scenario, n, report) {
  const expected = scenario.pending ? `${scenario.expect}, ${n} pending` : scenario.expect;
  const ok =
    report.conclusion === scenario.expect &&
    report.violations.length === 0 &&
    (!scenario.pending || report.pending.length === n);
  console.log(
    `sanity ${scenario.id} (N=${n}): ${report.conclusion}, ${report.violations.length} violation(s), ${report.pending.length} pending, ${report.transitions.length} transition(s)${ok ? "" : `  (expected ${expected})`}`,
  );
  for (const v of report.violations.slice(0, 3)) console.log(`  ${v.code}: ${v.message}`);
  return ok;
}

const fmt = (n, digits = 2) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const started = performance.now();
console.log(`taskgate growth bench: N=${N} and 2N=${2 * N}, ${RUNS} run(s) after 1 warm-up, limit ${LIMIT}x`);
const results = [];
for (const scenario of SCENARIOS) {
  const small = scenario.build(N);
  const large = scenario.build(2 * N);
  const { small: msN, large: ms2N, reports } = time(small, large);
  const sane = sanity(scenario, N, reports[0]);
  const ratio = ms2N / msN;
  results.push({
    scenario,
    changed: [small.pr.files.length, large.pr.files.length],
    msN,
    ms2N,
    ratio,
    pass: ratio <= LIMIT,
    report: reports[0],
    sane,
  });
}

console.log();
const header = ["scenario", "N", "ms at N", "ms at 2N", "ratio", "verdict"];
const rows = results.map((r) => [
  `${r.scenario.id}. ${r.scenario.name}`,
  String(N),
  fmt(r.msN),
  fmt(r.ms2N),
  `${fmt(r.ratio)}x`,
  r.pass ? "PASS" : `FAIL (> ${LIMIT}x)`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) =>
  cells
    .map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
    .join("  ");
console.log(line(header).trimEnd());
for (const row of rows) console.log(line(row).trimEnd());
console.log();
const failed = results.filter((r) => !r.pass);
console.log(
  failed.length === 0
    ? `all ${results.length} scenarios PASS (time at 2N <= ${LIMIT}x time at N)`
    : `FAIL: ${failed.map((r) => r.scenario.id).join(", ")} grew more than ${LIMIT}x when N doubled`,
);
for (const r of results) {
  benchRow(
    `in memory: growth ×2, ${r.scenario.name} (N = ${N.toLocaleString("en-US")})`,
    `${fmt(r.ratio)}× (${fmt(r.msN)} → ${fmt(r.ms2N)} ms)${r.sane ? "" : ", wrong result"}`,
    `≤ ${LIMIT}×`,
    r.sane && r.pass,
  );
}
console.log(`total ${fmt((performance.now() - started) / 1000, 1)} s`);
const ms = (value) => Math.round(value * 100) / 100;
console.log(
  `BENCH_JSON ${JSON.stringify({
    bench: "growth",
    n: N,
    runs: RUNS,
    limit: LIMIT,
    scenarios: results.map((r) => ({
      id: r.scenario.id,
      name: r.scenario.name,
      changedFiles: r.changed,
      msN: ms(r.msN),
      ms2N: ms(r.ms2N),
      ratio: ms(r.ratio),
      pass: r.pass,
      conclusion: r.report.conclusion,
      violations: r.report.violations.length,
      pending: r.report.pending.length,
    })),
    pass: failed.length === 0,
  })}`,
);
