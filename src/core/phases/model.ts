/**
 * The `phases` model: judges pull requests and revisions of a repository that keeps one folder per
 * task under the tasks dir (seed workflow: research → … → referee → complete). Each method hands
 * over to the file of the room that holds that part: the reader, the pull-request rules, the rules
 * at rest (audit.ts), the records, the decisions, the render and the explanation.
 */
import { CONFIG_PATH, type Config } from "../kernel/config.js";
import type { WorkflowModel } from "../kernel/model.js";
import { renderRootOf } from "../kernel/paths.js";
import type { SnapshotScope } from "../kernel/port.js";
import type { ChangedFile } from "../kernel/types.js";
import { auditPhases, auditTask } from "./audit.js";
import { phasesDecisionsAdded } from "./decisions.js";
import { explainTask } from "./explain.js";
import { evaluatePhases } from "./pull-request.js";
import { indexTasks, readTask, taskIdOf } from "./reader.js";
import { phasesRecordFiles, writePhasesRecords } from "./records.js";
import { renderPhases } from "./render.js";
import type { Workflow } from "./workflow.js";

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
      return phasesDecisionsAdded(workflow, before, after);
    },

    recordFiles(snapshot) {
      return phasesRecordFiles(snapshot, tasksDir);
    },

    audit(snapshot) {
      return auditPhases(workflow, snapshot, renderRoot);
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
