/**
 * The follow-ups a revision of the default branch calls for: blocked tasks whose resolvers are all
 * done go back to work (the bot's `unblock` records), and, with `render.commit: default-branch`, the
 * status files are brought up to date. Pure: the GitHub flow commits what this returns, and the audit
 * recomputes it to tell a genuine follow-up of the bot from any other commit on the default branch.
 */
import type { Config } from "./kernel/config.js";
import { audit, writeRecords } from "./evaluate.js";
import type { WorkflowModel } from "./kernel/model.js";
import { renderRootOf } from "./kernel/paths.js";
import type { BotRecord, FileEntry, Snapshot } from "./kernel/types.js";

const encoder = new TextEncoder();

export interface FollowUps {
  readonly records: readonly BotRecord[];
  /** Files to write: path → new content. */
  readonly changes: ReadonlyMap<string, string>;
  /** Rendered files to delete (cards of tasks that no longer exist). */
  readonly deletions: readonly string[];
}

/** What the bot commits on the default branch at `snapshot` (the audit scope), dated `now`. */
export function followUpChanges(
  config: Config,
  model: WorkflowModel,
  snapshot: Snapshot,
  options: { now?: string } = {},
): FollowUps {
  const records = audit(config, snapshot).records.filter((record) => record.kind === "unblock");
  const changes = new Map(records.length > 0 ? writeRecords(config, snapshot, records, options) : []);
  const deletions: string[] = [];
  if (config.render.commit === "default-branch") {
    const files = new Map<string, FileEntry>(snapshot.files);
    for (const [path, text] of changes)
      files.set(path, { path, kind: "file", size: encoder.encode(text).length, text });
    const next: Snapshot = { rev: snapshot.rev, files };
    const rendered = model.render(next);
    for (const [path, content] of rendered) if (snapshot.files.get(path)?.text !== content) changes.set(path, content);
    const cards = `${renderRootOf(config)}/cards/`;
    for (const path of snapshot.files.keys()) if (path.startsWith(cards) && !rendered.has(path)) deletions.push(path);
  }
  return { records, changes, deletions };
}
