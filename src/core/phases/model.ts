/**
 * The `phases` model: judges pull requests and revisions of a repository that keeps one folder per
 * task under the tasks dir (seed workflow: research → … → referee → complete).
 */
import {
  ApprovalJudge,
  describeApprovers,
  gatePolicy,
  lower,
  principalMatcher,
  unbackedCode,
  type ApprovalSubject,
  gateOutcome,
  type GateSite,
} from "../approval.js";
import { CONFIG_PATH, type Config } from "../config.js";
import { emptyFindings, type Explanation, type Findings, type NextStep, type WorkflowModel } from "../model.js";
import { frameworkMatcher, renderRootOf } from "../paths.js";
import { phasesRenderPlan, renderPhases } from "../render/phases.js";
import { staleViolations } from "../render/stale.js";
import type { EdgeDef, EditScope } from "../presets/phases.js";
import type { SnapshotScope } from "../port.js";
import type { ChangedFile, FileEntry, PrContext, Snapshot, Violation } from "../types.js";
import { violation } from "../violations.js";
import type { Workflow } from "../workflow.js";
import { checkArtifacts, checkTaskAtRest, hasLooped, readVerdict } from "./rules.js";
import {
  APPROVALS_FILE,
  STATE_FILE,
  indexTasks,
  isValidTaskId,
  readTask,
  taskIdOf,
  truncate,
  type PhasesTask,
} from "./tasks.js";

export function createPhasesModel(config: Config, workflow: Workflow): WorkflowModel {
  const tasksDir = workflow.def.tasksDir;
  const isFramework = frameworkMatcher(config);
  const renderRoot = renderRootOf(config);

  function touchedTasks(files: readonly ChangedFile[]): Set<string> {
    const ids = new Set<string>();
    for (const file of files) {
      for (const path of [file.path, file.previousPath]) {
        const id = path === undefined ? undefined : taskIdOf(path, tasksDir);
        if (id !== undefined) ids.add(id);
      }
    }
    return ids;
  }

  return {
    name: "phases",

    prScope(files): SnapshotScope {
      const prefixes = [...touchedTasks(files)].map((id) => `${tasksDir}/${id}/`);
      return { paths: [CONFIG_PATH], prefixes };
    },

    auditScope(): SnapshotScope {
      return { paths: [CONFIG_PATH], prefixes: [`${tasksDir}/`, `${renderRoot}/`] };
    },

    render(snapshot) {
      return renderPhases(workflow, snapshot, renderRoot);
    },

    evaluate(base, head, pr) {
      return evaluatePhases(config, workflow, isFramework, touchedTasks(pr.files), base, head, pr);
    },

    audit(snapshot) {
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
    },

    explain(snapshot, id) {
      const files = indexTasks(snapshot, tasksDir).tasks.get(id);
      if (!files) return undefined;
      return explainTask(config, workflow, readTask(workflow, id, files), auditTask(workflow, id, files));
    },

    taskIds(snapshot) {
      return [...indexTasks(snapshot, tasksDir).tasks.keys()].sort();
    },
  };
}

function auditTask(workflow: Workflow, id: string, files: ReadonlyMap<string, FileEntry> | undefined): Violation[] {
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

function invalidId(dir: string, id: string): Violation {
  return violation("task-invalid-id", {
    path: dir,
    message: `"${truncate(id)}" is not a valid task id`,
  });
}

function evaluatePhases(
  config: Config,
  workflow: Workflow,
  isFramework: (path: string) => boolean,
  touched: Set<string>,
  base: Snapshot,
  head: Snapshot,
  pr: PrContext,
): Findings {
  const findings = emptyFindings();
  const tasksDir = workflow.def.tasksDir;
  const baseIndex = indexTasks(base, tasksDir);
  const headIndex = indexTasks(head, tasksDir);
  const judge = new ApprovalJudge(config, pr);

  const framework: string[] = [];
  const project: string[] = [];
  for (const file of pr.files) {
    for (const path of new Set([file.path, file.previousPath])) {
      if (path === undefined || taskIdOf(path, tasksDir) !== undefined) continue;
      if (isFramework(path) || path.startsWith(`${tasksDir}/`)) framework.push(path);
      else project.push(path);
    }
  }

  // Project files count against a task's scope; they also make its approvals stale when pushed later.
  const tasks = [...touched].sort();
  const plans = tasks.map((id) => planTask(workflow, id, baseIndex.tasks.get(id), headIndex.tasks.get(id)));
  const reachesProject = plans.some((plan) => plan.scopes.includes("project"));
  // The edit scope a PR earns comes from legal moves only: an illegal jump to `implement` does not
  // open project files.
  let projectAllowed = false;
  for (const plan of plans) {
    const before = findings.violations.length;
    judgeTask(
      config,
      workflow,
      judge,
      plan,
      findings,
      (path) => path.startsWith(`${plan.dir}/`) || (reachesProject && project.includes(path)),
    );
    const legal = !findings.violations.slice(before).some((item) => MOVE_CODES.has(item.code));
    const earned = legal ? plan.scopes : plan.before.state ? workflow.editScope(plan.before.state) : [];
    if (earned.includes("project")) projectAllowed = true;
  }

  if (tasks.length > 0) {
    for (const path of framework) {
      findings.violations.push(
        violation("out-of-scope", {
          path,
          message: `${path} is a framework file; a task's pull request may not change it`,
          hint: "Revert it here; maintainers change framework files in a pull request that touches no task.",
        }),
      );
    }
    if (!projectAllowed) {
      for (const path of project) {
        findings.violations.push(
          violation("out-of-scope", {
            path,
            message: `${path} is a project file, but no task in this pull request is in a phase that edits project files`,
            hint: `Project files are edited in ${projectStates(workflow).join(", ")}; revert ${path} or move the task there first.`,
          }),
        );
      }
    }
  } else if (pr.files.length > 0) {
    const maintainer = principalMatcher(config.maintainers, config, pr)(pr.author);
    const onlyFramework = project.length === 0;
    if (!(maintainer && onlyFramework)) {
      if (config.require_task || (!maintainer && framework.length > 0)) {
        const sample = [...project, ...framework].slice(0, 3).join(", ");
        findings.violations.push(
          violation("task-missing", {
            message: `this pull request changes ${pr.files.length} file(s) (${sample}${pr.files.length > 3 ? ", …" : ""}) but touches no task`,
            hint: maintainer
              ? "Maintainers may change framework files without a task; project files need a task in an editing phase."
              : `Move a task under ${tasksDir}/ forward in this pull request, or ask a maintainer to make framework changes.`,
          }),
        );
      }
    }
  }

  return findings;
}

/** Findings that make a task's move illegal as a whole. */
const MOVE_CODES = new Set<string>([
  "illegal-transition",
  "approval-forged",
  "approval-self",
  "approval-stale",
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
  /** Edit scopes of the states the task passes through in this PR. */
  readonly scopes: readonly EditScope[];
}

function planTask(
  workflow: Workflow,
  id: string,
  baseFiles: ReadonlyMap<string, FileEntry> | undefined,
  headFiles: ReadonlyMap<string, FileEntry> | undefined,
): TaskPlan {
  const before = readTask(workflow, id, baseFiles);
  const after = readTask(workflow, id, headFiles);
  const states = new Set<string>();
  if (before.state) states.add(before.state);
  if (after.state) states.add(after.state);
  const from = before.state ?? (before.hasStateFile ? undefined : workflow.def.initial);
  if (from && after.state) {
    for (const edge of workflow.findPath(from, after.state, () => 0) ?? []) states.add(edge.to);
  }
  const scopes = new Set<EditScope>();
  for (const state of states) for (const scope of workflow.editScope(state)) scopes.add(scope);
  return { id, dir: after.dir, before, after, scopes: [...scopes] };
}

function judgeTask(
  config: Config,
  workflow: Workflow,
  judge: ApprovalJudge,
  plan: TaskPlan,
  findings: Findings,
  touches: (path: string) => boolean,
): void {
  const { id, dir, before, after } = plan;
  const push = (item: Violation) => findings.violations.push(item);
  if (!isValidTaskId(id)) {
    push(invalidId(dir, id));
    return;
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
    return;
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
    return;
  }
  findings.violations.push(...after.problems);
  if (after.state === undefined) return;
  if (before.hasStateFile && before.state === undefined) {
    push(
      violation("illegal-transition", {
        task: id,
        path: `${dir}/${STATE_FILE}`,
        message: `${id}'s state on the base branch is unreadable, so no move from it can be judged`,
        hint: "Repair the base branch's .state first (a maintainer's pull request), then move the task.",
      }),
    );
    return;
  }
  const created = !before.hasStateFile;
  const from = before.state ?? workflow.def.initial;
  const subject: ApprovalSubject = { task: id, touches };

  // The approvals log is append-only; new lines must each be backed by an eligible review.
  const baseLines = before.approvalLines;
  const rewritten = baseLines.findIndex((line, index) => after.approvalLines[index] !== line);
  if (rewritten >= 0) {
    push(
      violation("history-rewritten", {
        task: id,
        path: `${dir}/${APPROVALS_FILE}`,
        line: rewritten + 1,
        message: `line ${rewritten + 1} of ${dir}/${APPROVALS_FILE} was changed or removed`,
        hint: `Restore the line "${baseLines[rewritten]}"; the approvals log is append-only.`,
      }),
    );
  }
  const backed = new Map<string, Set<string>>();
  const claimed = new Set<string>();
  for (const line of after.approvals.filter((entry) => entry.line > baseLines.length)) {
    const verdict = judge.backing(line.phase, line.login, subject);
    const path = `${dir}/${APPROVALS_FILE}`;
    if (verdict?.ok) {
      const logins = backed.get(line.phase) ?? new Set<string>();
      logins.add(lower(line.login));
      backed.set(line.phase, logins);
      continue;
    }
    claimed.add(line.phase);
    push(
      violation(unbackedCode(verdict), {
        task: id,
        path,
        line: line.line,
        message: verdict?.detail
          ? `${line.phase}:approved by ${line.login} does not count: ${verdict.detail}`
          : `${line.phase}:approved names ${line.login}, but ${line.login} did not approve this pull request`,
      }),
    );
  }
  const gateRecorded = (edge: EdgeDef) =>
    (backed.get(workflow.gatePhase(edge))?.size ?? 0) >= gatePolicy(config, workflow.gatePhase(edge)).count;

  const to = after.state;
  const path = from === to ? [] : workflow.findPath(from, to, (edge) => (edge.gate && !gateRecorded(edge) ? 1 : 0));
  if (path === undefined) {
    const next = workflow.edgesFrom(from).map((edge) => edge.to);
    push(
      violation("illegal-transition", {
        task: id,
        path: `${dir}/${STATE_FILE}`,
        line: 1,
        message: `${id} cannot move from ${from} to ${to}${created ? ` (a new task starts at ${workflow.def.initial})` : ""}`,
        hint: next.length > 0 ? `From ${from} the task may move to: ${next.join(", ")}.` : `${from} is a final state.`,
      }),
    );
    return;
  }
  if (created || from !== to) findings.transitions.push({ task: id, from: created ? null : from, to });

  let looped = hasLooped(workflow, after);
  const left = new Set<string>();
  path.forEach((edge, index) => {
    left.add(edge.from);
    if (workflow.isBackEdge(edge)) looped = true;
    if (edge.verdict) {
      const verdict = readVerdict(workflow, after);
      const wantPass = edge.verdict === "pass";
      if (!verdict.word || verdict.pass !== wantPass) {
        push(
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
    }
    if (!edge.gate || gateRecorded(edge)) return;
    const phase = workflow.gatePhase(edge);
    if (workflow.isBotGate(edge)) {
      // An unbacked approval line for this gate is already reported as such.
      if (claimed.has(phase)) return;
      push(
        violation("illegal-transition", {
          task: id,
          path: `${dir}/${STATE_FILE}`,
          line: 1,
          message: `${id} moved past the ${phase} gate (${edge.from} → ${edge.to}) without a recorded approval${created ? ` (a new task starts at ${workflow.def.initial})` : ""}`,
          hint: `Stop at ${edge.from} and request a review; taskgate writes ${edge.to} when an eligible reviewer approves.`,
        }),
      );
      return;
    }
    if (index < path.length - 1) {
      push(
        violation("illegal-transition", {
          task: id,
          path: `${dir}/${STATE_FILE}`,
          line: 1,
          message: `${id} went through the ${phase} gate (${edge.from} → ${edge.to}) and on to ${to} before the gate was approved`,
          hint: `Stop at ${edge.to} until the approval is recorded, then move on in a later change.`,
        }),
      );
      return;
    }
    gateOutcome(judge.judgeGate(phase, subject), gateSite(id, dir, phase, edge), findings);
  });
  // A task waiting at an awaiting state: the next bot gate is pending or ready to record.
  for (const edge of workflow.edgesFrom(to)) {
    if (!workflow.isBotGate(edge)) continue;
    const phase = workflow.gatePhase(edge);
    gateOutcome(judge.judgeGate(phase, subject), gateSite(id, dir, phase, edge), findings);
  }

  const alsoRequired: string[] = [];
  for (const state of left) {
    const phase = workflow.state(state)?.phase;
    const file = phase ? workflow.def.phases[phase] : null;
    if (file) alsoRequired.push(file);
  }
  findings.violations.push(...checkArtifacts(workflow, after, { state: to, alsoRequired, looped }));
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

function explainTask(config: Config, workflow: Workflow, task: PhasesTask, problems: Violation[]): Explanation {
  const state = task.state;
  const facts: [string, string][] = [];
  const phase = state ? workflow.state(state)?.phase : undefined;
  facts.push(["state", state ?? "(unreadable)"]);
  if (phase) facts.push(["phase", phase]);
  const artifacts = [...task.files.keys()].filter((name) => workflow.artifacts.has(name)).sort();
  facts.push(["artifacts", artifacts.length > 0 ? artifacts.join(", ") : "(none)"]);
  if (task.approvals.length > 0) {
    facts.push(["approvals", task.approvals.map((line) => `${line.phase} by ${line.login} at ${line.at}`).join("; ")]);
  }
  const next: NextStep[] = [];
  const approvers = new Set<string>();
  for (const edge of state ? workflow.edgesFrom(state) : []) {
    const needs: string[] = [];
    if (phase && !workflow.state(edge.to)?.awaiting && workflow.state(edge.to)?.phase !== phase) {
      const file = workflow.def.phases[phase];
      if (file && !task.files.has(file)) needs.push(`${file}`);
    }
    const leaving = phase ? workflow.def.phases[phase] : null;
    if (leaving && workflow.state(edge.to)?.awaiting && !task.files.has(leaving)) needs.push(leaving);
    if (edge.verdict)
      needs.push(
        edge.verdict === "pass"
          ? `${workflow.def.verdict.file} saying PASS`
          : `${workflow.def.verdict.file} saying FAIL or NEEDS_REVIEW`,
      );
    if (edge.gate) {
      const policy = gatePolicy(config, workflow.gatePhase(edge));
      const who = describeApprovers(policy);
      who.forEach((entry) => approvers.add(entry));
      needs.push(
        workflow.isBotGate(edge)
          ? `${policy.count} approving review(s) from ${who.join(" or ")} (taskgate writes this state)`
          : `${policy.count} approving review(s) from ${who.join(" or ")}`,
      );
    }
    next.push({ to: edge.to, needs: [...new Set(needs)] });
  }
  return { task: task.id, state, facts, next, approvers: [...approvers], problems };
}
