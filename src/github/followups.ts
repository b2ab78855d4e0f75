/**
 * Follow-ups on the default branch after a merge: blocked tasks whose resolvers are all done go back
 * to work (the bot's `unblock` records), and, with `render.commit: default-branch`, the status files
 * are brought up to date, all in ONE commit of the bot with optimistic concurrency. Where the branch
 * is protected against the bot, the same commit goes to one sync pull request, kept up to date.
 * Idempotent: run again on the bot's own push, it finds nothing to do, so it never loops.
 */
import { CONFIG_PATH, readLimits } from "../core/config.js";
import { audit, writeRecords } from "../core/evaluate.js";
import { renderRootOf } from "../core/paths.js";
import type { TaskRepository } from "../core/port.js";
import { loadConfig } from "../core/service.js";
import type { FileEntry, Snapshot } from "../core/types.js";
import type { GitHubApi } from "./api.js";
import type { Logger } from "./flow.js";
import { isStatus } from "./pull-request.js";
import { GitHubRepository } from "./repository.js";
import { commitFiles, CommitRefused } from "./writes.js";

export const SYNC_BRANCH = "taskgate/follow-ups";

export interface FollowUpOutcome {
  readonly branch: string;
  readonly sha: string;
  /** Files the follow-ups change (empty: nothing to do). */
  readonly files: readonly string[];
  readonly committed?: string;
  /** The sync pull request, when the branch refused the bot's commit. */
  readonly pullRequest?: number;
}

export async function followUp(
  api: GitHubApi,
  options: { configPath?: string; local?: TaskRepository; log: Logger },
): Promise<FollowUpOutcome> {
  const { name: branch, sha } = await api.defaultBranch();
  const reader = options.local ?? new GitHubRepository(api);
  const loaded = await loadConfig(reader, sha, options.configPath ?? CONFIG_PATH);
  if (!loaded) return { branch, sha, files: [] };
  const { config, model } = loaded;
  const snapshot = await reader.readSnapshot(sha, model.auditScope(), readLimits(config));
  const records = audit(config, snapshot).records.filter((record) => record.kind === "unblock");
  const changes = new Map(records.length > 0 ? writeRecords(config, snapshot, records) : []);
  const deletions: string[] = [];
  if (config.render.commit === "default-branch") {
    const files = new Map<string, FileEntry>(snapshot.files);
    for (const [path, text] of changes) files.set(path, { path, kind: "file", size: Buffer.byteLength(text), text });
    const next: Snapshot = { rev: snapshot.rev, files };
    const rendered = model.render(next);
    for (const [path, content] of rendered) if (snapshot.files.get(path)?.text !== content) changes.set(path, content);
    const cards = `${renderRootOf(config)}/cards/`;
    for (const path of snapshot.files.keys()) if (path.startsWith(cards) && !rendered.has(path)) deletions.push(path);
  }
  const paths = [...changes.keys(), ...deletions].sort();
  if (paths.length === 0) return { branch, sha, files: [] };
  const message = {
    headline: `taskgate: follow-ups on ${branch}`,
    body: [
      ...records.map((record) => `${record.task}: ${record.from} → ${record.to} (unblock)`),
      ...(config.render.commit === "default-branch" ? ["re-rendered status files"] : []),
    ].join("\n"),
  };
  try {
    const committed = await commitFiles(api, { branch, expectedHead: sha, ...message }, changes, deletions);
    if (!committed) options.log.info(`${branch} moved on from ${sha.slice(0, 7)}; its own push brings the follow-ups`);
    return { branch, sha, files: paths, ...(committed && { committed }) };
  } catch (error) {
    if (!(error instanceof CommitRefused)) throw error;
    options.log.info(`${branch} refuses the bot's commits (${error.message}); proposing them in a pull request`);
    const pullRequest = await syncPullRequest(api, { branch, sha, ...message }, changes, deletions);
    return { branch, sha, files: paths, pullRequest };
  }
}

/** One sync pull request from `taskgate/follow-ups`, reset to the branch and brought up to date. */
async function syncPullRequest(
  api: GitHubApi,
  input: { branch: string; sha: string; headline: string; body: string },
  changes: ReadonlyMap<string, string>,
  deletions: readonly string[],
): Promise<number> {
  const ref = `heads/${SYNC_BRANCH}`;
  try {
    await api.octokit.rest.git.updateRef({ ...api.repo, ref, sha: input.sha, force: true });
  } catch (error) {
    if (!isStatus(error, 404, 422)) throw error;
    await api.octokit.rest.git.createRef({ ...api.repo, ref: `refs/${ref}`, sha: input.sha });
  }
  await commitFiles(
    api,
    { branch: SYNC_BRANCH, expectedHead: input.sha, headline: input.headline, body: input.body },
    changes,
    deletions,
  );
  const { data: open } = await api.octokit.rest.pulls.list({
    ...api.repo,
    state: "open",
    head: `${api.repo.owner}:${SYNC_BRANCH}`,
    base: input.branch,
    per_page: 10,
  });
  const body = `${input.body}\n\ntaskgate keeps this pull request up to date; ${input.branch} does not accept its commits directly.`;
  if (open[0]) {
    await api.octokit.rest.pulls.update({ ...api.repo, pull_number: open[0].number, body });
    return open[0].number;
  }
  const { data } = await api.octokit.rest.pulls.create({
    ...api.repo,
    head: SYNC_BRANCH,
    base: input.branch,
    title: input.headline,
    body,
  });
  return data.number;
}
