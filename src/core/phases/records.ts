/**
 * The one writer of what the bot records in a `phases` task, beside its reader (reader.ts): the
 * approved state in `.state` and one approval line per deciding review in `.state.approvals` (for an
 * adoption, one `adopted:approved` line per deciding review). The rules use the same functions to
 * tell the bot's records from anything else.
 */
import type { BotRecord, Snapshot } from "../kernel/types.js";
import type { Workflow } from "./workflow.js";
import { ADOPTED_PHASE } from "./adoption.js";
import { APPROVALS_FILE, STATE_FILE, taskIdOf } from "./reader.js";

/** An approval line: `{phase}:approved|{ISO-8601}|{login}`. */
export function approvalLine(phase: string, at: string, login: string): string {
  return `${phase}:approved|${at}|${login}`;
}

/** The gate edge a record of a task decides. */
function gateOf(workflow: Workflow, record: BotRecord) {
  const edge = workflow.edge(record.from, record.to);
  if (!edge?.gate) throw new Error(`${record.from} → ${record.to} is not a gate of this workflow`);
  return edge;
}

/** The reviews a record names: its `reviews`, or its single `by` and `at`. */
export function decidingReviews(record: BotRecord): { by: string; at: string }[] {
  if (record.reviews && record.reviews.length > 0) return record.reviews.map(({ by, at }) => ({ by, at }));
  if (!record.at) throw new Error(`the record of ${record.task} names no review time`);
  return [{ by: record.by, at: record.at }];
}

/**
 * The files the bot writes for `approve` and `adopt` records of a phases repository: path → new
 * content. A bot gate (out of an awaiting state) also writes the approved state; other gates only
 * append lines; an adoption appends `adopted:approved|<time>|<reviewer>` and leaves `.state` alone.
 */
export function writePhasesRecords(
  workflow: Workflow,
  snapshot: Snapshot,
  records: readonly BotRecord[],
): Map<string, string> {
  const out = new Map<string, string>();
  const read = (path: string) => out.get(path) ?? snapshot.files.get(path)?.text ?? "";
  for (const record of records) {
    if (record.kind !== "approve" && record.kind !== "adopt") {
      throw new Error(`a phases repository records approvals and adoptions only, not ${record.kind}`);
    }
    const dir = `${workflow.def.tasksDir}/${record.task}`;
    let phase = ADOPTED_PHASE;
    if (record.kind === "adopt") {
      if (record.from !== record.to) throw new Error(`an adoption of ${record.task} does not move it`);
    } else {
      const edge = gateOf(workflow, record);
      phase = workflow.gatePhase(edge);
      if (workflow.isBotGate(edge)) out.set(`${dir}/${STATE_FILE}`, `${edge.to}\n`);
    }
    const path = `${dir}/${APPROVALS_FILE}`;
    let log = read(path);
    if (log !== "" && !log.endsWith("\n")) log += "\n";
    for (const review of decidingReviews(record)) log += `${approvalLine(phase, review.at, review.by)}\n`;
    out.set(path, log);
  }
  return out;
}

/** The files that hold the bot's records: every task's `.state` and `.state.approvals`. */
export function phasesRecordFiles(snapshot: Snapshot, tasksDir: string): string[] {
  return [...snapshot.files.keys()].filter(
    (path) =>
      taskIdOf(path, tasksDir) !== undefined &&
      (path.endsWith(`/${STATE_FILE}`) || path.endsWith(`/${APPROVALS_FILE}`)),
  );
}
