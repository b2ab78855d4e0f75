/**
 * Reading `phases` tasks out of a snapshot: one folder per task under the tasks dir, its `.state`
 * and its append-only `.state.approvals` log. Problems become violations, never exceptions.
 */
import type { FileEntry, Snapshot, Violation } from "../kernel/types.js";
import { closest, describeKind, truncate } from "../kernel/text.js";
import { violation } from "../kernel/violations.js";
import type { Workflow } from "./workflow.js";
import { ADOPTED_PHASE } from "./adoption.js";

export const STATE_FILE = ".state";
export const APPROVALS_FILE = ".state.approvals";

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function isValidTaskId(id: string): boolean {
  return TASK_ID.test(id) && !id.includes("..");
}

export function invalidId(dir: string, id: string): Violation {
  return violation("task-invalid-id", {
    path: dir,
    message: `"${truncate(id)}" is not a valid task id`,
  });
}

export interface ApprovalLine {
  readonly line: number;
  readonly phase: string;
  readonly at: string;
  readonly login: string;
  readonly raw: string;
}

export interface PhasesTask {
  readonly id: string;
  readonly dir: string;
  /** Files of the task folder by path relative to it. */
  readonly files: ReadonlyMap<string, FileEntry>;
  /** The state when `.state` is a readable known state. */
  readonly state?: string;
  readonly hasStateFile: boolean;
  readonly problems: readonly Violation[];
  /** Raw lines of the approvals log (for the append-only check). */
  readonly approvalLines: readonly string[];
  readonly approvals: readonly ApprovalLine[];
}

export interface TaskIndex {
  /** Task id → the task's files keyed by path relative to its folder. */
  readonly tasks: ReadonlyMap<string, Map<string, FileEntry>>;
  /** Files directly in the tasks dir (not in a task folder). */
  readonly loose: readonly FileEntry[];
}

/** Groups a snapshot's files by task in one pass. */
export function indexTasks(snapshot: Snapshot, tasksDir: string): TaskIndex {
  const prefix = `${tasksDir}/`;
  const tasks = new Map<string, Map<string, FileEntry>>();
  const loose: FileEntry[] = [];
  for (const [path, entry] of snapshot.files) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash < 0) {
      loose.push(entry);
      continue;
    }
    const id = rest.slice(0, slash);
    let files = tasks.get(id);
    if (!files) tasks.set(id, (files = new Map()));
    files.set(rest.slice(slash + 1), entry);
  }
  return { tasks, loose };
}

/** The task id a repository path belongs to, if it is inside a task folder. */
export function taskIdOf(path: string, tasksDir: string): string | undefined {
  const prefix = `${tasksDir}/`;
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length);
  const slash = rest.indexOf("/");
  return slash < 0 ? undefined : rest.slice(0, slash);
}

export function readTask(
  workflow: Workflow,
  id: string,
  files: ReadonlyMap<string, FileEntry> | undefined,
): PhasesTask {
  const dir = `${workflow.def.tasksDir}/${id}`;
  const entries = files ?? new Map<string, FileEntry>();
  const problems: Violation[] = [];
  const stateEntry = entries.get(STATE_FILE);
  let state: string | undefined;
  if (stateEntry) {
    const parsed = parseState(workflow, id, stateEntry);
    if (typeof parsed === "string") state = parsed;
    else problems.push(parsed);
  }
  const log = parseApprovals(workflow, id, entries.get(APPROVALS_FILE));
  problems.push(...log.problems);
  return {
    id,
    dir,
    files: entries,
    ...(state !== undefined && { state }),
    hasStateFile: stateEntry !== undefined,
    problems,
    approvalLines: log.lines,
    approvals: log.approvals,
  };
}

function parseState(workflow: Workflow, id: string, entry: FileEntry): string | Violation {
  const path = entry.path;
  const text = entry.kind === "file" ? entry.text : undefined;
  if (text === undefined) {
    return violation(entry.kind === "symlink" ? "path-escape" : "state-invalid", {
      task: id,
      path,
      message: `${path} is ${describeKind(entry)}, not a one-line text file`,
      hint: "Write the state name into .state as a regular text file.",
    });
  }
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\s+$/, "")
    .split(/\r?\n/);
  const value = (lines[0] ?? "").trim();
  if (lines.length > 1) {
    return violation("state-invalid", {
      task: id,
      path,
      line: 2,
      message: `${path} has ${lines.length} lines; it must hold exactly one state name`,
    });
  }
  if (value === "") {
    return violation("state-invalid", { task: id, path, line: 1, message: `${path} is empty` });
  }
  if (!workflow.has(value)) {
    const near = closest(value, workflow.stateNames);
    return violation("state-invalid", {
      task: id,
      path,
      line: 1,
      message: `${path} names an unknown state "${truncate(value)}"`,
      hint: near
        ? `Did you mean "${near}"? Known states: ${workflow.stateNames.join(", ")}.`
        : `Known states: ${workflow.stateNames.join(", ")}.`,
    });
  }
  return value;
}

const APPROVAL_LINE = /^([A-Za-z0-9_.-]+):approved\|([^|]+)\|([^|\s]+)$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function parseApprovals(
  workflow: Workflow,
  id: string,
  entry: FileEntry | undefined,
): { lines: string[]; approvals: ApprovalLine[]; problems: Violation[] } {
  if (!entry) return { lines: [], approvals: [], problems: [] };
  const path = entry.path;
  const text = entry.kind === "file" ? entry.text : undefined;
  if (text === undefined) {
    return {
      lines: [],
      approvals: [],
      problems: [
        violation(entry.kind === "symlink" ? "path-escape" : "state-invalid", {
          task: id,
          path,
          message: `${path} is ${describeKind(entry)}, not a text log`,
          hint: "The approvals log is a regular text file that only taskgate appends to.",
        }),
      ],
    };
  }
  const gatePhases = gatePhasesOf(workflow);
  const lines = text
    .replace(/^\uFEFF/, "")
    .split("\n")
    .map((line) => line.replace(/\r$/, ""));
  if (lines.at(-1) === "") lines.pop();
  const approvals: ApprovalLine[] = [];
  const problems: Violation[] = [];
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    const match = APPROVAL_LINE.exec(raw.trim());
    if (!match || !ISO_8601.test(match[2]!) || Number.isNaN(Date.parse(match[2]!))) {
      problems.push(
        violation("state-invalid", {
          task: id,
          path,
          line,
          message: `${path}:${line} is not an approval line: "${truncate(raw)}"`,
          hint: "Each line reads {phase}:approved|{ISO-8601 time}|{approver login}; only taskgate appends them.",
        }),
      );
      return;
    }
    const phase = match[1]!;
    if (!gatePhases.has(phase) && phase !== ADOPTED_PHASE) {
      problems.push(
        violation("state-invalid", {
          task: id,
          path,
          line,
          message: `${path}:${line} approves "${truncate(phase)}", which has no approval gate`,
          hint: `Gated phases: ${[...gatePhases].join(", ")} (and ${ADOPTED_PHASE}, the record of an adoption).`,
        }),
      );
      return;
    }
    approvals.push({ line, phase, at: match[2]!, login: match[3]!, raw });
  });
  return { lines, approvals, problems };
}

const gatePhaseCache = new WeakMap<Workflow, ReadonlySet<string>>();

/** Phases an approval line may name: those of the workflow's gates. */
function gatePhasesOf(workflow: Workflow): ReadonlySet<string> {
  let phases = gatePhaseCache.get(workflow);
  if (!phases) {
    phases = new Set(workflow.def.transitions.filter((edge) => edge.gate).map((edge) => workflow.gatePhase(edge)));
    gatePhaseCache.set(workflow, phases);
  }
  return phases;
}
