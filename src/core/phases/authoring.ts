/**
 * Authoring a `phases` repository: create a task, move it, bootstrap `.state` for folders that lack
 * one, and say what a task may edit. Every change is judged by the pull-request rules before it is
 * written (see kernel/change.ts); the scope answers come from the same path classifier as those rules.
 */
import type { Config } from "../kernel/config.js";
import { isSuspiciousPath, renderRootOf } from "../kernel/paths.js";
import { gatesBefore, placeByArtifacts } from "./adoption.js";
import { phasesPaths, type PathKind } from "./scope.js";
import { APPROVALS_FILE, STATE_FILE, indexTasks, invalidId, isValidTaskId, readTask } from "./reader.js";
import { closest } from "../kernel/text.js";
import type { Snapshot, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import type { Workflow } from "./workflow.js";
import { AuthoringRefusal, judgeChange, type Authored, type FileChange } from "../kernel/change.js";
import { createPhasesModel } from "./model.js";
import { workflowOf } from "./preset.js";

export interface PhasesContext {
  readonly config: Config;
  /** The work tree as it is (the config and the tasks folder). */
  readonly snapshot: Snapshot;
  /** Who acts: the pull request's author for the judgement. */
  readonly actor: string;
}

function workflowFor(config: Config): Workflow {
  const built = workflowOf(config);
  if (!built.ok) throw new Error(built.issues.map((issue) => issue.message).join("; "));
  return built.workflow;
}

function taskFiles(workflow: Workflow, snapshot: Snapshot, id: string) {
  return indexTasks(snapshot, workflow.def.tasksDir).tasks.get(id);
}

function refuse(item: Violation): never {
  throw new AuthoringRefusal([item]);
}

/** A task that exists and has a readable state, or a refusal saying what is wrong. */
function existingTask(workflow: Workflow, snapshot: Snapshot, id: string) {
  const dir = `${workflow.def.tasksDir}/${id}`;
  const files = taskFiles(workflow, snapshot, id);
  if (!isValidTaskId(id)) refuse(invalidId(dir, id));
  if (!files) {
    const known = [...indexTasks(snapshot, workflow.def.tasksDir).tasks.keys()];
    const near = closest(id, known);
    refuse(
      violation("task-missing", {
        task: id,
        path: dir,
        message: `there is no task ${id} under ${workflow.def.tasksDir}/`,
        hint: near ? `Did you mean ${near}?` : `Create it with \`taskgate new ${id}\`.`,
      }),
    );
  }
  const task = readTask(workflow, id, files);
  if (!task.hasStateFile) {
    refuse(
      violation("task-untracked", {
        task: id,
        path: dir,
        message: `${dir} has no .state file`,
        hint: `Run \`taskgate upgrade ${id}\` to give it one from its artifacts.`,
      }),
    );
  }
  if (task.state === undefined) throw new AuthoringRefusal(task.problems);
  return task as typeof task & { state: string };
}

/** `taskgate new <id>`: the folder with `.state` = the initial state and an empty approvals log. */
export function newTask(ctx: PhasesContext, id: string): Authored {
  const workflow = workflowFor(ctx.config);
  const dir = `${workflow.def.tasksDir}/${id}`;
  if (!isValidTaskId(id)) refuse(invalidId(dir, id));
  const existing = taskFiles(workflow, ctx.snapshot, id);
  if (existing) {
    const task = readTask(workflow, id, existing);
    refuse(
      violation("id-reused", {
        task: id,
        path: dir,
        message: task.hasStateFile
          ? `task ${id} already exists${task.state ? ` (at ${task.state})` : ""}`
          : `${dir} already exists without a .state file`,
        hint: task.hasStateFile
          ? "Give the new task a fresh id; ids are never reused."
          : `Run \`taskgate upgrade ${id}\` to track the existing folder.`,
      }),
    );
  }
  const changes: FileChange[] = [
    { path: `${dir}/${STATE_FILE}`, content: `${workflow.def.initial}\n` },
    { path: `${dir}/${APPROVALS_FILE}`, content: "" },
  ];
  return {
    changes,
    report: judgeChange(createPhasesModel(ctx.config, workflow), ctx.config, ctx.snapshot, changes, ctx.actor),
    facts: { task: id, state: workflow.def.initial, folder: dir },
  };
}

/** `taskgate move <id> <state>`: writes the new state when the rules allow the move. */
export function moveTask(ctx: PhasesContext, id: string, state: string): Authored {
  const workflow = workflowFor(ctx.config);
  const task = existingTask(workflow, ctx.snapshot, id);
  const path = `${task.dir}/${STATE_FILE}`;
  if (!workflow.has(state)) {
    const near = closest(state, workflow.stateNames);
    refuse(
      violation("state-invalid", {
        task: id,
        path,
        message: `"${state}" is not a state of this workflow`,
        hint: near ? `Did you mean ${near}?` : `States: ${workflow.stateNames.join(", ")}.`,
      }),
    );
  }
  if (state === task.state) {
    refuse(
      violation("illegal-transition", {
        task: id,
        path,
        message: `${id} is already at ${state}`,
        hint: `From ${state} the task may move to: ${nextStates(workflow, state)}.`,
      }),
    );
  }
  const changes: FileChange[] = [{ path, content: `${state}\n` }];
  const report = judgeChange(createPhasesModel(ctx.config, workflow), ctx.config, ctx.snapshot, changes, ctx.actor);
  const gate = crossesBotGate(workflow, task.state, state);
  return {
    changes,
    report: gate
      ? {
          ...report,
          // The rules refuse writing an approved state; say plainly where approvals come from.
          violations: report.violations.map((item) =>
            item.task === id && item.path === path
              ? {
                  ...item,
                  hint: `Approval comes from a PR review: move ${id} to ${gate.from} and open a pull request; an eligible reviewer approves it and taskgate records ${gate.to}.`,
                }
              : item,
          ),
        }
      : report,
    facts: { task: id, from: task.state, to: state },
  };
}

function nextStates(workflow: Workflow, state: string): string {
  const next = workflow.edgesFrom(state).map((edge) => edge.to);
  return next.length > 0 ? next.join(", ") : "nothing (a final state)";
}

/** The first bot gate (awaiting → approved) every path from `from` to `to` must cross, if any. */
function crossesBotGate(workflow: Workflow, from: string, to: string) {
  const path = workflow.findPath(from, to, (edge) => (edge.gate && workflow.isBotGate(edge) ? 1 : 0));
  return path?.find((edge) => edge.gate && workflow.isBotGate(edge));
}

/**
 * `taskgate upgrade [<id>...]`: `.state` for task folders that lack one, placed at the state their
 * artifacts show (`placeByArtifacts`: the latest phase whose artifact they hold; `new` without any).
 * Every folder is judged as a new task. A folder placed past a gate is adopted: the pull request that
 * brings it in waits for one approving review (pending, not refused), and taskgate then records the
 * adoption. When any folder is refused (an invalid id, artifacts that fit no state), nothing is
 * written.
 */
export function upgradeTasks(ctx: PhasesContext, ids: readonly string[] = []): Authored {
  const workflow = workflowFor(ctx.config);
  const index = indexTasks(ctx.snapshot, workflow.def.tasksDir).tasks;
  const untracked = [...index.keys()].filter((id) => !index.get(id)!.has(STATE_FILE)).sort();
  const wanted = ids.length > 0 ? [...ids] : untracked;
  const problems: Violation[] = [];
  const changes: FileChange[] = [];
  const placed: { task: string; state: string; from: string; adopted: boolean; gates: string[] }[] = [];
  for (const id of wanted) {
    const dir = `${workflow.def.tasksDir}/${id}`;
    const files = index.get(id);
    if (!files || !isValidTaskId(id) || files.has(STATE_FILE)) {
      problems.push(
        violation(files?.has(STATE_FILE) ? "id-reused" : files ? "task-invalid-id" : "task-missing", {
          task: id,
          path: dir,
          message: !files
            ? `there is no folder ${dir}`
            : files.has(STATE_FILE)
              ? `${id} already has a .state file`
              : `"${id}" is not a valid task id`,
          hint: files?.has(STATE_FILE)
            ? "`upgrade` only tracks folders without a .state file; use `taskgate move` for tracked tasks."
            : "Rename the folder to a valid id (letters, digits, `.`, `_`, `-`).",
        }),
      );
      continue;
    }
    const placement = placeByArtifacts(workflow, files);
    const gates = gatesBefore(workflow, placement.state);
    changes.push({ path: `${dir}/${STATE_FILE}`, content: `${placement.state}\n` });
    placed.push({ task: id, state: placement.state, from: placement.from, adopted: gates.length > 0, gates });
  }
  if (problems.length > 0) throw new AuthoringRefusal(problems);
  return {
    changes,
    report: judgeChange(createPhasesModel(ctx.config, workflow), ctx.config, ctx.snapshot, changes, ctx.actor),
    facts: { tasks: placed },
  };
}

export interface ScopeAnswer {
  readonly path: string;
  readonly task: string | null;
  readonly allowed: boolean;
  readonly kind: PathKind["kind"] | "invalid";
  readonly code?: Violation["code"];
  readonly reason: string;
  readonly hint?: string;
}

/**
 * `taskgate can-edit <path> [--task <id>]`: may a pull request working on the task (or, without a
 * task, on any task as the work tree has them) change this file?
 */
export function canEdit(ctx: Omit<PhasesContext, "actor">, path: string, id?: string): ScopeAnswer {
  const workflow = workflowFor(ctx.config);
  const task = id === undefined ? undefined : existingTask(workflow, ctx.snapshot, id);
  const answer = (allowed: boolean, kind: ScopeAnswer["kind"], reason: string, extra: Partial<ScopeAnswer> = {}) => ({
    path,
    task: id ?? null,
    allowed,
    kind,
    reason,
    ...extra,
  });
  if (isSuspiciousPath(path) || path.includes("\0")) {
    return answer(false, "invalid", `${path} is not a plain repository path`, {
      code: "path-escape",
      hint: "Use a path relative to the repository root, without `.`, `..` or empty segments.",
    });
  }
  const where = phasesPaths(ctx.config, workflow)(path);
  switch (where.kind) {
    case "framework":
      return answer(
        false,
        "framework",
        where.loose
          ? `${path} lies directly in ${workflow.def.tasksDir}/, outside every task folder`
          : `${path} is a framework file`,
        {
          code: "out-of-scope",
          hint: "Maintainers change framework files in a pull request that touches no task.",
        },
      );
    case "rendered":
      return answer(true, "rendered", `${path} is a rendered status file: derived, within every scope`, {
        hint: "`taskgate render` writes it; hand edits are caught as matrix-stale.",
      });
    case "task": {
      if (task && where.task !== task.id) {
        return answer(false, "task", `${path} belongs to task ${where.task}, not ${task.id}`, {
          code: "out-of-scope",
          hint: `Changing it makes the pull request work on ${where.task} too, and judges that task's move.`,
        });
      }
      if (path === `${workflow.def.tasksDir}/${where.task}/${APPROVALS_FILE}`) {
        return answer(false, "task", `${path} is the approvals log: only taskgate appends to it`, {
          code: "approval-forged",
          hint: "Approvals come from pull request reviews; taskgate records them.",
        });
      }
      if (path === `${workflow.def.tasksDir}/${where.task}/${STATE_FILE}`) {
        return answer(true, "task", `${path} is ${where.task}'s state`, {
          hint: `Change it with \`taskgate move ${where.task} <state>\`, which checks the move first.`,
        });
      }
      return answer(true, "task", `${path} is in ${where.task}'s folder`);
    }
    case "project": {
      if (task) {
        const editing = workflow.editScope(task.state).includes("project");
        return editing
          ? answer(true, "project", `${task.id} is at ${task.state}, which edits project files`)
          : answer(false, "project", `${task.id} is at ${task.state}, which does not edit project files`, {
              code: "out-of-scope",
              hint: `Project files are edited in ${projectStates(workflow).join(", ")}.`,
            });
      }
      const editing = tasksEditingProject(workflow, ctx.snapshot);
      return editing.length > 0
        ? answer(true, "project", `a pull request on ${editing.slice(0, 5).join(", ")} may edit project files`)
        : answer(false, "project", "no task is in a phase that edits project files", {
            code: "out-of-scope",
            hint: `Move a task to ${projectStates(workflow)[0] ?? "an editing phase"} first.`,
          });
    }
  }
}

export interface TaskScope {
  readonly task: string;
  readonly state: string;
  /** Globs of what the task may change now. */
  readonly editable: readonly string[];
  /** Globs of what it may never change. */
  readonly outOfScope: readonly string[];
  /** Rendered status files: derived, within every scope. */
  readonly rendered: string;
  readonly projectFiles: boolean;
}

/** `taskgate scope <id>`: what the task may edit now, and what it never may. */
export function taskScope(ctx: Omit<PhasesContext, "actor">, id: string): TaskScope {
  const workflow = workflowFor(ctx.config);
  const task = existingTask(workflow, ctx.snapshot, id);
  const projectFiles = workflow.editScope(task.state).includes("project");
  const tasksDir = workflow.def.tasksDir;
  return {
    task: id,
    state: task.state,
    editable: [`${task.dir}/**`, ...(projectFiles ? ["project files (everything not out of scope)"] : [])],
    outOfScope: [
      ".github/**",
      ...ctx.config.framework_paths,
      `${task.dir}/${APPROVALS_FILE} (taskgate records approvals)`,
      `${tasksDir}/<other task>/**`,
      `${tasksDir}/* (files outside task folders)`,
      ...(projectFiles ? [] : ["project files (until the task reaches " + projectStates(workflow).join(", ") + ")"]),
    ],
    rendered: `${renderRootOf(ctx.config)}/**`,
    projectFiles,
  };
}

function projectStates(workflow: Workflow): string[] {
  return workflow.stateNames.filter((state) => workflow.editScope(state).includes("project"));
}

function tasksEditingProject(workflow: Workflow, snapshot: Snapshot): string[] {
  const out: string[] = [];
  for (const [id, files] of indexTasks(snapshot, workflow.def.tasksDir).tasks) {
    const task = readTask(workflow, id, files);
    if (task.state && workflow.editScope(task.state).includes("project")) out.push(id);
  }
  return out.sort();
}
