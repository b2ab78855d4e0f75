/**
 * Synthetic repositories for the benchmarks, shared by `run.mjs`, `board.mjs` and `cli.mjs`. Each
 * repository is a bare git repository in a new temporary folder, written as one pack (see
 * `buildRepository`): `main` with one commit holding every file, and any number of branches, each one
 * commit on top of `main` carrying a given change. Everything is generated from a seed, so the same call builds
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

const who = (name, time) => `${name} <${name}@example.com> ${time} +0000`;
const TYPES = { commit: 1, tree: 2, blob: 3 };

/**
 * The objects of a pack, each written once: `add` hashes an object as git does, deflates it and
 * returns its id; `pack()` gives the pack file as chunks (header, objects, SHA-1 trailer).
 */
class PackWriter {
  chunks = [];
  ids = new Set();

  add(type, content) {
    const body = typeof content === "string" ? Buffer.from(content) : content;
    const id = createHash("sha1").update(`${type} ${body.length}\0`).update(body).digest("hex");
    if (this.ids.has(id)) return id;
    this.ids.add(id);
    // Object header: type and size, 4 bits of size in the first byte, then 7 per byte.
    const header = [];
    let size = body.length;
    let byte = (TYPES[type] << 4) | (size & 0x0f);
    size = Math.floor(size / 16);
    while (size > 0) {
      header.push(byte | 0x80);
      byte = size & 0x7f;
      size = Math.floor(size / 128);
    }
    header.push(byte);
    this.chunks.push(Buffer.from(header), stored(body));
    return id;
  }

  pack() {
    const header = Buffer.alloc(12);
    header.write("PACK", 0, "latin1");
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(this.ids.size, 8);
    const hash = createHash("sha1").update(header);
    for (const chunk of this.chunks) hash.update(chunk);
    return [header, ...this.chunks, hash.digest()];
  }
}

/**
 * `body` as a zlib stream of stored (uncompressed) blocks: a header, blocks of at most 65,535 bytes,
 * the Adler-32 of the data. `git repack` compresses them afterwards, far faster than a zlib call per
 * object from JavaScript (each sets up and frees its own compressor).
 */
function stored(body) {
  const blocks = Math.max(1, Math.ceil(body.length / 65535));
  const out = Buffer.allocUnsafe(2 + blocks * 5 + body.length + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  let at = 2;
  for (let block = 0; block < blocks; block++) {
    const start = block * 65535;
    const length = Math.min(65535, body.length - start);
    out[at] = block === blocks - 1 ? 1 : 0;
    out.writeUInt16LE(length, at + 1);
    out.writeUInt16LE(~length & 0xffff, at + 3);
    body.copy(out, at + 5, start, start + length);
    at += 5 + length;
  }
  let a = 1;
  let b = 0;
  for (let i = 0; i < body.length; ) {
    const end = Math.min(i + 5552, body.length);
    for (; i < end; i++) {
      a += body[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  out.writeUInt32BE(((b << 16) | a) >>> 0, at);
  return out;
}

/** A folder being built: name -> blob id (a file) or a nested folder (a Map). */
function setPath(root, path, id) {
  const parts = path.split("/");
  let folder = root;
  for (const part of parts.slice(0, -1)) {
    let next = folder.get(part);
    if (!(next instanceof Map)) folder.set(part, (next = new Map()));
    folder = next;
  }
  if (id === null) folder.delete(parts.at(-1));
  else folder.set(parts.at(-1), id);
}

/** A copy of `root` with `files` changed, sharing every folder the change does not touch. */
function changed(root, files, writer) {
  const copy = new Map(root);
  const copied = new Set([copy]);
  for (const [path, text] of files) {
    const parts = path.split("/");
    let folder = copy;
    for (const part of parts.slice(0, -1)) {
      let next = folder.get(part);
      if (!(next instanceof Map)) next = new Map();
      else if (copied.has(next)) {
        folder = next;
        continue;
      } else next = new Map(next);
      copied.add(next);
      folder.set(part, next);
      folder = next;
    }
    if (text === null) folder.delete(parts.at(-1));
    else folder.set(parts.at(-1), writer.add("blob", text));
  }
  return copy;
}

/** Writes the tree objects of a folder (each folder once: `ids` remembers them) and returns its id. */
function writeTree(folder, writer, ids) {
  const known = ids.get(folder);
  if (known) return known;
  const entries = [];
  for (const [name, value] of folder) {
    if (value instanceof Map) {
      if (value.size === 0) continue; // git has no empty folders
      entries.push({ key: `${name}/`, mode: "40000", name, id: writeTree(value, writer, ids) });
    } else entries.push({ key: name, mode: "100644", name, id: value });
  }
  entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const parts = [];
  for (const entry of entries) parts.push(Buffer.from(`${entry.mode} ${entry.name}\0`), Buffer.from(entry.id, "hex"));
  const id = writer.add("tree", Buffer.concat(parts));
  ids.set(folder, id);
  return id;
}

/**
 * Builds a bare repository: `main` is one commit of `main.files` (an iterable of `[path, text]`,
 * consumed as it is hashed); `branches()` is called once `main` is planned and returns `[{ name,
 * author, message, files }]`, each one commit on top of `main` whose `files` are `[path, text]` (a
 * `null` text deletes the path). Every object is hashed here and written, uncompressed, into one pack
 * read by one `git index-pack`; one `git update-ref --stdin` sets the branches and one `git repack`
 * compresses the objects as git does. That is linear in the number of files: `git fast-import`, which
 * built these repositories before, looks a path up in its folder entry by entry, so a folder of
 * 100,000 tasks cost it the square of that (over a quarter of an hour). The object ids are those
 * `git fast-import` gave the same commits. Returns the folder, the number of files on `main` and the
 * time it took.
 */
export async function buildRepository({ label = "repo", main, branches = () => [] }) {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), `taskgate-bench-${label}-`));
  tempDirs.push(dir);
  const writer = new PackWriter();
  const trees = new WeakMap();
  const root = new Map();
  let files = 0;
  for (const [path, text] of main.files) {
    files++;
    setPath(root, path, writer.add("blob", text));
  }
  const time = main.time ?? 1714550400;
  const commit = (tree, parent, author, at, message) =>
    writer.add(
      "commit",
      `tree ${tree}\n${parent ? `parent ${parent}\n` : ""}author ${who(author, at)}\ncommitter ${who(author, at)}\n\n${message}`,
    );
  const mainId = commit(
    writeTree(root, writer, trees),
    undefined,
    main.author ?? "alice",
    time,
    main.message ?? "Synthetic repository\n",
  );
  const refs = [`update refs/heads/main ${mainId}\n`];
  for (const [index, branch] of branches().entries()) {
    const tree = writeTree(changed(root, branch.files, writer), writer, trees);
    const at = (branch.time ?? time + 86400) + index;
    const id = commit(tree, mainId, branch.author, at, branch.message ?? `${branch.name}\n`);
    refs.push(`update refs/heads/${branch.name} ${id}\n`);
  }
  await run("git", ["init", "-q", "--bare", "-b", "main", dir]);
  await run("git", ["index-pack", "--stdin"], { cwd: dir, input: Readable.from(writer.pack()) });
  await run("git", ["update-ref", "--stdin"], { cwd: dir, input: Readable.from(refs) });
  // Compressed as git compresses (one pack, no deltas, like the pack `git fast-import` writes).
  await run("git", ["repack", "-a", "-d", "-f", "-q", "--window=0"], { cwd: dir });
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
/** Config lines that raise the file limit to 16 MiB, for the rendered matrix of a very large board. */
export const LARGE_FILES = "limits:\n  max_file_bytes: 16777216\n";
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
function* boardFiles(plan, config) {
  yield [CONFIG_PATH, config];
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
 * `branches` (`{ name: (plan) => change }`). `config` replaces `BOARD_CONFIG` (a board above about
 * 12,000 tasks renders a `matrix.md` above the default 1 MiB file limit, which its audit then cannot
 * read: give it `BOARD_CONFIG + LARGE_FILES`). Returns `{ dir, plan, files, buildMs, changes }`.
 */
export async function buildBoard({ tasks, seed = 1, branches = {}, config = BOARD_CONFIG }) {
  const started = performance.now();
  const plan = boardPlan(tasks, seed);
  const base = [...boardFiles(plan, config)];
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
