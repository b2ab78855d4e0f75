/**
 * Follow-ups on the default branch after a merge: blocked tasks whose resolvers are all done go back
 * to work (the bot's `unblock` records), and, with `render.commit: default-branch`, the status files
 * are brought up to date, all in ONE commit of the bot with optimistic concurrency. Where the branch
 * is protected against the bot, the same commit goes to one sync pull request, kept up to date.
 * Idempotent: run again on the bot's own push, it finds nothing to do, so it never loops. The sync
 * branch is moved only while every commit on it is taskgate's, and only taskgate's own pull request
 * from it is updated: a person's work there is never thrown away, nor their pull request taken over.
 */
import {
  CONFIG_PATH,
  followUpFiles,
  isBotCommit,
  loadConfig,
  readLimits,
  type Config,
  type TaskRepository,
} from "../core/index.js";
import type { GitHubApi } from "./api.js";
import { GitHubError } from "./errors.js";
import type { Logger } from "./flow.js";
import { writtenBy, type Self } from "./identity.js";
import { GitHubRepository, prCommitsOf } from "./repository.js";
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
  /** Why the follow-ups were left undone (someone else's commits or pull request on the sync branch). */
  readonly refused?: string;
}

export async function followUp(
  api: GitHubApi,
  options: { configPath?: string; local?: TaskRepository; log: Logger },
): Promise<FollowUpOutcome> {
  const { name: branch, sha, viewer } = await api.defaultBranch();
  const reader = options.local ?? new GitHubRepository(api);
  const loaded = await loadConfig(reader, sha, options.configPath ?? CONFIG_PATH);
  if (!loaded) return { branch, sha, files: [] };
  const { config, model } = loaded;
  const snapshot = await reader.readSnapshot(sha, model.auditScope(), readLimits(config));
  const { records, changes, deletions } = followUpFiles(config, model, snapshot);
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
    const self: Self = { ...api.identity, login: viewer };
    const synced = await syncPullRequest(api, { branch, sha, ...message, config, self }, changes, deletions);
    if (typeof synced === "string") options.log.warn(synced);
    return {
      branch,
      sha,
      files: paths,
      ...(typeof synced === "number" ? { pullRequest: synced } : { refused: synced }),
    };
  }
}

/**
 * One sync pull request from `taskgate/follow-ups`, reset to the branch and brought up to date; or,
 * when the sync branch holds a commit not made by taskgate or has a pull request taskgate did not
 * open, why it was left alone.
 */
async function syncPullRequest(
  api: GitHubApi,
  input: { branch: string; sha: string; headline: string; body: string; config: Config; self: Self },
  changes: ReadonlyMap<string, string>,
  deletions: readonly string[],
): Promise<number | string> {
  const foreign = await foreignCommits(api, input.config, input.sha);
  if (foreign.length > 0) {
    return `${SYNC_BRANCH} holds commits not made by taskgate (${foreign.map((sha) => sha.slice(0, 7)).join(", ")}); taskgate leaves the branch as it is. Merge or delete it, and the next follow-up proposes the changes again.`;
  }
  const open = await api.openPulls(SYNC_BRANCH, input.branch);
  const others = open.filter((pull) => !writtenBy(pull, input.self));
  if (others.length > 0) {
    return `pull request #${others[0]!.number} from ${SYNC_BRANCH} was not opened by taskgate; taskgate does not take it over. Close it, and the next follow-up opens its own.`;
  }
  await api.setBranch(SYNC_BRANCH, input.sha, { force: true });
  await commitFiles(
    api,
    { branch: SYNC_BRANCH, expectedHead: input.sha, headline: input.headline, body: input.body },
    changes,
    deletions,
  );
  const body = `${input.body}\n\ntaskgate keeps this pull request up to date; ${input.branch} does not accept its commits directly.`;
  const mine = open.find((pull) => writtenBy(pull, input.self));
  if (mine) {
    await api.updatePull(mine.number, body);
    return mine.number;
  }
  return api.createPull({ head: SYNC_BRANCH, base: input.branch, title: input.headline, body });
}

/** Commits on the sync branch that the default branch lacks and that are not verified commits of the bot. */
async function foreignCommits(api: GitHubApi, config: Config, base: string): Promise<string[]> {
  try {
    const comparison = await api.compare(base, SYNC_BRANCH);
    return prCommitsOf(comparison)
      .filter((commit) => !isBotCommit(commit, config))
      .map((commit) => commit.sha);
  } catch (error) {
    // No sync branch yet: nothing of anyone's to keep.
    if (error instanceof GitHubError && error.is(404)) return [];
    throw error;
  }
}
