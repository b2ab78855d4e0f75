/**
 * Rendered status of a `phases` repository: tasks × phase, the phase pipeline as a Mermaid state
 * diagram with counts per state, and a card per task. Pure: same tasks, same bytes.
 */
import { indexTasks, isValidTaskId, readTask, type PhasesTask } from "./reader.js";
import type { Snapshot } from "../kernel/types.js";
import type { Workflow } from "./workflow.js";
import { cell, compareIds, countBy, fingerprint, relativeLink, stamp, table } from "../kernel/markdown.js";
import type { RenderPlan } from "../kernel/stale.js";

function readTasks(workflow: Workflow, snapshot: Snapshot): PhasesTask[] {
  const index = indexTasks(snapshot, workflow.def.tasksDir);
  return [...index.tasks.keys()]
    .filter(isValidTaskId)
    .sort(compareIds)
    .map((id) => readTask(workflow, id, index.tasks.get(id)));
}

/** A fingerprint of every task's state, artifacts and approvals: what the rendered files are stamped with. */
function sourceOf(workflow: Workflow, tasks: readonly PhasesTask[]): string {
  const print = tasks
    .map(
      (task) =>
        `${task.id}\t${task.state ?? "?"}\t${[...task.files.keys()]
          .filter((name) => workflow.artifacts.has(name))
          .sort()
          .join(",")}\t${task.approvals.length}`,
    )
    .join("\n");
  return `${workflow.def.tasksDir}/ state ${fingerprint(print)}`;
}

/** What rendering would produce, without rendering: the stamp every file starts with, and the paths. */
export function phasesRenderPlan(workflow: Workflow, snapshot: Snapshot, root: string): RenderPlan {
  const tasks = readTasks(workflow, snapshot);
  return {
    stamp: stamp(sourceOf(workflow, tasks)),
    files: [`${root}/matrix.md`, `${root}/stages.md`],
    cards: new Set(tasks.map((task) => task.id)),
  };
}

export function renderPhases(workflow: Workflow, snapshot: Snapshot, root: string): Map<string, string> {
  const tasks = readTasks(workflow, snapshot);
  const source = sourceOf(workflow, tasks);
  const files = new Map<string, string>();
  files.set(`${root}/matrix.md`, renderMatrix(workflow, tasks, root, source));
  files.set(`${root}/stages.md`, renderStages(workflow, tasks, source));
  for (const task of tasks)
    files.set(`${root}/cards/${task.id}.md`, renderCard(workflow, task, `${root}/cards`, source));
  return files;
}

/** Phases in pipeline order (the order of the workflow's states). */
function phaseOrder(workflow: Workflow): string[] {
  const phases: string[] = [];
  for (const state of workflow.stateNames) {
    const phase = workflow.state(state)?.phase;
    if (phase && !phases.includes(phase)) phases.push(phase);
  }
  return phases;
}

function renderMatrix(workflow: Workflow, tasks: readonly PhasesTask[], root: string, source: string): string {
  const phases = phaseOrder(workflow);
  const out = [stamp(source), "", "# Task matrix", "", `Rendered from ${source}: ${tasks.length} task(s).`, ""];
  const counts = countBy(tasks, (task) => task.state ?? "(untracked)");
  out.push(
    `**By state:** ${[...counts.entries()].map(([state, count]) => `${state} ${count}`).join(" · ") || "no tasks"}`,
    "",
  );
  out.push("● current phase · ✓ artifact present or approved", "");
  out.push(
    table(
      ["task", "state", ...phases],
      tasks.map((task) => {
        const current = task.state ? workflow.state(task.state)?.phase : undefined;
        const approved = new Set(task.approvals.map((line) => line.phase));
        return [
          `[${task.id}](${relativeLink(root, `${root}/cards/${task.id}.md`)})`,
          cell(task.state ?? "(untracked)"),
          ...phases.map((phase) => {
            if (phase === current) return "●";
            const artifact = workflow.def.phases[phase];
            return approved.has(phase) || (artifact && task.files.has(artifact)) ? "✓" : "";
          }),
        ];
      }),
    ),
    "",
  );
  return out.join("\n");
}

function stateId(state: string): string {
  return state.replace(/[^A-Za-z0-9_]/g, "_");
}

function renderStages(workflow: Workflow, tasks: readonly PhasesTask[], source: string): string {
  const counts = countBy(tasks, (task) => task.state ?? "(untracked)");
  const out = [stamp(source), "", "# Stages", "", `Rendered from ${source}.`, ""];
  out.push(
    table(
      ["state", "tasks"],
      workflow.stateNames.map((state) => [state, counts.get(state) ?? 0]),
    ),
    "",
  );
  out.push("## Workflow", "", "```mermaid", "stateDiagram-v2", `  [*] --> ${stateId(workflow.def.initial)}`);
  for (const state of workflow.stateNames) {
    if (stateId(state) !== state) out.push(`  state "${state} (${counts.get(state) ?? 0})" as ${stateId(state)}`);
    else out.push(`  ${state}: ${state} (${counts.get(state) ?? 0})`);
  }
  for (const edge of workflow.def.transitions) {
    const notes = [edge.gate ? "approval" : "", edge.verdict ? `verdict ${edge.verdict}` : ""]
      .filter(Boolean)
      .join(", ");
    out.push(`  ${stateId(edge.from)} --> ${stateId(edge.to)}${notes ? `: ${notes}` : ""}`);
  }
  for (const state of workflow.stateNames) if (workflow.state(state)?.terminal) out.push(`  ${stateId(state)} --> [*]`);
  out.push("```", "");
  return out.join("\n");
}

function renderCard(workflow: Workflow, task: PhasesTask, dir: string, source: string): string {
  const out = [stamp(source), "", `# ${task.id}`, ""];
  const phase = task.state ? workflow.state(task.state)?.phase : undefined;
  out.push(
    table(
      ["field", "value"],
      [
        ["state", cell(task.state ?? "(untracked)")],
        ["phase", cell(phase ?? "")],
      ],
    ),
    "",
  );
  out.push("## Artifacts", "");
  const artifacts = [...task.files.keys()].filter((name) => workflow.artifacts.has(name)).sort();
  if (artifacts.length === 0) out.push("(none yet)");
  for (const name of artifacts) {
    out.push(`- [${name}](${relativeLink(dir, `${task.dir}/${name}`)}) (${workflow.artifacts.get(name)})`);
  }
  out.push("", "## Approvals", "");
  if (task.approvals.length === 0) out.push("(none)");
  for (const line of task.approvals) out.push(`- ${line.phase} approved by ${cell(line.login)} at ${cell(line.at)}`);
  out.push("");
  return out.join("\n");
}
