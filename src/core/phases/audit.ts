/**
 * Rules of the `phases` model that judge one task as it stands at one revision: artifacts required,
 * empty, forbidden or symlinked; the referee's verdict; gates passed without an approval line (or,
 * for an adopted task, without its adoption).
 */
import { emptyFindings, type Findings } from "../kernel/model.js";
import { isEmptyFile } from "../kernel/files.js";
import { staleViolations } from "../kernel/stale.js";
import { describeKind } from "../kernel/text.js";
import type { FileEntry, Snapshot, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import type { Workflow } from "./workflow.js";
import { ADOPTED_PHASE } from "./adoption.js";
import { indexTasks, invalidId, isValidTaskId, readTask, type PhasesTask } from "./reader.js";
import { phasesRenderPlan } from "./render.js";

export interface Verdict {
  /** The deciding word, when the file has one. */
  readonly word: string | undefined;
  readonly pass: boolean;
  /** What is wrong when there is no word. */
  readonly problem: string;
}

/** The first of the verdict words in the verdict file decides. */
export function readVerdict(workflow: Workflow, task: PhasesTask): Verdict {
  const { file, pass, fail } = workflow.def.verdict;
  const entry = task.files.get(file);
  if (!entry) return { word: undefined, pass: false, problem: `${task.dir}/${file} does not exist` };
  // Read once: a stored text is read from where the reader keeps it on every read.
  const text = entry.kind === "file" ? entry.text : undefined;
  if (text === undefined) {
    return { word: undefined, pass: false, problem: `${task.dir}/${file} is ${describeKind(entry)}` };
  }
  const match = verdictPattern(workflow).exec(text);
  if (!match)
    return { word: undefined, pass: false, problem: `${task.dir}/${file} says none of ${[pass, ...fail].join(", ")}` };
  return { word: match[1]!, pass: match[1] === pass, problem: "" };
}

const verdictPatterns = new WeakMap<Workflow, RegExp>();

/** Whole-word match of the verdict words, built once per workflow. */
function verdictPattern(workflow: Workflow): RegExp {
  let pattern = verdictPatterns.get(workflow);
  if (!pattern) {
    const { pass, fail } = workflow.def.verdict;
    const words = [pass, ...fail].map(escapeRegExp).join("|");
    pattern = new RegExp(`(?<![A-Za-z0-9_])(${words})(?![A-Za-z0-9_])`);
    verdictPatterns.set(workflow, pattern);
  }
  return pattern;
}

/** Has the task been sent back for rework (a recorded approval of a gate that loops back)? */
export function hasLooped(workflow: Workflow, task: PhasesTask): boolean {
  const loopPhases = new Set(
    workflow.def.transitions
      .filter((edge) => edge.gate && workflow.isBackEdge(edge))
      .map((edge) => workflow.gatePhase(edge)),
  );
  return task.approvals.some((line) => loopPhases.has(line.phase));
}

/** Artifacts implied by approval lines: an approved optional phase's artifact must stay. */
export function approvedArtifacts(workflow: Workflow, task: PhasesTask, state: string): string[] {
  const files: string[] = [];
  for (const line of task.approvals) {
    const file = workflow.def.phases[line.phase];
    if (file && line.phase !== state) files.push(file);
  }
  return files;
}

export interface ArtifactCheck {
  readonly state: string;
  /** Artifacts that must exist, beyond those the state itself requires. */
  readonly alsoRequired?: Iterable<string>;
  readonly looped: boolean;
}

/** Artifact rules for a task at a state: required ones exist and are non-empty, later ones absent. */
export function checkArtifacts(workflow: Workflow, task: PhasesTask, check: ArtifactCheck): Violation[] {
  const out: Violation[] = [];
  const required = new Set([
    ...workflow.requiredArtifacts(check.state),
    ...approvedArtifacts(workflow, task, check.state),
    ...(check.alsoRequired ?? []),
  ]);
  for (const file of [...required].sort()) {
    const path = `${task.dir}/${file}`;
    const phase = workflow.artifacts.get(file) ?? "its phase";
    const entry = task.files.get(file);
    if (!entry) {
      out.push(
        violation("artifact-missing", {
          task: task.id,
          path,
          message: `${task.id} is at ${check.state} but ${file} (the artifact of ${phase}) is missing`,
          hint: `Write ${path} before leaving ${phase}.`,
        }),
      );
    } else if (isEmptyFile(entry)) {
      out.push(
        violation("artifact-empty", {
          task: task.id,
          path,
          message: `${path} is empty`,
          hint: `Write the ${phase} results into ${file}; an empty file does not count.`,
        }),
      );
    }
  }
  const allowed = workflow.allowedArtifacts(check.state, check.looped);
  for (const [name, entry] of task.files) {
    const path = `${task.dir}/${name}`;
    if (entry.kind === "symlink") {
      out.push(
        violation("path-escape", {
          task: task.id,
          path,
          message: `${path} is a symlink${entry.target ? ` to ${entry.target}` : ""}; task folders hold regular files only`,
          hint: "Replace the symlink with the file's content.",
        }),
      );
      continue;
    }
    const phase = workflow.artifacts.get(name);
    if (phase !== undefined && !allowed.has(name)) {
      out.push(
        violation("artifact-forbidden", {
          task: task.id,
          path,
          message: `${path} belongs to ${phase}, which ${task.id} has not reached (it is at ${check.state})`,
          hint: `Remove ${name}, or move the task to ${phase} first.`,
        }),
      );
    }
  }
  return out;
}

/** A task at rest: artifacts, verdict of a completed task, gates it is past without a recorded approval. */
export function checkTaskAtRest(workflow: Workflow, task: PhasesTask, state: string): Violation[] {
  const looped = hasLooped(workflow, task);
  const out = checkArtifacts(workflow, task, { state, looped });
  const { verdict } = workflow.def;
  const completedFromReferee = workflow.def.transitions.some(
    (edge) => edge.to === state && edge.verdict === "pass" && workflow.def.states[edge.from]?.phase === verdict.phase,
  );
  if (completedFromReferee && !looped) {
    const result = readVerdict(workflow, task);
    if (!result.word || !result.pass) {
      out.push(
        violation("verdict-not-pass", {
          task: task.id,
          path: `${task.dir}/${verdict.file}`,
          message: `${task.id} is ${state} but ${result.word ? `${verdict.file} says ${result.word}` : result.problem}`,
        }),
      );
    }
  }
  const recorded = new Set(task.approvals.map((line) => line.phase));
  // An adopted task passed the gates before the state it was adopted at with its adoption. Adoption
  // places a task at a working state, never at an approved one: the gate that ends in the task's
  // state needs its own approval line.
  const adopted = recorded.has(ADOPTED_PHASE);
  for (const gate of workflow.gatesBehind(state)) {
    const phase = workflow.gatePhase(gate);
    if (recorded.has(phase) || (adopted && gate.to !== state)) continue;
    out.push(
      violation("approval-forged", {
        task: task.id,
        path: `${task.dir}/.state`,
        message: `${task.id} is at ${state}, past the ${phase} gate, but .state.approvals records no ${phase}:approved`,
        hint: `Set the task back to ${gate.from} and get an approving review; taskgate records it.`,
      }),
    );
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The audit of a revision: every task at rest, symlinks in the tasks folder, stale rendered files. */
export function auditPhases(workflow: Workflow, snapshot: Snapshot, renderRoot: string): Findings {
  const tasksDir = workflow.def.tasksDir;
  const findings = emptyFindings();
  const index = indexTasks(snapshot, tasksDir);
  for (const entry of index.loose) {
    if (entry.kind !== "symlink") continue;
    findings.violations.push(
      violation("path-escape", {
        path: entry.path,
        message: `${entry.path} is a symlink${entry.target ? ` to ${entry.target}` : ""} in the tasks folder`,
        hint: `Task folders are real folders under ${tasksDir}/; remove the link.`,
      }),
    );
  }
  for (const id of [...index.tasks.keys()].sort()) {
    findings.violations.push(...auditTask(workflow, id, index.tasks.get(id)));
  }
  findings.violations.push(
    ...staleViolations(() => phasesRenderPlan(workflow, snapshot, renderRoot), snapshot, renderRoot),
  );
  return findings;
}

/** One task at rest: its id, its `.state` file, its problems as read and the rules of its state. */
export function auditTask(
  workflow: Workflow,
  id: string,
  files: ReadonlyMap<string, FileEntry> | undefined,
): Violation[] {
  const dir = `${workflow.def.tasksDir}/${id}`;
  if (!isValidTaskId(id)) return [invalidId(dir, id)];
  const task = readTask(workflow, id, files);
  if (!task.hasStateFile) {
    return [
      violation("task-untracked", {
        task: id,
        path: dir,
        message: `${dir} has no .state file, so taskgate cannot tell where the task is`,
        hint: `Write the task's state into ${dir}/.state (a new task starts at \`${workflow.def.initial}\`).`,
      }),
    ];
  }
  const out = [...task.problems];
  if (task.state !== undefined) out.push(...checkTaskAtRest(workflow, task, task.state));
  return out;
}
