/**
 * A change an authoring command is about to write, and its judgement. A command never decides on its
 * own what is legal: it builds the files it would write, and the pull-request rules judge the step
 * from the work tree as it is to the work tree as it would be, with the acting login as the pull
 * request's author. What the check would refuse, the command refuses, with the same codes and hints.
 */
import { readLimits, type Config } from "./config.js";
import { DEFAULT_MAX_FILE_BYTES, MODE_FILE, classifyFile } from "./files.js";
import type { WorkflowModel } from "./model.js";
import { limitFor, type ReadLimits } from "./port.js";
import { buildReport } from "./report.js";
import type { ChangedFile, FileEntry, Report, Snapshot, Violation } from "./types.js";

/** A file to write (`content`) or delete (`null`), by repository path. */
export interface FileChange {
  readonly path: string;
  readonly content: string | null;
}

/** What an authoring command prepared: the files, the judgement of writing them, and what to say. */
export interface Authored {
  readonly changes: readonly FileChange[];
  readonly report: Report;
  /** Facts for `--json` and the text output (the task, the new state, the resolver, ...). */
  readonly facts: Readonly<Record<string, unknown>>;
}

/** A command that cannot even build its change (unknown task, bad input): refused before judging. */
export class AuthoringRefusal extends Error {
  constructor(readonly violations: readonly Violation[]) {
    super(violations.map((item) => item.message).join("; "));
  }
}

/**
 * The snapshot after the changes, each written file seen as a reader with `limits` would see it
 * (above its size limit: `oversized`; with a NUL byte: `binary`), so the judgement matches the check.
 */
export function applyChanges(snapshot: Snapshot, changes: readonly FileChange[], limits?: ReadLimits): Snapshot {
  const files = new Map(snapshot.files);
  for (const change of changes) {
    if (change.content === null) files.delete(change.path);
    else
      files.set(
        change.path,
        entryOf(change.path, change.content, limitFor(change.path, limits, DEFAULT_MAX_FILE_BYTES)),
      );
  }
  return { rev: "work tree, changed", files };
}

/** The changed-file list a pull request making these changes would show. */
export function changedFilesOf(snapshot: Snapshot, changes: readonly FileChange[]): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const change of changes) {
    const before = snapshot.files.get(change.path);
    if (change.content === null) {
      if (before) out.push({ path: change.path, status: "removed" });
    } else if (!before) out.push({ path: change.path, status: "added" });
    else if (before.kind !== "file" || before.text !== change.content) {
      out.push({ path: change.path, status: "modified" });
    }
  }
  return out;
}

/**
 * Judges writing `changes` over `before` as the pull-request check would judge a pull request by
 * `actor` that makes exactly them (no reviews, no commits of the bot), with the config's `model`.
 */
export function judgeChange(
  model: WorkflowModel,
  config: Config,
  before: Snapshot,
  changes: readonly FileChange[],
  actor: string,
): Report {
  const files = changedFilesOf(before, changes);
  const after = applyChanges(before, changes, readLimits(config));
  const findings = model.evaluate(before, after, {
    author: actor,
    files,
    commits: [],
    reviews: [],
    permissions: {},
    teams: {},
  });
  return buildReport(findings, `pull request by ${actor}, ${files.length} changed file(s)`);
}

/** The size limit readers apply when a config sets none. */
function entryOf(path: string, text: string, limit: number): FileEntry {
  return classifyFile({ path, mode: MODE_FILE, size: new TextEncoder().encode(text).length, content: text }, limit);
}
