/**
 * The `phases` model: judges pull requests and revisions of a repository that keeps one folder per
 * task under the tasks dir (seed workflow: research → … → referee → complete).
 */
import { describeApprovers, gatePolicy } from "../kernel/approval.js";
import { CONFIG_PATH, type Config } from "../kernel/config.js";
import {
  emptyFindings,
  type Explanation,
  type NextStep,
  type RecordedChange,
  type WorkflowModel,
} from "../kernel/model.js";
import { renderRootOf } from "../kernel/paths.js";
import { phasesRenderPlan, renderPhases } from "./render.js";
import { staleViolations } from "../kernel/stale.js";
import type { SnapshotScope } from "../kernel/port.js";
import type { ChangedFile, FileEntry, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import type { Workflow } from "./workflow.js";
import { evaluatePhases } from "./pull-request.js";
import { writePhasesRecords } from "./records.js";
import { checkTaskAtRest } from "./audit.js";
import {
  APPROVALS_FILE,
  STATE_FILE,
  indexTasks,
  invalidId,
  isValidTaskId,
  readTask,
  taskIdOf,
  type PhasesTask,
} from "./reader.js";

export function createPhasesModel(config: Config, workflow: Workflow): WorkflowModel {
  const tasksDir = workflow.def.tasksDir;
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
      return evaluatePhases(config, workflow, touchedTasks(pr.files), base, head, pr);
    },

    writeRecords(snapshot, records) {
      return writePhasesRecords(workflow, snapshot, records);
    },

    decisionsAdded(before, after) {
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
    },

    recordFiles(snapshot) {
      return [...snapshot.files.keys()].filter(
        (path) =>
          taskIdOf(path, tasksDir) !== undefined &&
          (path.endsWith(`/${STATE_FILE}`) || path.endsWith(`/${APPROVALS_FILE}`)),
      );
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
