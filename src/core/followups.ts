/**
 * What the bot commits, for every flow that commits (a pull request's records, the default branch's
 * follow-ups): the records written by the core's one writer and, when the status files are rendered
 * in that commit, the rendered files that change with them, diffed against what the revision holds.
 * Pure: the GitHub flows commit what this returns and never name a rendered file, and the audit
 * recomputes the follow-ups to tell a genuine follow-up of the bot from any other commit on the
 * default branch.
 */
import { audit, writeRecords } from "./evaluate.js";
import type { Config } from "./kernel/config.js";
import type { WorkflowModel } from "./kernel/model.js";
import { renderRootOf } from "./kernel/paths.js";
import { staleness } from "./kernel/stale.js";
import type { BotRecord, FileEntry, Snapshot } from "./kernel/types.js";

const encoder = new TextEncoder();

export interface FileChanges {
  /** Files to write: path → new content. */
  readonly changes: Map<string, string>;
  /** Rendered files to delete (those of tasks that no longer exist). */
  readonly deletions: string[];
}

/**
 * The files that carry out `records` at `snapshot` (the audit scope when `render`), dated `now`, and
 * with `render`, the status files as they are once those are written, where they differ.
 */
export function recordChanges(
  config: Config,
  model: WorkflowModel,
  snapshot: Snapshot,
  records: readonly BotRecord[],
  options: { render: boolean; now?: string },
): FileChanges {
  const dated = options.now === undefined ? {} : { now: options.now };
  const changes = new Map(records.length > 0 ? writeRecords(config, snapshot, [...records], dated) : []);
  if (!options.render) return { changes, deletions: [] };
  const files = new Map<string, FileEntry>(snapshot.files);
  for (const [path, text] of changes) files.set(path, { path, kind: "file", size: encoder.encode(text).length, text });
  const rendered = model.render({ rev: snapshot.rev, files });
  const { stale, extra } = staleness(rendered, snapshot, renderRootOf(config));
  const differs = new Set(stale);
  for (const [path, content] of rendered) if (differs.has(path)) changes.set(path, content);
  return { changes, deletions: [...extra] };
}

/** The rendered file whose presence says the repository keeps its status files rendered. */
export function statusIndexPath(config: Config): string {
  return `${renderRootOf(config)}/matrix.md`;
}

/** The follow-ups a revision of the default branch calls for, and the files that carry them out. */
export interface FollowUpFiles extends FileChanges {
  /** The bot's `unblock` records: blocked tasks whose resolvers are all done go back to work. */
  readonly records: readonly BotRecord[];
}

/**
 * What the bot commits on the default branch at `snapshot` (the audit scope), dated `now`: the
 * `unblock` records the audit calls for, and with `render.commit: default-branch`, the status files.
 */
export function followUpFiles(
  config: Config,
  model: WorkflowModel,
  snapshot: Snapshot,
  options: { now?: string } = {},
): FollowUpFiles {
  const records = audit(config, snapshot).records.filter((record) => record.kind === "unblock");
  const render = config.render.commit === "default-branch";
  return { records, ...recordChanges(config, model, snapshot, records, { render, ...options }) };
}
