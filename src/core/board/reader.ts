/**
 * Reading a `board` out of a snapshot: definitions and ledger parsed and validated, every problem a
 * violation that names the file, the JSON path and the line. Also the rules that hold at rest: the
 * dependency graph, owners, blockers, evidence and secrets.
 */
import type { BoardConfig } from "../kernel/config.js";
import { deepEqual, jsonLines, nestingMessage, parseJsonFile, tooDeep } from "../kernel/json.js";
import { own } from "../kernel/objects.js";
import { isSuspiciousPath } from "../kernel/paths.js";
import { describeKind } from "../kernel/text.js";
import { isEmptyFile } from "../kernel/files.js";
import { mayHoldSecret, scanSecrets } from "../kernel/secrets.js";
import type { FileEntry, Snapshot, Violation } from "../kernel/types.js";
import { NO_VIOLATIONS, violation } from "../kernel/violations.js";
import {
  boardSchemas,
  isTaskId,
  readDefinition,
  readDefinitions,
  readLedger,
  readLedgerEntry,
  agentOf,
  implicitEntry,
  type Definition,
  type HistoryEntry,
  type Ledger,
  type LedgerEntry,
} from "./formats.js";
import { ownerKey } from "./owners.js";

export interface Board {
  readonly options: BoardConfig;
  readonly snapshot: Snapshot;
  readonly definitions: ReadonlyMap<string, Definition>;
  /** In file order, duplicates included. */
  readonly definitionList: readonly Definition[];
  readonly ledger: Ledger;
  readonly hasDefinitions: boolean;
  /** The definitions file, to tell cheaply whether two revisions share it (`sameText`). */
  readonly definitionsFile: FileEntry | undefined;
  readonly hasLedger: boolean;
  /** Problems reading the two files; when not empty, the board is empty rather than half-read. */
  readonly problems: readonly Violation[];
  /** Line of a ledger task entry, for messages (computed lazily). */
  ledgerLine(id: string, ...path: (string | number)[]): number | undefined;
  definitionLine(id: string): number | undefined;
}

export function entryOf(board: Board, id: string): LedgerEntry {
  return own(board.ledger.tasks, id) ?? implicitEntry();
}

/** Reads a board; `like` is another snapshot (the base of a PR) whose identical files are reused. */
export function readBoard(snapshot: Snapshot, options: BoardConfig, like?: Snapshot): Board {
  const problems: Violation[] = [];
  const defsFile = snapshot.files.get(options.definitions);
  const ledgerFile = snapshot.files.get(options.ledger);
  const defs = readJson(
    defsFile,
    options.definitions,
    "definitions",
    problems,
    like?.files.get(options.definitions),
  ) as { tasks: Definition[] } | undefined;
  const ledger = readJson(ledgerFile, options.ledger, "ledger", problems, like?.files.get(options.ledger)) as
    | Ledger
    | undefined;
  const definitionList = defs?.tasks ?? [];
  const definitions = new Map<string, Definition>();
  for (let index = 0; index < definitionList.length; index++) {
    const definition = definitionList[index]!;
    if (!definitions.has(definition.id)) definitions.set(definition.id, definition);
  }
  let ledgerLines: ReturnType<typeof jsonLines> | undefined;
  let definitionLines: ReturnType<typeof jsonLines> | undefined;
  let definitionIndex: Map<string, number> | undefined;
  return {
    options,
    snapshot,
    definitions,
    definitionList,
    ledger: ledger ?? { revision: 0, tasks: {} },
    hasDefinitions: defsFile !== undefined,
    definitionsFile: defsFile,
    hasLedger: ledgerFile !== undefined,
    problems,
    // The texts are read (a stored text: from where the reader keeps it) once, on the first line asked.
    ledgerLine(id, ...path) {
      if (!ledgerLines) {
        const text = ledger && ledgerFile?.text;
        if (!text) return undefined;
        ledgerLines = jsonLines(text, 4);
      }
      return ledgerLines(["tasks", id, ...path]);
    },
    definitionLine(id) {
      if (!definitionLines) {
        const text = defs && defsFile?.text;
        if (!text) return undefined;
        definitionLines = jsonLines(text, 3);
      }
      if (!definitionIndex) {
        definitionIndex = new Map();
        definitionList.forEach((definition, index) => {
          if (!definitionIndex!.has(definition.id)) definitionIndex!.set(definition.id, index);
        });
      }
      const index = definitionIndex.get(id);
      if (index === undefined) return undefined;
      return definitionLines(["tasks", index, "id"]);
    },
  };
}

interface Parsed {
  /** The validated value, or undefined when the file is invalid. */
  readonly value: unknown;
  /** What JSON.parse gave (for comparing with another revision). */
  readonly raw: unknown;
  readonly problems: Violation[];
}

/** Parsed files by file entry: a snapshot's entries are immutable, so one parse serves every reader. */
const parsedFiles = new WeakMap<FileEntry, Parsed>();

type Kind = "definitions" | "ledger";

function readJson(
  entry: FileEntry | undefined,
  path: string,
  kind: Kind,
  problems: Violation[],
  like: FileEntry | undefined,
): unknown {
  if (!entry) return undefined;
  let parsed = parsedFiles.get(entry);
  if (!parsed) {
    const previous = like ? parsedFiles.get(like) : undefined;
    // The same text in another snapshot (a base and a head sharing the file) parses once.
    parsed = previous && like && sameText(like, entry) ? previous : parseBoardFile(entry, path, kind, previous);
    parsedFiles.set(entry, parsed);
  }
  problems.push(...parsed.problems);
  return parsed.value;
}

/** Whether two entries hold the same text: by content id when both have one (no text read), else by text. */
export function sameText(a: FileEntry, b: FileEntry): boolean {
  if (a.oid !== undefined && b.oid !== undefined) return a.oid === b.oid && a.kind === "file" && b.kind === "file";
  const text = a.text;
  return text !== undefined && text === b.text;
}

function parseBoardFile(entry: FileEntry, path: string, kind: Kind, previous: Parsed | undefined): Parsed {
  if (entry.kind !== "file" || entry.text === undefined) {
    return {
      value: undefined,
      raw: undefined,
      problems: [
        violation(entry.kind === "symlink" ? "path-escape" : "state-invalid", {
          path,
          message: `${path} is ${entry.kind === "oversized" ? `too large to read (${entry.size} bytes)` : `a ${entry.kind}`}, not a JSON file`,
          hint:
            entry.kind === "oversized"
              ? "Raise limits.max_ledger_bytes in the config if the board really is this large."
              : `Keep ${path} a regular JSON file.`,
        }),
      ],
    };
  }
  let raw: unknown;
  try {
    // JSON.parse itself copes with any depth; what comes after it may recurse.
    raw = JSON.parse(entry.text.replace(/^\uFEFF/, ""));
  } catch {
    return { value: undefined, raw: undefined, problems: issuesOf(entry.text, path, kind) };
  }
  // A file of canonical items (what taskgate writes) is read without the schema, and its shape
  // bounds its depth: no nesting scan, no comparison with the previous revision needed.
  const canonical = kind === "definitions" ? readDefinitions(raw, true) : readLedger(raw, true);
  if (canonical !== undefined) return { value: canonical, raw, problems: [] };
  const deep = tooDeep(entry.text);
  if (deep) {
    return {
      value: undefined,
      raw: undefined,
      problems: [
        violation("state-invalid", {
          path,
          line: deep.line,
          message: `${path} is ${nestingMessage()}`,
          hint: `Keep ${path} in the shape docs/board-${kind}.schema.json describes.`,
        }),
      ],
    };
  }
  // Against a previous revision, only what changed needs validating: unchanged parts were valid there.
  const incremental = previous?.value !== undefined ? validateChanges(kind, raw, previous) : undefined;
  if (incremental !== undefined) return { value: incremental, raw, problems: [] };
  const value = kind === "definitions" ? readDefinitions(raw) : readLedger(raw);
  if (value !== undefined) return { value, raw, problems: [] };
  // Only an invalid file pays for the schema over the whole file, which names every problem.
  const parsed = schemaOf(kind).safeParse(raw);
  if (parsed.success) return { value: parsed.data, raw, problems: [] };
  return { value: undefined, raw, problems: issuesOf(entry.text, path, kind) };
}

/** The schema of one of the board's two files (built on first use). */
function schemaOf(kind: Kind) {
  const schemas = boardSchemas();
  return kind === "definitions" ? schemas.DefinitionsSchema : schemas.LedgerSchema;
}

/** Every problem of an invalid file, with JSON path and line. */
function issuesOf(text: string, path: string, kind: Kind): Violation[] {
  const result = parseJsonFile(text, schemaOf(kind));
  if (result.ok) return [];
  return result.issues.map((issue) =>
    violation("state-invalid", {
      path,
      ...(issue.line !== undefined && { line: issue.line }),
      message: `${path} ${issue.path}: ${issue.message}`,
      hint: `Fix ${path}; docs/board-${kind}.schema.json describes it.`,
    }),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates a revision of a board file against the previous one: unchanged entries reuse the
 * previous validated values; changed ones are validated alone. `undefined` when anything is wrong
 * (the caller then validates the whole file, which names every problem).
 */
function validateChanges(kind: Kind, raw: unknown, previous: Parsed): unknown {
  if (!isRecord(raw) || !isRecord(previous.raw) || !isRecord(previous.value)) return undefined;
  if (kind === "ledger") {
    const revision = raw.revision;
    if (!isRecord(raw.tasks) || typeof revision !== "number" || !Number.isInteger(revision) || revision < 0) {
      return undefined;
    }
    const before = isRecord(previous.raw.tasks) ? previous.raw.tasks : {};
    const validated = previous.value.tasks as Record<string, LedgerEntry>;
    const tasks: Record<string, LedgerEntry> = {};
    for (const [id, item] of Object.entries(raw.tasks)) {
      const known = own(validated, id);
      if (known && Object.hasOwn(before, id) && deepEqual(before[id], item)) {
        tasks[id] = known;
        continue;
      }
      const entry = readLedgerEntry(item);
      if (entry === undefined || !isTaskId(id)) return undefined;
      tasks[id] = entry;
    }
    return { ...raw, revision, tasks };
  }
  if (!Array.isArray(raw.tasks) || !Array.isArray(previous.raw.tasks)) return undefined;
  const validated = previous.value.tasks as Definition[];
  const before = new Map<string, { raw: unknown; value: Definition }>();
  previous.raw.tasks.forEach((item, index) => {
    if (isRecord(item) && typeof item.id === "string" && validated[index])
      before.set(item.id, { raw: item, value: validated[index] });
  });
  const tasks: Definition[] = [];
  for (const item of raw.tasks) {
    const known = isRecord(item) && typeof item.id === "string" ? before.get(item.id) : undefined;
    if (known && deepEqual(known.raw, item)) {
      tasks.push(known.value);
      continue;
    }
    const definition = readDefinition(item);
    if (definition === undefined) return undefined;
    tasks.push(definition);
  }
  return { ...raw, tasks };
}

/** Duplicate ids, unknown dependencies and cycles in the definitions; unknown ids in the ledger. */
export function graphProblems(board: Board): Violation[] {
  // Every defined id: the map of definitions serves as the set (no copy of 10,000 ids).
  const out = graphProblemsFor(board, board.definitions);
  const tasks = board.ledger.tasks;
  for (const id in tasks) {
    if (!Object.hasOwn(tasks, id)) continue;
    const entry = tasks[id]!;
    if (!board.definitions.has(id)) {
      out.push(
        violation("dependency-unknown", {
          task: id,
          path: board.options.ledger,
          line: board.ledgerLine(id),
          message: `the ledger has an entry for ${id}, which is not defined`,
          hint: `Define ${id} in ${board.options.definitions}, or fix the id.`,
        }),
      );
    }
    const blockers = entry.blocked_by;
    for (let index = 0; index < blockers.length; index++) {
      const resolver = blockers[index]!;
      if (!board.definitions.has(resolver)) {
        out.push(
          violation("dependency-unknown", {
            task: id,
            path: board.options.ledger,
            line: board.ledgerLine(id, "blocked_by"),
            message: `${id} is blocked by ${resolver}, which is not defined`,
          }),
        );
      }
    }
  }
  return out;
}

/**
 * The graph problems a set of changed definitions can introduce: duplicate ids anywhere (a
 * duplicated definition may be byte-identical to an old one), unknown dependencies of the changed
 * ones, and cycles through them (a new cycle must pass through a changed edge). Linear in the size
 * of the part of the graph the changed definitions reach.
 */
export function graphProblemsFor(board: Board, ids: IdSet, before?: Board): Violation[] {
  const out: Violation[] = [];
  const file = board.options.definitions;
  // Without duplicates (every id once, as the map of definitions tells), there is nothing to count.
  const counts = hasDuplicates(board) ? idCounts(board) : new Map<string, number>();
  const earlier = before && counts.size > 0 ? idCounts(before) : new Map<string, number>();
  for (const [id, count] of counts) {
    if (count > 1 && count > (earlier.get(id) ?? 0)) {
      out.push(
        violation("id-reused", {
          task: id,
          path: file,
          line: board.definitionLine(id),
          message: `${id} is defined ${count} times`,
          hint: "Give the later definition a new id; ids are never reused.",
        }),
      );
    }
  }
  ids.forEach((_, id) => {
    const dependencies = board.definitions.get(id)?.depends_on;
    if (dependencies === undefined) return;
    for (let index = 0; index < dependencies.length; index++) {
      const dependency = dependencies[index]!;
      if (!board.definitions.has(dependency)) {
        out.push(
          violation("dependency-unknown", {
            task: id,
            path: file,
            line: board.definitionLine(id),
            message: `${id} depends on ${dependency}, which is not defined`,
          }),
        );
      }
    }
  });
  for (const cycle of cyclesThrough(board.definitions, ids)) {
    out.push(
      violation("dependency-cycle", {
        task: cycle[0],
        path: file,
        line: board.definitionLine(cycle[0]!),
        message: `depends_on forms a cycle: ${[...cycle, cycle[0]].join(" → ")}`,
      }),
    );
  }
  return out;
}

/**
 * A set of task ids: a `Set`, or a `Map` keyed by id (the definitions themselves, when every id
 * counts). Walked with `forEach`, which hands over the id as its second argument for both.
 */
export interface IdSet {
  has(id: string): boolean;
  forEach(each: (value: unknown, id: string) => void): void;
  readonly size: number;
}

function hasDuplicates(board: Board): boolean {
  return board.definitionList.length !== board.definitions.size;
}

function idCounts(board: Board): Map<string, number> {
  const counts = new Map<string, number>();
  for (const definition of board.definitionList) counts.set(definition.id, (counts.get(definition.id) ?? 0) + 1);
  return counts;
}

/**
 * One cycle per strongly connected component that holds a changed id (Tarjan's algorithm, iterative,
 * over the part of the graph reachable from the changed ids), each starting at its smallest id.
 */
function cyclesThrough(definitions: ReadonlyMap<string, Definition>, ids: IdSet): string[][] {
  // Ids as numbers, in the order the walk meets them, and the walk's state in typed arrays: at
  // 10,000 tasks the graph is walked without an object, an array or a push per task.
  const depsOf = (id: string) => (definitions.get(id)?.depends_on ?? []).filter((dep) => definitions.has(dep));
  const size = definitions.size;
  const numbers = new Map<string, number>();
  /** By number: the id, and its definition's own `depends_on` (read in place, unknown ids skipped as they come). */
  // Grown by push (numbers are given in order): an array made at its full length up front is slow
  // in V8 past 100,000 elements.
  const names: string[] = [];
  const depsByNumber: (readonly string[])[] = [];
  const numberOf = (id: string) => {
    let number = numbers.get(id);
    if (number === undefined) {
      number = names.length;
      numbers.set(id, number);
      names.push(id);
      depsByNumber.push(definitions.get(id)!.depends_on);
    }
    return number;
  };
  const index = new Int32Array(size).fill(-1);
  const low = new Int32Array(size);
  const onStack = new Uint8Array(size);
  // Tarjan's stack, and the walk's frames (a task and the next of its dependencies to follow):
  // each holds a task at most once, so `size` bounds both.
  const stack = new Int32Array(size);
  let stackTop = 0;
  const frameTask = new Int32Array(size);
  const frameNext = new Int32Array(size);
  let frames = 0;
  const cycles: string[][] = [];
  let counter = 0;
  const open = (task: number) => {
    index[task] = counter;
    low[task] = counter++;
    stack[stackTop++] = task;
    onStack[task] = 1;
    frameTask[frames] = task;
    frameNext[frames++] = 0;
  };
  const roots: string[] = [];
  ids.forEach((_, id) => roots.push(id));
  roots.sort();
  for (let root = 0; root < roots.length; root++) {
    const rootId = roots[root]!;
    if (!definitions.has(rootId) || index[numberOf(rootId)]! >= 0) continue;
    open(numberOf(rootId));
    while (frames > 0) {
      const top = frames - 1;
      const task = frameTask[top]!;
      const deps = depsByNumber[task]!;
      if (frameNext[top]! < deps.length) {
        const name = deps[frameNext[top]!++]!;
        if (!definitions.has(name)) continue;
        const dep = numberOf(name);
        if (index[dep]! < 0) open(dep);
        else if (onStack[dep]) low[task] = Math.min(low[task]!, index[dep]!);
        continue;
      }
      frames--;
      if (top > 0) {
        const parent = frameTask[top - 1]!;
        low[parent] = Math.min(low[parent]!, low[task]!);
      }
      if (low[task] !== index[task]) continue;
      // A task alone is a component of its own unless it depends on itself: no cycle, no array.
      if (stack[stackTop - 1] === task && !deps.includes(names[task]!)) {
        stackTop--;
        onStack[task] = 0;
        continue;
      }
      const component: string[] = [];
      let member: number;
      do {
        member = stack[--stackTop]!;
        onStack[member] = 0;
        component.push(names[member]!);
      } while (member !== task);
      if (component.some((id) => ids.has(id))) cycles.push(cycleIn(new Set(component), depsOf));
    }
  }
  return cycles;
}

function cycleIn(component: ReadonlySet<string>, depsOf: (id: string) => string[]): string[] {
  const start = [...component].sort()[0]!;
  const parent = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    for (const dep of depsOf(id)) {
      if (!component.has(dep)) continue;
      if (dep === start) {
        const path = [id];
        for (let step = id; step !== start; step = parent.get(step)!) path.unshift(parent.get(step)!);
        return path;
      }
      if (!parent.has(dep)) {
        parent.set(dep, id);
        queue.push(dep);
      }
    }
  }
  return [start];
}

/** Owners that escalated, by owner key (case-insensitive): retired for good. */
export function retiredOwners(board: Board): Set<string> {
  const retired = new Set<string>();
  const tasks = board.ledger.tasks;
  for (const id in tasks) {
    if (!Object.hasOwn(tasks, id)) continue;
    const history = tasks[id]!.history;
    for (let index = 0; index < history.length; index++) {
      if (history[index]!.action === "escalate") retired.add(ownerKey(history[index]!.by));
    }
  }
  return retired;
}

export const UNFINISHED = new Set(["in_progress", "review"]);

/** Owner key → the owner as written and the unfinished tasks they own. */
export function ownedUnfinished(board: Board): Map<string, { owner: string; tasks: string[] }> {
  const owned = new Map<string, { owner: string; tasks: string[] }>();
  const tasks = board.ledger.tasks;
  for (const id in tasks) {
    if (!Object.hasOwn(tasks, id)) continue;
    const entry = tasks[id]!;
    if (!entry.owner || !UNFINISHED.has(entry.status)) continue;
    const key = ownerKey(entry.owner);
    const known = owned.get(key);
    if (known) known.tasks.push(id);
    else owned.set(key, { owner: entry.owner, tasks: [id] });
  }
  return owned;
}

/** Problems with a path named in a history entry: outside its folder, missing, empty, a symlink. */
export function checkReferencedFile(
  snapshot: Snapshot,
  task: string,
  kind: "evidence" | "handoff" | "issue report",
  path: string | null | undefined,
  folder: string,
  whereOf: () => { path: string; line?: number | undefined },
): readonly Violation[] {
  if (!path) {
    return [
      violation("evidence-missing", {
        task,
        ...whereOf(),
        message: `${task} names no ${kind}`,
        hint: `Write the ${kind} under ${folder}/ and name it in the history entry.`,
      }),
    ];
  }
  if (isSuspiciousPath(path) || !isInside(path, folder)) {
    return [
      violation("path-escape", {
        task,
        ...whereOf(),
        message: `${task}'s ${kind} path "${path.slice(0, 120)}" is not inside ${folder}/`,
        hint: `Keep ${kind} files inside ${folder}/, named by a plain relative path.`,
      }),
    ];
  }
  const entry = snapshot.files.get(path);
  if (!entry) {
    return [
      violation("evidence-missing", {
        task,
        path,
        message: `${task}'s ${kind} ${path} does not exist`,
        hint: `Commit ${path} with the ${kind}.`,
      }),
    ];
  }
  if (entry.kind === "symlink") {
    return [
      violation("path-escape", {
        task,
        path,
        message: `${task}'s ${kind} ${path} is a symlink`,
        hint: `Replace the link with a regular file inside ${folder}/.`,
      }),
    ];
  }
  // Judged by kind and emptiness: a stored text is not read for it.
  if (entry.kind !== "file") return [unscannable(entry, task)];
  if (isEmptyFile(entry)) {
    return [
      violation("evidence-missing", {
        task,
        path,
        message: `${task}'s ${kind} ${path} is empty`,
        hint: `Write the ${kind}; an empty file does not count.`,
      }),
    ];
  }
  return NO_VIOLATIONS;
}

/** Whether `path` lies under `folder` ("folder/..."), compared in place. */
function isInside(path: string, folder: string): boolean {
  return path.length > folder.length && path.charCodeAt(folder.length) === 0x2f && path.startsWith(folder);
}

/** A file of the board's own folders that taskgate cannot read as text, so cannot scan. */
function unscannable(entry: FileEntry, task?: string): Violation {
  return violation("evidence-missing", {
    ...(task !== undefined && { task }),
    path: entry.path,
    message: `${entry.path} is ${describeKind(entry)}; evidence, handoffs and issue reports must be text taskgate can read and scan for secrets`,
    hint: "Commit a text file (Markdown, JSON, a log excerpt) under the configured size limit instead.",
  });
}

/**
 * Secrets in a file of the board's own folders: file, line and kind only, never the secret. A file
 * that cannot be read as text is refused rather than skipped.
 */
export function secretProblems(entry: FileEntry, task?: string): readonly Violation[] {
  if (entry.kind === "symlink") return NO_VIOLATIONS;
  const text = entry.kind === "file" ? entry.text : undefined;
  if (text === undefined) return [unscannable(entry, task)];
  // Most files name nothing a secret holds: no list is made for them.
  if (!mayHoldSecret(text)) return NO_VIOLATIONS;
  return scanSecrets(text).map((finding) =>
    violation("secret-detected", {
      ...(task !== undefined && { task }),
      path: entry.path,
      line: finding.line,
      message: `${entry.path}:${finding.line} contains ${finding.kind}`,
    }),
  );
}

/** The history entry that submitted a task most recently, if any. */
export function lastSubmit(entry: LedgerEntry): HistoryEntry | undefined {
  const history = entry.history;
  for (let index = history.length - 1; index >= 0; index--)
    if (history[index]!.action === "submit") return history[index];
  return undefined;
}

export function issuePath(options: BoardConfig, id: string, owner: string): string {
  return `${options.issues_dir}/${id}-${agentOf(owner)}.json`;
}

export function handoffPath(options: BoardConfig, id: string): string {
  return `${options.handoffs_dir}/${id}.md`;
}

/**
 * Does a file of the board's own folders belong to one of `tasks`: its handoff, one of its issue
 * reports, or any evidence (evidence is named freely)? Looks the task up from the file name.
 */
export function isTaskMetadata(options: BoardConfig, tasks: ReadonlySet<string>, path: string): boolean {
  if (tasks.size === 0) return false;
  if (path.startsWith(`${options.evidence_dir}/`)) return true;
  const handoffs = `${options.handoffs_dir}/`;
  if (path.startsWith(handoffs) && path.endsWith(".md")) {
    const id = path.slice(handoffs.length, -".md".length);
    if (tasks.has(id) && path === handoffPath(options, id)) return true;
  }
  const issues = `${options.issues_dir}/`;
  if (path.startsWith(issues) && path.endsWith(".json")) {
    const name = path.slice(issues.length);
    // `<id>-<agent>.json`: ids and agents may hold `-`, so try every split.
    for (let dash = name.indexOf("-"); dash > 0; dash = name.indexOf("-", dash + 1)) {
      if (tasks.has(name.slice(0, dash))) return true;
    }
  }
  return false;
}
