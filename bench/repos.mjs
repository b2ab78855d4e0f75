/**
 * Synthetic repositories for the benchmarks, shared by `run.mjs`, `board.mjs` and `cli.mjs`. Each
 * repository is a bare git repository in a new temporary folder, written by one `git fast-import`
 * process: `main` with one commit holding every file, and any number of branches, each one commit on
 * top of `main` carrying a given change. Everything is generated from a seed, so the same call builds
 * the same repository (the same object ids) every time.
 *
 * - `buildPhases`: a `phases` task store of any size (a folder per task, the state mix of a
 *   repository that has run for a while, about 0.7% of the tasks with one planted defect each) and
 *   project files; changes: `threeTaskChange` (the 3-task pull request) and `newTasksChange` (N new
 *   tasks). Task texts are generated while they are written, so 100,000 tasks do not sit in memory.
 * - `buildBoard`: a `board` of any size (definitions, a ledger with history, evidence, handoffs, issue
 *   reports, and the status files taskgate renders from them); change: `boardThreeTaskChange`.
 * - `buildHistoryBoard`, `buildDefinitionsBoard`: the one-task boards of scenarios 1 and 2 of
 *   `growth.mjs`, with a branch per N appending N history entries or N definitions.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { prng, run, tempDirs } from "./lib.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CONFIG_PATH = ".github/taskgate.yml";

// ---------------------------------------------------------------------------------------------
// Writing a repository

const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
const who = (name, time) => `${name} <${name}@example.com> ${time} +0000`;

/** Joins the small strings of a stream into chunks of about 64 KiB (fewer writes to git). */
function* chunked(parts) {
  let chunk = "";
  for (const part of parts) {
    chunk += part;
    if (chunk.length >= 65536) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk !== "") yield chunk;
}

/**
 * Builds a bare repository with one `git fast-import`: `main` is one commit of `main.files` (an
 * iterable of `[path, text]`, consumed while it is written); `branches()` is called once `main` is
 * written and returns `[{ name, author, message, files }]`, each one commit on top of `main` whose
 * `files` are `[path, text]` (a `null` text deletes the path). Returns the folder, the number of
 * files on `main` and the time it took.
 */
export async function buildRepository({ label = "repo", main, branches = () => [] }) {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), `taskgate-bench-${label}-`));
  tempDirs.push(dir);
  let files = 0;
  function* stream() {
    const time = main.time ?? 1714550400;
    yield `commit refs/heads/main\nmark :1\nauthor ${who(main.author ?? "alice", time)}\ncommitter ${who(main.author ?? "alice", time)}\n`;
    yield data(main.message ?? "Synthetic repository\n");
    for (const [path, text] of main.files) {
      files++;
      yield `M 100644 inline ${path}\n${data(text)}`;
    }
    yield "\n";
    for (const [index, branch] of branches().entries()) {
      const at = (branch.time ?? time + 86400) + index;
      yield `commit refs/heads/${branch.name}\nauthor ${who(branch.author, at)}\ncommitter ${who(branch.author, at)}\n`;
      yield data(branch.message ?? `${branch.name}\n`);
      yield "from :1\n";
      for (const [path, text] of branch.files) {
        yield text === null ? `D ${path}\n` : `M 100644 inline ${path}\n${data(text)}`;
      }
      yield "\n";
    }
    yield "done\n";
  }
  await run("git", ["init", "-q", "--bare", "-b", "main", dir]);
  // glibc gives memory back to the system after nearly every object fast-import writes; where that
  // is slow (some virtual machines), a top pad makes the build several times faster.
  await run("git", ["fast-import", "--quiet", "--done"], {
    cwd: dir,
    input: Readable.from(chunked(stream())),
    env: { MALLOC_TOP_PAD_: String(256 * 1024 * 1024) },
  });
  return { dir, files, buildMs: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------
// phases: a folder per task

export const PHASES_CONFIG = "preset: phases\n";

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

/** Five digits, or more beyond 99,999. */
export const pad = (n) => String(n).padStart(5, "0");
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
 * A phases repository, generated lazily: `files()` yields every file of `main` (the config, a README,
 * the tasks, then the project files) and, while doing so, fills `tasks` (id, state, defect and file
 * names of each task), `src` and `defects`. About 1% of the tasks draw a defect, and those that get
 * one (0.7% of all) are worth exactly one violation each. `body()` draws further texts from the same
 * generator, so changes planned after `files()` are deterministic too.
 */
export function phasesPlan(taskCount, srcCount, seed) {
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
  const plan = { tasks: [], src: [], defects: 0, taskCount, body, pool, files };

  function planTask(i) {
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
      if (defect) plan.defects++;
    }

    files.set(".state", `${state}\n`);
    files.set(".state.approvals", approvals.map((line) => `${line}\n`).join(""));
    return { id, state, files, viaDesign, defect };
  }

  function* files() {
    yield [CONFIG_PATH, PHASES_CONFIG];
    yield ["README.md", "# Synthetic taskgate repository\n"];
    for (let i = 1; i <= taskCount; i++) {
      const task = planTask(i);
      for (const [name, text] of task.files) yield [`tasks/${task.id}/${name}`, text];
      plan.tasks.push({ id: task.id, state: task.state, defect: task.defect, names: new Set(task.files.keys()) });
    }
    for (let i = 1; i <= srcCount; i++) {
      const lines = [`// module ${i}`, `export const id${i} = ${i};`];
      const n = 10 + Math.floor(random() * 60);
      for (let l = 0; l < n; l++) lines.push(`// ${pool[(i + l) % pool.length].slice(0, 70)}`);
      const path = `src/pkg-${String(i % 20).padStart(2, "0")}/module-${pad(i)}.ts`;
      const text = `${lines.join("\n")}\n`;
      plan.src.push([path, text]);
      yield [path, text];
    }
  }
  return plan;
}

/**
 * The 3-task pull request (one commit by carol): moves a clean `implement` task to `bug_find` (adds
 * BUG_REPORT.md, edits a project file), a clean `research` task to `research:awaiting_approval`, and
 * adds a new task at `research`. A check of it: action_required, 3 transitions, 1 pending approval.
 */
export function threeTaskChange(plan) {
  const clean = (state) =>
    plan.tasks.find((task) => task.state === state && !task.defect && !task.names.has("BUG_REPORT.md"));
  const implement = clean("implement");
  const research = clean("research");
  if (!implement || !research) throw new Error("the synthetic repository has no clean implement/research task");
  const newId = `task-${pad(plan.tasks.length + 1)}`;
  const [srcPath, srcText] = plan.src[0];
  return {
    author: "carol",
    message: `Move ${implement.id}, ${research.id}, ${newId}\n`,
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

/**
 * A pull request (one commit by carol) adding `n` new tasks `new-NNNNN`, each at `research` with its
 * `.state`, an empty `.state.approvals` and a `SPEC.md`: 3n files. A check of it: success, n
 * transitions (created → research), nothing pending. The texts come from the plan's paragraphs (no
 * random draw), so the change at n is a prefix of the change at 2n.
 */
export function newTasksChange(plan, n) {
  const files = [];
  for (let i = 1; i <= n; i++) {
    const id = `new-${pad(i)}`;
    const spec = [
      `# ${id}: specification`,
      "",
      plan.pool[i % plan.pool.length],
      "",
      plan.pool[(i * 7) % plan.pool.length],
      "",
    ];
    files.push(
      [`tasks/${id}/.state`, "research\n"],
      [`tasks/${id}/.state.approvals`, ""],
      [`tasks/${id}/SPEC.md`, spec.join("\n")],
    );
  }
  return { author: "carol", message: `Add ${n} tasks\n`, tasks: n, files };
}

/**
 * Builds a phases repository of `tasks` tasks and `src` project files (default a tenth of the
 * tasks), and a branch per entry of `branches` (`{ name: (plan) => change }`). Returns `{ dir, plan,
 * files, buildMs, changes }` (`changes`: each branch's change, as planned).
 */
export async function buildPhases({ tasks, src = Math.max(10, Math.round(tasks / 10)), seed = 1, branches = {} }) {
  const plan = phasesPlan(tasks, src, seed);
  const changes = {};
  const built = await buildRepository({
    label: "phases",
    main: { author: "alice", message: `Synthetic repository: ${tasks} tasks\n`, files: plan.files() },
    branches: () =>
      Object.entries(branches).map(([name, make]) => {
        const change = make(plan);
        changes[name] = change;
        return { name, ...change };
      }),
  });
  return { ...built, plan, changes };
}

// ---------------------------------------------------------------------------------------------
// board: definitions and a ledger

const ROLES = ["front", "backend", "protocol", "crypto", "storage", "media", "realtime", "security", "qa", "docs"];
/** Every role a definition names is configured; carol, the pull requests' author, is a maintainer. */
export const BOARD_CONFIG = `preset: board\nmaintainers: [carol]\nroles:\n${ROLES.map((role) => `  ${role}: [${role === "qa" ? "quinn" : "carol"}]`).join("\n")}\n`;
const boardId = (n) => `T${String(n).padStart(5, "0")}`;
const boardAt = (n) => `2026-0${1 + (n % 9)}-${String(1 + (n % 28)).padStart(2, "0")}T10:00:00Z`;
const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

/** Definitions, ledger and the files they name. Statuses: 40% done, 10% review, 15% in progress, 5% blocked. */
export function boardPlan(count, seed) {
  const random = prng(seed);
  const definitions = [];
  const tasks = {};
  const files = new Map();
  const done = [];
  let revision = 0;
  const carolTask = { claimable: undefined, submittable: undefined };
  for (let n = 1; n <= count; n++) {
    const task = boardId(n);
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
    if (status !== "todo")
      history.push({ at: boardAt(n), by: owner, action: "claim", from: "todo", to: "in_progress" });
    if (status === "review" || status === "done") {
      history.push({
        at: boardAt(n + 1),
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
      history.push({ at: boardAt(n + 2), by: "quinn", action: "approve", from: "review", to: "done" });
      done.push(task);
    }
    let blocked_by = [];
    if (status === "blocked") {
      history.push({ at: boardAt(n + 1), by: owner, action: "escalate", from: "in_progress", to: "blocked" });
      blocked_by = [boardId(Math.max(1, n - 1))];
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
      // One task claimed by carol's agent, for the pull request to submit.
      for (const item of history) item.by = "carol/a1";
      tasks[task] = { status, owner: "carol/a1", external_wait: false, blocked_by, history };
      carolTask.submittable = task;
    } else {
      tasks[task] = { status, owner: entryOwner, external_wait: false, blocked_by, history };
    }
    revision += history.length;
  }
  return { count, definitions, ledger: { revision, tasks }, files, carol: carolTask };
}

/** The board's files on `main`, without the rendered status files. */
function* boardFiles(plan) {
  yield [CONFIG_PATH, BOARD_CONFIG];
  yield ["planning/tasks.json", json({ tasks: plan.definitions })];
  yield ["state/tasks.json", json(plan.ledger)];
  yield* plan.files;
}

/**
 * The status files taskgate renders from these files (`renderStatus` of `dist/`, on an in-memory
 * reader), so the audit finds them up to date, as in a repository that renders.
 */
async function rendered(files) {
  const service = join(ROOT, "dist/core/service.js");
  if (!existsSync(service)) throw new Error("dist/core/service.js is missing: run npm run build first");
  const { renderStatus } = await import(pathToFileURL(service).href);
  const entries = new Map();
  for (const [path, text] of files) {
    const size = Buffer.byteLength(text);
    const oid = createHash("sha1").update(`blob ${size}\0`).update(text).digest("hex");
    entries.set(path, { path, kind: "file", size, text, oid });
  }
  const reader = {
    readSnapshot: async (rev, scope) => {
      if (!scope) return { rev, files: entries };
      const wanted = new Map();
      for (const [path, entry] of entries) {
        if (
          scope.paths.includes(path) ||
          scope.prefixes.some((prefix) => path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`))
        )
          wanted.set(path, entry);
      }
      return { rev, files: wanted };
    },
  };
  const result = await renderStatus(reader, "main");
  return result.files;
}

/**
 * The board's 3-task pull request (one commit by carol): carol claims a task, submits another (it
 * then waits for a qa review) and plans a new one. A check of it: action_required, no violation.
 */
export function boardThreeTaskChange(plan) {
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
  const fresh = boardId(plan.definitions.length + 1);
  const definitions = [
    ...plan.definitions,
    { ...plan.definitions[0], id: fresh, title: "A new task", depends_on: [], paths: [`src/new/${fresh}/**`] },
  ];
  const role = plan.definitions.find((d) => d.id === claimable).role;
  return {
    author: "carol",
    message: "claim, submit, plan\n",
    tasks: [claimable, submittable, fresh],
    files: [
      ["planning/tasks.json", json({ tasks: definitions })],
      ["state/tasks.json", json(ledger)],
      [`state/evidence/${submittable}.md`, "# Evidence\n\nnpm test: 12 passed\n"],
      [`state/handoffs/${submittable}.md`, "# Handoff\n\nReady for review.\n"],
      [`src/${role}/${claimable}/index.ts`, "export const started = true;\n"],
    ],
  };
}

/**
 * Builds a board of `tasks` tasks with its rendered status files, and a branch per entry of
 * `branches` (`{ name: (plan) => change }`). Returns `{ dir, plan, files, buildMs, changes }`.
 */
export async function buildBoard({ tasks, seed = 1, branches = {} }) {
  const started = performance.now();
  const plan = boardPlan(tasks, seed);
  const base = [...boardFiles(plan)];
  const status = await rendered(base);
  const changes = {};
  const built = await buildRepository({
    label: "board",
    main: { author: "alice", time: 1764500000, message: "Synthetic board\n", files: [...base, ...status] },
    branches: () =>
      Object.entries(branches).map(([name, make]) => {
        const change = make(plan);
        changes[name] = change;
        return { name, time: 1764600000, ...change };
      }),
  });
  return { ...built, plan, changes, buildMs: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------
// One-task boards (scenarios 1 and 2 of growth.mjs)

/** alice is a maintainer: she may reassign and plan. */
export const SMALL_BOARD_CONFIG = "preset: board\nmaintainers: [alice]\nroles:\n  qa: [quinn]\n  backend: [carol]\n";
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
const inProgress = (owner, history) => ({
  status: "in_progress",
  owner,
  external_wait: false,
  blocked_by: [],
  history,
});

/**
 * Scenario 1: task `t`, in progress for carol/a0; branch `history-<n>` for each n (by alice, a
 * maintainer) appends n `reassign` entries to its history. A check of it: success.
 */
export async function buildHistoryBoard(sizes) {
  const first = claim(0, "carol/a0");
  return buildRepository({
    label: "board-history",
    main: {
      author: "alice",
      files: [
        [CONFIG_PATH, SMALL_BOARD_CONFIG],
        ["planning/tasks.json", json({ tasks: [definition("t")] })],
        ["state/tasks.json", json({ revision: 1, tasks: { t: inProgress("carol/a0", [first]) } })],
      ],
    },
    branches: () =>
      sizes.map((n) => {
        const history = [first];
        for (let i = 1; i <= n; i++) {
          history.push({ at: at(i), by: `carol/a${i}`, action: "reassign", from: "in_progress", to: "in_progress" });
        }
        const ledger = { revision: 1 + n, tasks: { t: inProgress(`carol/a${n}`, history) } };
        return {
          name: `history-${n}`,
          author: "alice",
          message: `reassign t ${n} times\n`,
          files: [["state/tasks.json", json(ledger)]],
        };
      }),
  });
}

/**
 * Scenario 2: one definition `t0` and an empty ledger; branch `definitions-<n>` for each n (by
 * alice) adds n definitions, each depending on the one before. A check of it: success.
 */
export async function buildDefinitionsBoard(sizes) {
  return buildRepository({
    label: "board-definitions",
    main: {
      author: "alice",
      files: [
        [CONFIG_PATH, SMALL_BOARD_CONFIG],
        ["planning/tasks.json", json({ tasks: [definition("t0")] })],
        ["state/tasks.json", json({ revision: 0, tasks: {} })],
      ],
    },
    branches: () =>
      sizes.map((n) => {
        const definitions = [definition("t0")];
        for (let i = 1; i <= n; i++) definitions.push(definition(`t${i}`, [`t${i - 1}`]));
        return {
          name: `definitions-${n}`,
          author: "alice",
          message: `plan ${n} tasks\n`,
          files: [["planning/tasks.json", json({ tasks: definitions })]],
        };
      }),
  });
}
