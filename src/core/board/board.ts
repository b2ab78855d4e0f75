/**
 * Reading a `board` out of a snapshot: definitions and ledger parsed and validated, every problem a
 * violation that names the file, the JSON path and the line. Also the rules that hold at rest: the
 * dependency graph, owners, blockers, evidence and secrets.
 */
import type { BoardConfig } from "../config.js";
import { lineLocator, parseJsonFile } from "../json.js";
import { isSuspiciousPath } from "../paths.js";
import { scanSecrets } from "../secrets.js";
import type { FileEntry, Snapshot, Violation } from "../types.js";
import { violation } from "../violations.js";
import {
  DefinitionsSchema,
  LedgerSchema,
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

export function readBoard(snapshot: Snapshot, options: BoardConfig): Board {
  const problems: Violation[] = [];
  const defsFile = snapshot.files.get(options.definitions);
  const ledgerFile = snapshot.files.get(options.ledger);
  const defs = readJson(defsFile, options.definitions, DefinitionsSchema, problems);
  const ledger = readJson(ledgerFile, options.ledger, LedgerSchema, problems);
  const definitionList = defs?.tasks ?? [];
  const definitions = new Map<string, Definition>();
  for (const definition of definitionList)
    if (!definitions.has(definition.id)) definitions.set(definition.id, definition);
  let ledgerLocate: ((path: readonly PropertyKey[]) => number | undefined) | undefined;
  let defsLocate: ((path: readonly PropertyKey[]) => number | undefined) | undefined;
  return {
    options,
    snapshot,
    definitions,
    definitionList,
    ledger: ledger ?? { revision: 0, tasks: {} },
    hasDefinitions: defsFile !== undefined,
    hasLedger: ledgerFile !== undefined,
    problems,
    ledgerLine(id, ...path) {
      if (ledgerFile?.text === undefined) return undefined;
      ledgerLocate ??= lineLocator(ledgerFile.text);
      return ledgerLocate(["tasks", id, ...path]);
    },
    definitionLine(id) {
      if (defsFile?.text === undefined) return undefined;
      const index = definitionList.findIndex((definition) => definition.id === id);
      if (index < 0) return undefined;
      defsLocate ??= lineLocator(defsFile.text);
      return defsLocate(["tasks", index]);
    },
  };
}

function readJson<S extends typeof DefinitionsSchema | typeof LedgerSchema>(
  entry: FileEntry | undefined,
  path: string,
  schema: S,
  problems: Violation[],
): ReturnType<S["parse"]> | undefined {
  if (!entry) return undefined;
  if (entry.kind !== "file" || entry.text === undefined) {
    problems.push(
      violation(entry.kind === "symlink" ? "path-escape" : "state-invalid", {
        path,
        message: `${path} is ${entry.kind === "oversized" ? `too large to read (${entry.size} bytes)` : `a ${entry.kind}`}, not a JSON file`,
        hint:
          entry.kind === "oversized"
            ? "Raise limits.max_file_bytes in the config if the board really is this large."
            : `Keep ${path} a regular JSON file.`,
      }),
    );
    return undefined;
  }
  const result = parseJsonFile(entry.text, schema);
  if (result.ok) return result.value as ReturnType<S["parse"]>;
  for (const issue of result.issues) {
    problems.push(
      violation("state-invalid", {
        path,
        ...(issue.line !== undefined && { line: issue.line }),
        message: `${path} ${issue.path}: ${issue.message}`,
        hint: `Fix ${path}; docs/${schema === DefinitionsSchema ? "board-definitions" : "board-ledger"}.schema.json describes it.`,
      }),
    );
  }
  return undefined;
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
  where: { path: string; line?: number | undefined },
): Violation[] {
  if (!path) {
    return [
      violation("evidence-missing", {
        task,
        ...where,
        message: `${task} names no ${kind}`,
        hint: `Write the ${kind} under ${folder}/ and name it in the history entry.`,
      }),
    ];
  }
  if (isSuspiciousPath(path) || !path.startsWith(`${folder}/`)) {
    return [
      violation("path-escape", {
        task,
        ...where,
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
