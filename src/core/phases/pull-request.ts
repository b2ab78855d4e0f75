/**
 * The rules of a `phases` pull request: each touched task's move (legal edges, gates, verdicts,
 * artifacts), the approval lines it adds, and which files the pull request may change.
 */
import {
  ApprovalJudge,
  describeApprovers,
  gateOutcome,
  gatePolicy,
  recordOf,
  reviewKey,
  type ApprovalSubject,
  type GateJudgement,
  type GateSite,
} from "../kernel/approval.js";
import type { Config } from "../kernel/config.js";
import { emptyFindings, type Findings } from "../kernel/model.js";
import type { EdgeDef, EditScope } from "./preset.js";
import { changedPathsOf, firstRewrite, frameworkViolations, taskMissing } from "../kernel/scope.js";
import type { FileEntry, PrContext, Snapshot, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import type { Workflow } from "./workflow.js";
import { ADOPTED_PHASE, gatesBefore, isAdopted } from "./adoption.js";
import { botWrites, gateKey, judgeNewLines, recordsExplained, type TaskWrites } from "./decisions.js";
import { checkArtifacts, hasLooped, readVerdict } from "./audit.js";
import { phasesPaths } from "./scope.js";
import {
  APPROVALS_FILE,
  STATE_FILE,
  indexTasks,
  invalidId,
  isValidTaskId,
  readTask,
  type PhasesTask,
} from "./reader.js";

/** Findings that make a task's move illegal as a whole (its edit scope is then not earned). */
const MOVE_CODES = new Set<string>([
  "illegal-transition",
  "approval-forged",
  "approval-self",
  "approval-stale",
  "history-rewritten",
  "verdict-not-pass",
  "state-invalid",
  "task-deleted",
  "task-untracked",
  "task-invalid-id",
]);

interface TaskPlan {
  readonly id: string;
  readonly dir: string;
  readonly before: PhasesTask;
  readonly after: PhasesTask;
  /** Edit scopes of the states the task passes through in this PR (an adopted task: its folder only). */
  readonly scopes: readonly EditScope[];
  /** The pull request adopts the task: it first appears here, past a gate, where its artifacts show. */
  readonly adopted: boolean;
}

/** An adopted task whose adoption is not recorded yet: what the reviews say about it. */
interface AdoptionWait {
  readonly id: string;
  readonly dir: string;
  readonly state: string;
  readonly gates: readonly string[];
  readonly judgement: GateJudgement;
}

/** What the rules of one task see. */
interface TaskContext {
  readonly config: Config;
  readonly workflow: Workflow;
  readonly judge: ApprovalJudge;
  readonly plan: TaskPlan;
  readonly subject: ApprovalSubject;
  readonly writes: TaskWrites | undefined;
  readonly findings: Findings;
  /** Adopted tasks still waiting for their adoption's review, gathered into one pending item. */
  readonly adoptions: AdoptionWait[];
}

export function evaluatePhases(
  config: Config,
  workflow: Workflow,
  touched: ReadonlySet<string>,
  base: Snapshot,
  head: Snapshot,
  pr: PrContext,
): Findings {
  const findings = emptyFindings();
  const tasksDir = workflow.def.tasksDir;
  const baseIndex = indexTasks(base, tasksDir);
  const headIndex = indexTasks(head, tasksDir);
  const judge = new ApprovalJudge(config, pr, head);
  const changed = classifyChanged(config, workflow, pr);
  const tasks = [...touched].sort();
  // An adoption pull request touches only tasks that first appear in it (none had a .state at the base).
  const adoptionPr = tasks.length > 0 && tasks.every((id) => !baseIndex.tasks.get(id)?.has(STATE_FILE));
  const plans = tasks.map((id) => planTask(workflow, id, baseIndex.tasks.get(id), headIndex.tasks.get(id), adoptionPr));
  const writes = botWrites(workflow, config, pr, judge, tasks);
  const projectAllowed = judgePlans(config, workflow, judge, plans, writes, changed.isProject, findings);
  if (tasks.length > 0) {
    findings.violations.push(...frameworkViolations(changed.framework));
    if (!projectAllowed) findings.violations.push(...projectOutOfScope(workflow, changed.project));
  } else {
    const missing = taskMissing(
      config,
      pr,
      { framework: changed.framework, project: changed.project, rendered: [] },
      {
        what: "touches no task",
        fix: `move a task under ${tasksDir}/ forward`,
        projectNeeds: "a task in an editing phase",
      },
    );
    if (missing) findings.violations.push(missing);
  }
  return findings;
}

/** The pull request's framework files and project files (files directly in the tasks folder belong to no task). */
function classifyChanged(config: Config, workflow: Workflow, pr: PrContext) {
  const kindOf = phasesPaths(config, workflow);
  const framework: string[] = [];
  const project: string[] = [];
  for (const path of changedPathsOf(pr.files)) {
    const { kind } = kindOf(path);
    if (kind === "framework") framework.push(path);
    else if (kind === "project") project.push(path);
  }
  const isProject = (path: string) => kindOf(path).kind === "project";
  return { framework, project, isProject };
}

/**
 * Judges every touched task, then the adoptions among them; tells whether a task earned the right to
 * edit project files. The edit scope a PR earns comes from legal moves only: an illegal jump to
 * `implement` does not open project files.
 */
function judgePlans(
  config: Config,
  workflow: Workflow,
  judge: ApprovalJudge,
  plans: readonly TaskPlan[],
  writes: ReturnType<typeof botWrites>,
  isProject: (path: string) => boolean,
  findings: Findings,
): boolean {
  const reachesProject = plans.some((plan) => plan.scopes.includes("project"));
  let projectAllowed = false;
  const adoptions: AdoptionWait[] = [];
  for (const plan of plans) {
    const subject: ApprovalSubject = {
      task: plan.id,
      touches: (path) => path.startsWith(`${plan.dir}/`) || (reachesProject && isProject(path)),
      recordFiles: new Set([`${plan.dir}/${STATE_FILE}`, `${plan.dir}/${APPROVALS_FILE}`]),
      explains: (from, to) => recordsExplained(workflow, plan.id, writes.get(plan.id), from, to),
      used: new Set(plan.after.approvals.map((line) => reviewKey(line.login, line.at))),
    };
    const before = findings.violations.length;
    judgeTask({ config, workflow, judge, plan, subject, writes: writes.get(plan.id), findings, adoptions });
    const legal = !findings.violations.slice(before).some((item) => MOVE_CODES.has(item.code));
    const earned = legal ? plan.scopes : plan.before.state ? workflow.editScope(plan.before.state) : [];
    if (earned.includes("project")) projectAllowed = true;
  }
  adoptionOutcome(config, adoptions, findings);
  return projectAllowed;
}

/** Project files changed while no task of the pull request is in a phase that edits them. */
function projectOutOfScope(workflow: Workflow, project: readonly string[]): Violation[] {
  return project.map((path) =>
    violation("out-of-scope", {
      path,
      message: `${path} is a project file, but no task in this pull request is in a phase that edits project files`,
      hint: `Project files are edited in ${projectStates(workflow).join(", ")}; revert ${path} or move the task there first.`,
    }),
  );
}

function planTask(
  workflow: Workflow,
  id: string,
  baseFiles: ReadonlyMap<string, FileEntry> | undefined,
  headFiles: ReadonlyMap<string, FileEntry> | undefined,
  adoptionPr: boolean,
): TaskPlan {
  const before = readTask(workflow, id, baseFiles);
  const after = readTask(workflow, id, headFiles);
  // An adopted task edits only its folder in the pull request that adopts it: no project files.
  if (isAdopted(workflow, before, after, adoptionPr)) {
    return { id, dir: after.dir, before, after, scopes: ["task"], adopted: true };
  }
  const states = new Set<string>();
  if (before.state) states.add(before.state);
  if (after.state) states.add(after.state);
  const from = before.state ?? (before.hasStateFile ? undefined : workflow.def.initial);
  if (from && after.state) {
    for (const edge of workflow.findPath(from, after.state, () => 0) ?? []) states.add(edge.to);
  }
  const scopes = new Set<EditScope>();
  for (const state of states) for (const scope of workflow.editScope(state)) scopes.add(scope);
  return { id, dir: after.dir, before, after, scopes: [...scopes], adopted: false };
}

/** The task exists, has a readable state, and had one on the base branch (or is new). */
function checkPresence(ctx: TaskContext): boolean {
  const { workflow, findings } = ctx;
  const { id, dir, before, after } = ctx.plan;
  const push = (item: Violation) => findings.violations.push(item);
  if (!isValidTaskId(id)) {
    push(invalidId(dir, id));
    return false;
  }
  if (after.files.size === 0 || (!after.hasStateFile && before.hasStateFile)) {
    if (before.hasStateFile) {
      push(
        violation("task-deleted", {
          task: id,
          path: after.files.size === 0 ? dir : `${dir}/${STATE_FILE}`,
          message: after.files.size === 0 ? `task ${id} was deleted` : `${dir}/.state was deleted`,
          hint: `Restore ${dir}; tasks are never deleted (a finished task stays \`complete\`).`,
        }),
      );
      findings.transitions.push({ task: id, from: before.state ?? null, to: null });
    }
    return false;
  }
  if (!after.hasStateFile) {
    push(
      violation("task-untracked", {
        task: id,
        path: dir,
        message: `${dir} has no .state file`,
        hint: `Create the task with ${dir}/.state holding \`${workflow.def.initial}\`.`,
      }),
    );
    return false;
  }
  findings.violations.push(...after.problems);
  if (after.state === undefined) return false;
  if (before.hasStateFile && before.state === undefined) {
    push(
      violation("illegal-transition", {
        task: id,
        path: `${dir}/${STATE_FILE}`,
        message: `${id}'s state on the base branch is unreadable, so no move from it can be judged`,
        hint: "Repair the base branch's .state first (a maintainer's pull request), then move the task.",
      }),
    );
    return false;
  }
  return true;
}

function judgeTask(ctx: TaskContext): void {
  if (!checkPresence(ctx)) return;
  const { config, workflow, judge, findings } = ctx;
  const { id, dir, before, after } = ctx.plan;
  const created = !before.hasStateFile;
  const from = before.state ?? workflow.def.initial;
  const to = after.state!;

  // The approvals log is append-only; each new line must be the bot's record of an eligible review.
  checkAppendOnly(ctx);
  const lines = judgeNewLines(
    workflow,
    judge,
    ctx.subject,
    {
      id,
      dir,
      baseLines: before.approvals,
      newLines: after.approvals.filter((line) => line.line > before.approvalLines.length),
      adopted: ctx.plan.adopted,
    },
    ctx.writes,
    new Set(),
  );
  findings.violations.push(...lines.violations);
  const backedBy = (phase: string, target: string) => lines.backed.get(gateKey(phase, target))?.size ?? 0;
  // An adopted task's gates are the adoption's: recorded by it, or waiting for its one review.
  const adopted = ctx.plan.adopted;
  const gateRecorded = (edge: EdgeDef) =>
    adopted || backedBy(workflow.gatePhase(edge), edge.to) >= gatePolicy(config, workflow.gatePhase(edge)).count;

  const path = from === to ? [] : workflow.findPath(from, to, (edge) => (edge.gate && !gateRecorded(edge) ? 1 : 0));
  if (path === undefined) {
    findings.violations.push(noPath(ctx, from, to, created));
    return;
  }
  if (created || from !== to) findings.transitions.push({ task: id, from: created ? null : from, to });
  checkPath(ctx, path, gateRecorded, lines.claimed, created);
  if (adopted) {
    const recorded = backedBy(ADOPTED_PHASE, to) >= gatePolicy(config, ADOPTED_PHASE).count;
    // A line claiming the adoption that does not stand is already reported as such.
    if (!recorded && !lines.claimed.has(ADOPTED_PHASE)) {
      ctx.adoptions.push({
        id,
        dir,
        state: to,
        gates: gatesBefore(workflow, to),
        judgement: judge.judgeGate(ADOPTED_PHASE, ctx.subject),
      });
    }
  }
  // A task waiting at an awaiting state: the next bot gate is pending or ready to record.
  for (const edge of workflow.edgesFrom(to)) {
    if (!workflow.isBotGate(edge)) continue;
    const phase = workflow.gatePhase(edge);
    gateOutcome(judge.judgeGate(phase, ctx.subject), gateSite(id, dir, phase, edge), findings);
  }
}

/** The approvals log keeps every line it had: the first changed or removed one is reported. */
function checkAppendOnly(ctx: TaskContext): void {
  const { id, dir, before, after } = ctx.plan;
  const rewritten = firstRewrite(before.approvalLines, after.approvalLines, (a, b) => a === b);
  if (rewritten < 0) return;
  ctx.findings.violations.push(
    violation("history-rewritten", {
      task: id,
      path: `${dir}/${APPROVALS_FILE}`,
      line: rewritten + 1,
      message: `line ${rewritten + 1} of ${dir}/${APPROVALS_FILE} was changed or removed`,
      hint: `Restore the line "${before.approvalLines[rewritten]}"; the approvals log is append-only.`,
    }),
  );
}

/** No path of the graph leads from `from` to `to`. */
function noPath(ctx: TaskContext, from: string, to: string, created: boolean): Violation {
  const { workflow } = ctx;
  const { id, dir } = ctx.plan;
  const next = workflow.edgesFrom(from).map((edge) => edge.to);
  return violation("illegal-transition", {
    task: id,
    path: `${dir}/${STATE_FILE}`,
    line: 1,
    message: `${id} cannot move from ${from} to ${to}${created ? ` (a new task starts at ${workflow.def.initial})` : ""}`,
    hint: next.length > 0 ? `From ${from} the task may move to: ${next.join(", ")}.` : `${from} is a final state.`,
  });
}

/** The edges of a move: verdicts, gates crossed, and the artifacts of every phase left. */
function checkPath(
  ctx: TaskContext,
  path: readonly EdgeDef[],
  gateRecorded: (edge: EdgeDef) => boolean,
  claimed: ReadonlySet<string>,
  created: boolean,
): void {
  const { workflow, findings } = ctx;
  const { after } = ctx.plan;
  let looped = hasLooped(workflow, after);
  const left = new Set<string>();
  path.forEach((edge, index) => {
    left.add(edge.from);
    if (workflow.isBackEdge(edge)) looped = true;
    if (edge.verdict) checkVerdict(ctx, edge);
    if (!edge.gate || gateRecorded(edge)) return;
    checkGateCrossed(ctx, edge, index < path.length - 1, claimed, created);
  });
  const alsoRequired: string[] = [];
  for (const state of left) {
    const phase = workflow.state(state)?.phase;
    const file = phase ? workflow.def.phases[phase] : null;
    if (file) alsoRequired.push(file);
  }
  findings.violations.push(...checkArtifacts(workflow, after, { state: after.state!, alsoRequired, looped }));
}

/** An edge that needs a verdict: the verdict file says the word the edge asks for. */
function checkVerdict(ctx: TaskContext, edge: EdgeDef): void {
  const { workflow } = ctx;
  const { id, dir, after } = ctx.plan;
  const verdict = readVerdict(workflow, after);
  const wantPass = edge.verdict === "pass";
  if (verdict.word && verdict.pass === wantPass) return;
  ctx.findings.violations.push(
    violation(wantPass ? "verdict-not-pass" : "illegal-transition", {
      task: id,
      path: `${dir}/${workflow.def.verdict.file}`,
      message: `${id} moved ${edge.from} → ${edge.to}, but ${verdict.word ? `${workflow.def.verdict.file} says ${verdict.word}` : verdict.problem}`,
      hint: wantPass
        ? `Only a PASS verdict completes a task; FAIL or NEEDS_REVIEW goes to ${otherVerdictTarget(workflow, edge)}.`
        : `A PASS verdict completes the task: move it to ${otherVerdictTarget(workflow, edge)}.`,
    }),
  );
}

/**
 * A gate on the path whose approval is not recorded: a bot gate cannot be crossed at all; another
 * gate only as the last step, where the reviews decide it. `beyond`: the path goes on after it.
 */
function checkGateCrossed(
  ctx: TaskContext,
  edge: EdgeDef,
  beyond: boolean,
  claimed: ReadonlySet<string>,
  created: boolean,
): void {
  const { workflow, judge, findings } = ctx;
  const { id, dir, after } = ctx.plan;
  const phase = workflow.gatePhase(edge);
  if (workflow.isBotGate(edge)) {
    // An approval line for this gate that does not stand is already reported as such.
    if (claimed.has(phase)) return;
    findings.violations.push(
      violation("illegal-transition", {
        task: id,
        path: `${dir}/${STATE_FILE}`,
        line: 1,
        message: `${id} moved past the ${phase} gate (${edge.from} → ${edge.to}) without an approval recorded by taskgate${created ? ` (a new task starts at ${workflow.def.initial})` : ""}`,
        hint:
          `Stop at ${edge.from} and request a review; taskgate writes ${edge.to} when an eligible reviewer approves.` +
          (created
            ? " Work already in flight is adopted instead: `taskgate upgrade` places the task where its artifacts show, in a pull request that touches only new tasks."
            : ""),
      }),
    );
    return;
  }
  if (beyond) {
    findings.violations.push(
      violation("illegal-transition", {
        task: id,
        path: `${dir}/${STATE_FILE}`,
        line: 1,
        message: `${id} went through the ${phase} gate (${edge.from} → ${edge.to}) and on to ${after.state!} before the gate was approved`,
        hint: `Stop at ${edge.to} until the approval is recorded, then move on in a later change.`,
      }),
    );
    return;
  }
  if (claimed.has(phase)) return;
  gateOutcome(judge.judgeGate(phase, ctx.subject), gateSite(id, dir, phase, edge), findings);
}

/** How many adopted tasks of one state a pending item names before it says how many more there are. */
const NAMED_ADOPTIONS = 10;

/**
 * The adoption of a pull request: each adopted task whose reviews meet the adoption's rule becomes
 * an `adopt` record; the others wait together, in one pending item, for one approving review of the
 * pull request (`approvals.gates.adopted` overrides the rule).
 */
function adoptionOutcome(config: Config, adoptions: readonly AdoptionWait[], findings: Findings): void {
  const waiting: AdoptionWait[] = [];
  for (const adoption of adoptions) {
    const { judgement } = adoption;
    if (!judgement.met) {
      waiting.push(adoption);
      continue;
    }
    findings.records.push(
      recordOf(judgement, { task: adoption.id, from: adoption.state, to: adoption.state, kind: "adopt" }),
    );
  }
  if (waiting.length === 0) return;
  const policy = gatePolicy(config, ADOPTED_PHASE);
  const approvers = describeApprovers(policy);
  const counted = Math.min(...waiting.map((adoption) => adoption.judgement.approvals.length));
  const groups = new Map<string, string[]>();
  for (const adoption of waiting) {
    const where = `at ${adoption.state}, past ${adoption.gates.join(" and ")}`;
    groups.set(where, [...(groups.get(where) ?? []), adoption.id]);
  }
  const named = [...groups].map(([where, ids]) => {
    const more = ids.length - NAMED_ADOPTIONS;
    return `${where}: ${ids.slice(0, NAMED_ADOPTIONS).join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
  });
  const notes = [
    ...new Set(waiting.flatMap((adoption) => adoption.judgement.ignored.map((verdict) => verdict.detail ?? ""))),
  ].filter(Boolean);
  const one = waiting.length === 1 ? waiting[0]! : undefined;
  findings.pending.push({
    ...violation("approval-required", {
      ...(one && { task: one.id, path: `${one.dir}/${STATE_FILE}` }),
      message:
        `adoption of ${waiting.length} task(s) already past a gate waits for ${policy.count} approving review(s) of the pull request, ${counted} so far (${named.join("; ")})` +
        (notes.length > 0 ? `; not counted: ${notes.join("; ")}` : ""),
      hint: `Ask ${approvers.join(" or ")} to approve the pull request: one review adopts every task listed, and taskgate records ${ADOPTED_PHASE}:approved in each task's ${APPROVALS_FILE}.`,
    }),
    approvers,
  });
}

function gateSite(id: string, dir: string, phase: string, edge: EdgeDef): GateSite {
  return {
    task: id,
    from: edge.from,
    to: edge.to,
    path: `${dir}/${STATE_FILE}`,
    waiting: `${id} waits for approval of ${phase}`,
  };
}

function otherVerdictTarget(workflow: Workflow, edge: EdgeDef): string {
  return (
    workflow
      .edgesFrom(edge.from)
      .filter((other) => other.verdict && other.verdict !== edge.verdict)
      .map((other) => other.to)
      .join(" or ") || "another state"
  );
}

function projectStates(workflow: Workflow): string[] {
  return workflow.stateNames.filter((state) => workflow.editScope(state).includes("project"));
}
