/**
 * Reading a `board` out of a snapshot: definitions and ledger parsed and validated, every problem a
 * violation that names the file, the JSON path and the line. Also the rules that hold at rest: the
 * dependency graph, owners, blockers, evidence and secrets.
 */
import type { BoardConfig } from "../config.js";
import { deepEqual, parseJsonFile } from "../json.js";
import { isSuspiciousPath } from "../paths.js";
import { scanSecrets } from "../secrets.js";
import type { FileEntry, Snapshot, Violation } from "../types.js";
import { violation } from "../violations.js";
import {
  DefinitionSchema,
  DefinitionsSchema,
  LedgerEntrySchema,
  LedgerSchema,
  TaskIdSchema,
  agentOf,
  implicitEntry,
  type Definition,
  type HistoryEntry,
  type Ledger,
  type LedgerEntry,
} from "./formats.js";

export interface Board {
  readonly options: BoardConfig;
  readonly snapshot: Snapshot;
  readonly definitions: ReadonlyMap<string, Definition>;
  /** In file order, duplicates included. */
  readonly definitionList: readonly Definition[];
  readonly ledger: Ledger;
  readonly hasDefinitions: boolean;
  /** The definitions file's text, to tell cheaply whether two revisions share it. */
  readonly definitionsText: string | undefined;
  readonly hasLedger: boolean;
  /** Problems reading the two files; when not empty, the board is empty rather than half-read. */
  readonly problems: readonly Violation[];
  /** Line of a ledger task entry, for messages (computed lazily). */
  ledgerLine(id: string, ...path: (string | number)[]): number | undefined;
  definitionLine(id: string): number | undefined;
}

export function entryOf(board: Board, id: string): LedgerEntry {
  return board.ledger.tasks[id] ?? implicitEntry();
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
  for (const definition of definitionList)
    if (!definitions.has(definition.id)) definitions.set(definition.id, definition);
  return {
    options,
    snapshot,
    definitions,
    definitionList,
    ledger: ledger ?? { revision: 0, tasks: {} },
    hasDefinitions: defsFile !== undefined,
    definitionsText: defsFile?.text,
    hasLedger: ledgerFile !== undefined,
    problems,
    ledgerLine(id, ...path) {
      return ledgerFile?.text === undefined ? undefined : lineInLedger(ledgerFile.text, id, path);
    },
    definitionLine(id) {
      return defsFile?.text === undefined
        ? undefined
        : lineOfMatch(defsFile.text, new RegExp(`"id"\\s*:\\s*${quoted(id)}`), 0);
    },
  };
}

/** A JSON string literal as a regular expression. */
function quoted(text: string): string {
  return JSON.stringify(text).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function lineOfMatch(text: string, pattern: RegExp, from: number): number | undefined {
  pattern.lastIndex = 0;
  const match = new RegExp(pattern.source, "g");
  match.lastIndex = from;
  const found = match.exec(text);
  return found ? lineAt(text, found.index) : undefined;
}

let lineStarts: { text: string; starts: number[] } | undefined;

/** The line of an offset, by binary search over the line starts of the last text asked about. */
function lineAt(text: string, offset: number): number {
  if (lineStarts?.text !== text) {
    const starts = [0];
    for (let index = text.indexOf("\n"); index >= 0; index = text.indexOf("\n", index + 1)) starts.push(index + 1);
    lineStarts = { text, starts };
  }
  const { starts } = lineStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/**
 * The line of a ledger task entry (or of a key inside it) found by scanning the text: cheap enough
 * to call for every message, unlike a full parse with positions. Falls back to the entry's line.
 */
function lineInLedger(text: string, id: string, path: readonly (string | number)[]): number | undefined {
  const tasksAt = text.search(/"tasks"\s*:/);
  const key = new RegExp(`${quoted(id)}\\s*:\\s*\\{`, "g");
  key.lastIndex = Math.max(0, tasksAt);
  const entry = key.exec(text);
  if (!entry) return undefined;
  let offset = entry.index;
  const [field, index] = path;
  if (typeof field === "string") {
    const fieldAt = new RegExp(`"${field}"\\s*:`, "g");
    fieldAt.lastIndex = offset;
    const found = fieldAt.exec(text);
    if (found) offset = found.index;
    if (field === "history" && typeof index === "number" && found) {
      const item = /\{/g;
      item.lastIndex = found.index;
      for (let count = 0; count <= index; count++) {
        const next = item.exec(text);
        if (!next) break;
        offset = next.index;
      }
    }
  }
  return lineAt(text, offset);
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
    parsed =
      previous && like?.text !== undefined && like.text === entry.text
        ? previous
        : parseBoardFile(entry, path, kind, previous);
    parsedFiles.set(entry, parsed);
  }
  problems.push(...parsed.problems);
  return parsed.value;
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
  const schema = kind === "definitions" ? DefinitionsSchema : LedgerSchema;
  let raw: unknown;
  try {
    raw = JSON.parse(entry.text.replace(/^\uFEFF/, ""));
  } catch {
    return { value: undefined, raw: undefined, problems: issuesOf(entry.text, path, kind) };
  }
  // Against a previous revision, only what changed needs validating: unchanged parts were valid there.
  const incremental = previous?.value !== undefined ? validateChanges(kind, raw, previous) : undefined;
  if (incremental !== undefined) return { value: incremental, raw, problems: [] };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { value: parsed.data, raw, problems: [] };
  return { value: undefined, raw, problems: issuesOf(entry.text, path, kind) };
}

/** Every problem of an invalid file, with JSON path and line. */
function issuesOf(text: string, path: string, kind: Kind): Violation[] {
  const result = parseJsonFile(text, kind === "definitions" ? DefinitionsSchema : LedgerSchema);
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
      if (Object.hasOwn(before, id) && validated[id] && deepEqual(before[id], item)) {
        tasks[id] = validated[id];
        continue;
      }
      const entry = LedgerEntrySchema.safeParse(item);
      if (!entry.success || !TaskIdSchema.safeParse(id).success) return undefined;
      tasks[id] = entry.data;
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
    const definition = DefinitionSchema.safeParse(item);
    if (!definition.success) return undefined;
    tasks.push(definition.data);
  }
  return { ...raw, tasks };
}

/** Duplicate ids, unknown dependencies and cycles in the definitions; unknown ids in the ledger. */
export function graphProblems(board: Board): Violation[] {
  const out: Violation[] = [];
  const { definitions: file } = board.options;
  const seen = new Set<string>();
  for (const definition of board.definitionList) {
    if (seen.has(definition.id)) {
      out.push(
        violation("id-reused", {
          task: definition.id,
          path: file,
          message: `${definition.id} is defined more than once`,
          hint: "Give the later definition a new id; ids are never reused.",
        }),
      );
    }
    seen.add(definition.id);
    for (const dependency of definition.depends_on) {
      if (!board.definitions.has(dependency)) {
        out.push(
          violation("dependency-unknown", {
            task: definition.id,
            path: file,
            line: board.definitionLine(definition.id),
            message: `${definition.id} depends on ${dependency}, which is not defined`,
          }),
        );
      }
    }
  }
  for (const cycle of findCycles(board.definitions)) {
    out.push(
      violation("dependency-cycle", {
        task: cycle[0],
        path: file,
        line: board.definitionLine(cycle[0]!),
        message: `depends_on forms a cycle: ${[...cycle, cycle[0]].join(" → ")}`,
      }),
    );
  }
  for (const [id, entry] of Object.entries(board.ledger.tasks)) {
    if (!board.definitions.has(id)) {
      out.push(
        violation("dependency-unknown", {
          task: id,
          path: board.options.ledger,
          line: board.ledgerLine(id),
          message: `the ledger has an entry for ${id}, which is not defined`,
          hint: `Define ${id} in ${file}, or fix the id.`,
        }),
      );
    }
    for (const resolver of entry.blocked_by) {
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
 * The graph problems a set of changed definitions can introduce: duplicates of their ids, unknown
 * dependencies, and cycles through them (a new cycle must pass through a changed edge).
 */
export function graphProblemsFor(board: Board, ids: ReadonlySet<string>): Violation[] {
  const out: Violation[] = [];
  const file = board.options.definitions;
  const counts = new Map<string, number>();
  for (const definition of board.definitionList) {
    if (ids.has(definition.id)) counts.set(definition.id, (counts.get(definition.id) ?? 0) + 1);
  }
  for (const [id, count] of counts) {
    if (count > 1) {
      out.push(
        violation("id-reused", {
          task: id,
          path: file,
          message: `${id} is defined more than once`,
          hint: "Give the later definition a new id; ids are never reused.",
        }),
      );
    }
  }
  for (const id of ids) {
    const definition = board.definitions.get(id);
    if (!definition) continue;
    for (const dependency of definition.depends_on) {
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
    const cycle = cycleThrough(board.definitions, id);
    if (cycle) {
      const smallest = [...cycle].sort()[0]!;
      const first = cycle.indexOf(smallest);
      const ordered = [...cycle.slice(first), ...cycle.slice(0, first)];
      out.push(
        violation("dependency-cycle", {
          task: ordered[0],
          path: file,
          line: board.definitionLine(ordered[0]!),
          message: `depends_on forms a cycle: ${[...ordered, ordered[0]].join(" → ")}`,
        }),
      );
    }
  }
  const seen = new Set<string>();
  return out.filter((item) => {
    const key = `${item.code}\u0000${item.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A cycle of dependencies from `start` back to itself, if there is one (breadth-first, shortest). */
function cycleThrough(definitions: ReadonlyMap<string, Definition>, start: string): string[] | undefined {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    for (const dependency of definitions.get(id)?.depends_on ?? []) {
      if (dependency === start) {
        const path = [id];
        for (let step = id; step !== start; step = parent.get(step)!) path.unshift(parent.get(step)!);
        return path;
      }
      if (!parent.has(dependency) && definitions.has(dependency)) {
        parent.set(dependency, id);
        queue.push(dependency);
      }
    }
  }
  return undefined;
}

/** Each elementary cycle reported once, from its smallest id (iterative DFS, colours). */
function findCycles(definitions: ReadonlyMap<string, Definition>): string[][] {
  const colour = new Map<string, 1 | 2>();
  const cycles: string[][] = [];
  const seen = new Set<string>();
  for (const start of [...definitions.keys()].sort()) {
    if (colour.has(start)) continue;
    const stack: { id: string; next: number }[] = [{ id: start, next: 0 }];
    const onPath: string[] = [start];
    colour.set(start, 1);
    while (stack.length > 0) {
      const frame = stack.at(-1)!;
      const deps = definitions.get(frame.id)?.depends_on ?? [];
      if (frame.next >= deps.length) {
        colour.set(frame.id, 2);
        stack.pop();
        onPath.pop();
        continue;
      }
      const dep = deps[frame.next++]!;
      if (!definitions.has(dep)) continue;
      const state = colour.get(dep);
      if (state === 1) {
        const cycle = onPath.slice(onPath.indexOf(dep));
        const key = [...cycle].sort().join("\u0000");
        if (!seen.has(key)) {
          seen.add(key);
          const first = cycle.indexOf([...cycle].sort()[0]!);
          cycles.push([...cycle.slice(first), ...cycle.slice(0, first)]);
        }
      } else if (state === undefined) {
        colour.set(dep, 1);
        stack.push({ id: dep, next: 0 });
        onPath.push(dep);
      }
    }
  }
  return cycles;
}

/** Owners that escalated: retired for good. */
export function retiredOwners(board: Board): Set<string> {
  const retired = new Set<string>();
  for (const entry of Object.values(board.ledger.tasks)) {
    for (const item of entry.history) if (item.action === "escalate") retired.add(item.by);
  }
  return retired;
}

export const UNFINISHED = new Set(["in_progress", "review"]);

/** Owner → unfinished tasks they own. */
export function ownedUnfinished(board: Board): Map<string, string[]> {
  const owned = new Map<string, string[]>();
  for (const [id, entry] of Object.entries(board.ledger.tasks)) {
    if (!entry.owner || !UNFINISHED.has(entry.status)) continue;
    owned.set(entry.owner, [...(owned.get(entry.owner) ?? []), id]);
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
): Violation[] {
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
  if (isSuspiciousPath(path) || !path.startsWith(`${folder}/`)) {
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
  if (entry.size === 0 || (entry.kind === "file" && !/\S/.test(entry.text ?? ""))) {
    return [
      violation("evidence-missing", {
        task,
        path,
        message: `${task}'s ${kind} ${path} is empty`,
        hint: `Write the ${kind}; an empty file does not count.`,
      }),
    ];
  }
  return [];
}

/** Secrets in a file: file, line and kind only, never the secret. */
export function secretProblems(entry: FileEntry, task?: string): Violation[] {
  if (entry.kind !== "file" || entry.text === undefined) return [];
  return scanSecrets(entry.text).map((finding) =>
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
  return [...entry.history].reverse().find((item) => item.action === "submit");
}

export function issuePath(options: BoardConfig, id: string, owner: string): string {
  return `${options.issues_dir}/${id}-${agentOf(owner)}.json`;
}

export function handoffPath(options: BoardConfig, id: string): string {
  return `${options.handoffs_dir}/${id}.md`;
}

/** The files of the board's own folders a task may write: its handoff, issue reports and any evidence. */
export function isTaskMetadata(options: BoardConfig, id: string, path: string): boolean {
  return (
    path === handoffPath(options, id) ||
    (path.startsWith(`${options.issues_dir}/${id}-`) && path.endsWith(".json")) ||
    path.startsWith(`${options.evidence_dir}/`)
  );
}
