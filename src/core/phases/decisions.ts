/**
 * Recorded decisions of `phases` tasks: which approval lines and approved states the bot's own
 * commits added in a pull request, whether each new approval line stands, and whether a task's
 * records at one commit are those at another plus only what the bot recorded.
 */
import {
  isBotCommit,
  reviewKey,
  unbackedCode,
  type ApprovalJudge,
  type ApprovalSubject,
  type RecordedDecision,
} from "../kernel/approval.js";
import type { Config } from "../kernel/config.js";
import type { RecordedChange } from "../kernel/model.js";
import type { PrCommit, PrContext, RevisionView, Snapshot, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import type { Workflow } from "./workflow.js";
import { ADOPTED_PHASE } from "./adoption.js";
import { APPROVALS_FILE, STATE_FILE, indexTasks, readTask, type ApprovalLine, type PhasesTask } from "./reader.js";

/** What the bot's commits of a pull request wrote into one task. */
export interface TaskWrites {
  /** Approval line (raw) → the bot commits that added it. */
  readonly lines: Map<string, PrCommit[]>;
  /** Bot commit id → the task's state before it (first parent) and after it. */
  readonly states: Map<string, { from: string | undefined; to: string | undefined }>;
}

const taskIndexes = new WeakMap<Snapshot, ReturnType<typeof indexTasks>>();

/** A task as it is in a view (indexes each snapshot once). */
export function taskIn(workflow: Workflow, id: string, snapshot: Snapshot): PhasesTask {
  let index = taskIndexes.get(snapshot);
  if (!index) taskIndexes.set(snapshot, (index = indexTasks(snapshot, workflow.def.tasksDir)));
  return readTask(workflow, id, index.tasks.get(id));
}

/**
 * For each task, what each bot commit of the pull request added: the approval lines present after it
 * and in none of its parents, and its change of `.state`. Commits the adapter could not read (or
 * whose parents it could not read) add nothing.
 */
export function botWrites(
  workflow: Workflow,
  config: Config,
  pr: PrContext,
  judge: ApprovalJudge,
  ids: readonly string[],
): Map<string, TaskWrites> {
  const out = new Map<string, TaskWrites>(ids.map((id) => [id, { lines: new Map(), states: new Map() }]));
  for (const commit of pr.commits) {
    if (!isBotCommit(commit, config)) continue;
    const view = judge.view(commit.sha);
    const parents = (commit.parents ?? []).map((sha) => judge.view(sha));
    if (!view || parents.length === 0 || parents.some((parent) => parent === undefined)) continue;
    for (const id of ids) {
      const writes = out.get(id)!;
      const after = taskIn(workflow, id, view.snapshot);
      const before = parents.map((parent) => taskIn(workflow, id, parent!.snapshot));
      const known = new Set(before.flatMap((task) => task.approvalLines));
      for (const raw of new Set(after.approvalLines)) {
        if (known.has(raw)) continue;
        const list = writes.lines.get(raw) ?? [];
        list.push(commit);
        writes.lines.set(raw, list);
      }
      writes.states.set(commit.sha, { from: before[0]!.state, to: after.state });
    }
  }
  return out;
}

/**
 * Are the task's records at `to` those at `from` plus lines the bot added (and the approved state
 * such a line brings)? Used to tell the bot's records from a change under a review.
 */
export function recordsExplained(
  workflow: Workflow,
  id: string,
  writes: TaskWrites | undefined,
  from: RevisionView,
  to: RevisionView,
): boolean {
  const before = taskIn(workflow, id, from.snapshot);
  const after = taskIn(workflow, id, to.snapshot);
  if (before.hasStateFile !== after.hasStateFile) return false;
  const lines = before.approvalLines;
  if (after.approvalLines.length < lines.length) return false;
  for (let index = 0; index < lines.length; index++) if (after.approvalLines[index] !== lines[index]) return false;
  let state = before.state;
  const parsed = new Map(after.approvals.map((line) => [line.line, line]));
  for (let index = lines.length; index < after.approvalLines.length; index++) {
    if (!writes?.lines.has(after.approvalLines[index]!)) return false;
    const line = parsed.get(index + 1);
    if (!line) return false;
    const gate = botGateOf(workflow, line.phase);
    if (gate && state === gate.from) state = gate.to;
  }
  return state === after.state;
}

/** The bot gate (awaiting → approved) whose approval lines name `phase`, if the phase has one. */
export function botGateOf(workflow: Workflow, phase: string) {
  return workflow.def.transitions.find((edge) => workflow.isBotGate(edge) && workflow.gatePhase(edge) === phase);
}

export interface LineJudgement {
  /** `gateKey(phase, target)` → lower-cased logins of the lines that stand for that exit of the gate. */
  readonly backed: Map<string, Set<string>>;
  /** Phases with a line that does not stand (already reported). */
  readonly claimed: Set<string>;
  readonly violations: Violation[];
}

/**
 * Judges the approval lines a pull request adds to one task. A line stands when a bot commit added
 * it (for a bot gate, in the commit that also wrote the approved state), it names a review of this
 * pull request that was not retracted, no other line of the task uses that review, the reviewer was
 * eligible, and the task was as reviewed where the bot recorded it. An adoption line
 * (`adopted:approved`) stands only on a task this pull request adopts (`adopted`), and only while the
 * task at the head is still the task the reviewer saw.
 */
export function judgeNewLines(
  workflow: Workflow,
  judge: ApprovalJudge,
  subject: ApprovalSubject,
  task: NewLinesOf,
  writes: TaskWrites | undefined,
  used: Set<string>,
): LineJudgement {
  const backed = new Map<string, Set<string>>();
  const claimed = new Set<string>();
  const violations: Violation[] = [];
  const path = `${task.dir}/${APPROVALS_FILE}`;
  for (const line of task.baseLines) used.add(reviewKey(line.login, line.at));
  for (const line of task.newLines) {
    const verdict = judgeLine(workflow, judge, subject, task, writes, used, line);
    if (!verdict.ok) {
      claimed.add(line.phase);
      violations.push(
        violation(verdict.code, {
          task: task.id,
          path,
          line: line.line,
          message: `${line.phase}:approved by ${line.login} does not count: ${verdict.detail}`,
        }),
      );
      continue;
    }
    used.add(reviewKey(line.login, line.at));
    backExits(backed, line, verdict.addedBy, writes);
  }
  return { backed, claimed, violations };
}

/** The task whose new approval lines `judgeNewLines` judges. */
interface NewLinesOf {
  id: string;
  dir: string;
  baseLines: readonly ApprovalLine[];
  newLines: readonly ApprovalLine[];
  adopted: boolean;
}

/** Whether one new line stands: the bot commits that recorded it, or why it does not count. */
type LineVerdict =
  | { readonly ok: true; readonly addedBy: PrCommit[] }
  | { readonly ok: false; readonly code: Violation["code"]; readonly detail: string };

function judgeLine(
  workflow: Workflow,
  judge: ApprovalJudge,
  subject: ApprovalSubject,
  task: NewLinesOf,
  writes: TaskWrites | undefined,
  used: ReadonlySet<string>,
  line: ApprovalLine,
): LineVerdict {
  const adoption = line.phase === ADOPTED_PHASE;
  if (adoption && !task.adopted) {
    return {
      ok: false,
      code: "approval-forged",
      detail: `${task.id} is not adopted by this pull request: an adoption record stands only for a task that first appears in a pull request touching only new tasks, at the state its artifacts show, past a gate`,
    };
  }
  if (used.has(reviewKey(line.login, line.at))) {
    return {
      ok: false,
      code: "approval-forged",
      detail: `the review of ${line.login} at ${line.at} already records another approval of ${task.id}; each gate needs its own review`,
    };
  }
  const addedBy = recordingCommits(workflow, line, writes);
  const decision: RecordedDecision = {
    gate: line.phase,
    login: line.login,
    at: line.at,
    state: "APPROVED",
    addedBy,
    // An adoption vouches for the task as a whole: nothing may change under it after it is recorded.
    ...(adoption && { final: true }),
  };
  const verdict = judge.judgeRecord(decision, subject);
  if (verdict.ok) return { ok: true, addedBy };
  const wrongState = addedBy.length === 0 && (writes?.lines.get(line.raw)?.length ?? 0) > 0;
  return {
    ok: false,
    code: unbackedCode(verdict),
    detail: wrongState ? "taskgate records an approval together with the approved state" : verdict.detail!,
  };
}

/**
 * A line backs the exit the bot saw when it recorded it: the state it wrote (a bot gate) or the
 * state the author had proposed (other gates), never another exit of the same gate.
 */
function backExits(
  backed: Map<string, Set<string>>,
  line: ApprovalLine,
  addedBy: readonly PrCommit[],
  writes: TaskWrites | undefined,
): void {
  for (const target of new Set(addedBy.map((commit) => writes?.states.get(commit.sha)?.to))) {
    if (target === undefined) continue;
    const logins = backed.get(gateKey(line.phase, target)) ?? new Set<string>();
    logins.add(line.login.toLowerCase());
    backed.set(gateKey(line.phase, target), logins);
  }
}

/** The key of one exit of a gate: its phase and the state it leads to. */
export function gateKey(phase: string, target: string): string {
  return `${phase}\u0000${target}`;
}

/** Bot commits that added a line the way the bot records it (with the state write of a bot gate). */
function recordingCommits(workflow: Workflow, line: ApprovalLine, writes: TaskWrites | undefined): PrCommit[] {
  const commits = writes?.lines.get(line.raw) ?? [];
  const gate = botGateOf(workflow, line.phase);
  return commits.filter((commit) => {
    const state = writes!.states.get(commit.sha);
    if (!state) return false;
    // A bot gate is recorded with its approved state; other gates keep the state the author proposed.
    return gate ? state.from === gate.from && state.to === gate.to : state.from === state.to;
  });
}

/** The approval lines and bot-written states that `after` holds and `before` did not. */
export function phasesDecisionsAdded(workflow: Workflow, before: Snapshot, after: Snapshot): RecordedChange[] {
  const tasksDir = workflow.def.tasksDir;
  const out: RecordedChange[] = [];
  const was = indexTasks(before, tasksDir).tasks;
  for (const [id, files] of indexTasks(after, tasksDir).tasks) {
    const old = readTask(workflow, id, was.get(id));
    const now = readTask(workflow, id, files);
    const known = new Set(old.approvalLines);
    for (const line of now.approvals) {
      if (!known.has(line.raw)) out.push({ task: id, path: `${now.dir}/${APPROVALS_FILE}`, what: line.raw });
    }
    const approved =
      now.state && workflow.def.transitions.some((edge) => workflow.isBotGate(edge) && edge.to === now.state);
    if (approved && old.state !== now.state) {
      out.push({ task: id, path: `${now.dir}/${STATE_FILE}`, what: now.state! });
    }
  }
  return out;
}
