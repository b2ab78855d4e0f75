/**
 * The seam every workflow model plugs into. A model is built from a validated config and judges
 * snapshots; `evaluate.ts` turns its findings into a report.
 */
import type { SnapshotScope } from "./port.js";
import type { BotRecord, ChangedFile, Pending, PrContext, Snapshot, Transition, Violation } from "./types.js";

export interface Findings {
  violations: Violation[];
  pending: Pending[];
  transitions: Transition[];
  records: BotRecord[];
}

export function emptyFindings(): Findings {
  return { violations: [], pending: [], transitions: [], records: [] };
}

/** A recorded decision found in a change: which task, where, and what it says. */
export interface RecordedChange {
  readonly task: string;
  readonly path: string;
  readonly what: string;
  /** When the decision says it was made (a board entry's `at`), when it says. */
  readonly at?: string;
}

export interface NextStep {
  readonly to: string;
  /** What the move needs: an approval, an artifact, a verdict. */
  readonly needs: readonly string[];
}

export interface Explanation {
  readonly task: string;
  readonly state: string | undefined;
  readonly facts: readonly [label: string, value: string][];
  readonly next: readonly NextStep[];
  readonly approvers: readonly string[];
  readonly problems: readonly Violation[];
}

export interface WorkflowModel {
  readonly name: "phases" | "board";
  /** The parts of base and head a PR evaluation needs, given the changed files. */
  prScope(files: readonly ChangedFile[]): SnapshotScope;
  /** Files the head must also provide, known only once the scoped head is read (board evidence). */
  followUp?(base: Snapshot, head: Snapshot): SnapshotScope | undefined;
  /** The part of a revision an audit, a render or an explanation reads (never project files). */
  auditScope(): SnapshotScope;
  evaluate(base: Snapshot, head: Snapshot, pr: PrContext): Findings;
  audit(snapshot: Snapshot): Findings;
  /** `undefined` when the task does not exist at this revision. */
  explain(snapshot: Snapshot, task: string): Explanation | undefined;
  /** The rendered status files for a revision: repository path → content. Same input, same bytes. */
  render(snapshot: Snapshot): Map<string, string>;
  /**
   * The files the bot commits to carry out `records` on a revision: path → new content. The one
   * writer of recorded decisions; the rules read them back with the same format's reader.
   */
  writeRecords(snapshot: Snapshot, records: readonly BotRecord[], options?: { now?: string }): Map<string, string>;
  /**
   * Recorded decisions `after` has that `before` had not (approval lines and approved states; board
   * approve, reject and unblock entries): what only taskgate's own commits may add.
   */
  decisionsAdded(before: Snapshot, after: Snapshot): RecordedChange[];
  /** Files that hold recorded decisions at a revision (the audit reads them per commit). */
  recordFiles(snapshot: Snapshot): string[];
  /** Ids of every task at a revision (for suggestions and listings). */
  taskIds(snapshot: Snapshot): string[];
}
