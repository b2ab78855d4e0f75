/**
 * The GitHub calls taskgate makes, one method each, with what each costs. The only module that knows
 * Octokit; everything above it works with plain data. Every call goes through `call()`, where
 * Octokit's errors (after its own retries and throttling) become ONE typed `GitHubError`: its status,
 * GitHub's GraphQL errors and the call.
 */
import type { Octokit as RestOctokit } from "@octokit/rest";
import { CONFIG_PATH, type Permission, type Review } from "../core/index.js";
import { GitHubError, gitHubError, type GraphQLErrorItem } from "./errors.js";
import {
  CREATE_COMMIT,
  DEFAULT_BRANCH,
  PULL_REQUEST_FACTS,
  PULL_REQUEST_VERSION,
  batchQuery,
  foldersQuery,
  landingsQuery,
} from "./queries.js";

/** What taskgate needs of an Octokit: Probot's (the app) and @octokit/rest's (the Action) both fit. */
export type Octokit = Pick<RestOctokit, "rest" | "graphql" | "paginate" | "request">;

export interface RepoRef {
  readonly owner: string;
  readonly repo: string;
}

/** Who taskgate is on GitHub, as GitHub enforces it. */
export interface Identity {
  /** The App's id: its check runs, comments and issues carry it (absent under the Action's token). */
  readonly appId?: number;
}

/** GitHub lists at most this many commits of a comparison; more are never judged as if complete. */
export const MAX_COMMITS = 250;
/** Blobs, permissions, teams and commits asked for in one GraphQL request. */
export const BATCH_SIZE = 200;
/** Folders listed in one GraphQL request. */
export const FOLDER_BATCH = 200;
/** The first and the last this many comments of a pull request come with its facts. */
export const COMMENT_WINDOW = 50;

export interface BlobData {
  readonly oid: string;
  readonly text: string | null;
  readonly isBinary: boolean | null;
  readonly isTruncated: boolean;
  readonly byteSize: number;
}

/**
 * When the facts of a result were read: GitHub's own time of the answer (its `Date` header), and how
 * many review events (reviews and dismissals) it showed. A result stamped older never replaces one
 * stamped newer.
 */
export interface FactsStamp {
  readonly at: string;
  readonly seen: number;
}

/** A comment the token wrote (GitHub's `viewerDidAuthor`), with its body. */
export interface CommentCandidate {
  readonly id: number;
  readonly body: string;
}

export interface PullRequestFacts {
  readonly number: number;
  readonly state: string;
  readonly isCrossRepository: boolean;
  readonly headRefName: string;
  readonly headRefOid: string;
  /** The head repository's `owner/name`; `null` when it was deleted. */
  readonly headRepository: string | null;
  /** This repository's `owner/name`, as GitHub spells it. */
  readonly repository: string;
  readonly defaultBranch: string | null;
  readonly baseRefName: string;
  readonly url: string;
  readonly author: string;
  /** The tip of the base branch: the config is read there. */
  readonly baseTip: string;
  readonly config: BlobData | null;
  readonly reviews: Review[];
  /** The login of the token that asked (GitHub's `viewer`). */
  readonly viewer: string;
  /** What the result depends on that can change between deliveries: head, base, review states. */
  readonly version: string;
  readonly stamp: FactsStamp;
  /** The token's own comments among the first and the last 50, oldest first. */
  readonly ownComments: readonly CommentCandidate[];
  /** How many comments the pull request has (more than both windows: some were not seen). */
  readonly commentCount: number;
}

/** A commit as GitHub's REST API lists it (the shape `PR.json` uses too). */
export interface CompareCommit {
  readonly sha: string;
  readonly author: { readonly login: string; readonly type?: string } | null;
  readonly committer?: { readonly login: string; readonly type?: string } | null;
  readonly parents: readonly { readonly sha: string }[];
  readonly commit: {
    readonly author: { readonly name?: string; readonly email?: string } | null;
    readonly committer?: { readonly name?: string; readonly email?: string } | null;
    readonly message?: string;
    readonly verification?: { readonly verified: boolean } | null;
  };
}

export interface Comparison {
  readonly mergeBase: string;
  readonly totalCommits: number;
  readonly commits: readonly CompareCommit[];
  /** The paths GitHub lists as changed, old names of renames too: at most 300, so a hint, never the whole. */
  readonly files: readonly string[];
}

/** An entry of GitHub's REST listing of a tree, with its path from the listed tree. */
export interface TreeEntry {
  readonly path: string;
  readonly mode: string;
  readonly type: string;
  readonly sha: string;
  readonly size?: number;
}

/** GitHub's REST listing of a tree (`GET /git/trees/{sha}`), recursive or not. */
export interface TreeListing {
  /** The listed tree's object id (a commit asked for is peeled to its tree). */
  readonly sha: string;
  readonly entries: readonly TreeEntry[];
  /** GitHub cut the listing short (over 100,000 entries or 7 MB). */
  readonly truncated: boolean;
}

/** One entry of one folder: a file (`blob`), a folder (`tree`) or a submodule (`commit`). */
export interface FolderEntry {
  readonly name: string;
  /** Git's mode as the REST API writes it: `100644`, `100755`, `120000`, `040000` or `160000`. */
  readonly mode: string;
  readonly type: string;
  readonly oid: string;
  /** A file's size in bytes (absent for folders and submodules). */
  readonly size?: number;
}

/** One folder's entries, as GraphQL's `Tree.entries` lists them, and the folder's object id. */
export interface FolderListing {
  readonly oid: string;
  readonly entries: readonly FolderEntry[];
}

export type { Tree } from "./trees.js";

/** An author GitHub links to a commit (the git author or a `Co-authored-by:` trailer). */
export interface CommitAuthor {
  readonly login: string | null;
  readonly name: string | null;
  readonly email: string | null;
}

export interface BatchAnswer {
  readonly blobs: Map<string, BlobData>;
  readonly permissions: Record<string, Permission>;
  readonly teams: Record<string, string[]>;
  /** Why a login's permission or a team's members are unknown, when GitHub said. */
  readonly unresolved: Record<string, string>;
  readonly authors: Map<string, CommitAuthor[]>;
}

/** A merged pull request a commit of the default branch belongs to. */
export interface Landing {
  readonly number: number;
  readonly baseRefName: string;
  readonly headRefOid: string;
  readonly mergeCommit: string | null;
  readonly mergedAt: string | null;
  readonly author: string;
  /** Conclusions of the named check runs of the given app on the pull request's last commit. */
  readonly checks: readonly string[];
}

export interface CommitLandings {
  readonly pulls: readonly Landing[];
  /** The commit's first parent holds the config (taskgate was set up there). */
  readonly configured: boolean;
}

interface ActorNode {
  __typename?: string;
  login: string;
}

interface ReviewNode {
  author: ActorNode | null;
  authorAssociation?: string;
  state: string;
  commit: { oid: string } | null;
  submittedAt: string | null;
  body: string | null;
}

interface CommentNode {
  databaseId: number | null;
  viewerDidAuthor: boolean;
  body: string;
}

interface FactsPage {
  viewer: { login: string };
  repository: {
    nameWithOwner: string;
    defaultBranchRef: { name: string } | null;
    pullRequest: {
      number: number;
      state: string;
      isCrossRepository: boolean;
      headRefName: string;
      headRefOid: string;
      baseRefName: string;
      baseRefOid: string;
      url: string;
      author: ActorNode | null;
      headRepository: { nameWithOwner: string } | null;
      reviews: {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: ReviewNode[];
      };
      firstComments: { totalCount: number; nodes: CommentNode[] };
      lastComments: { nodes: CommentNode[] };
      baseRef: { target: { oid?: string; file?: { object: BlobData | null } | null } | null } | null;
    } | null;
  } | null;
}

interface VersionPage {
  repository: {
    pullRequest: {
      state: string;
      headRefOid: string;
      baseRefName: string;
      reviews: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: { author: { login: string } | null; state: string; submittedAt: string | null }[];
      };
      lastComments: { nodes: CommentNode[] };
    } | null;
  } | null;
}

const PERMISSIONS: Readonly<Record<string, Permission>> = {
  ADMIN: "admin",
  MAINTAIN: "maintain",
  WRITE: "write",
  TRIAGE: "triage",
  READ: "read",
};

/** A GraphQL request: its document and variables. */
export interface GraphQLQuestion {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
}

/** A GraphQL answer: its `data` and GitHub's `Date` of it. */
export interface GraphQLAnswer {
  readonly data: unknown;
  readonly date: string | undefined;
}

/** The question `pullRequest()` asks for one page (100) of a pull request's reviews. */
export function pullRequestQuestion(
  repo: RepoRef,
  number: number,
  configPath: string = CONFIG_PATH,
  after: string | null = null,
): GraphQLQuestion {
  return { query: PULL_REQUEST_FACTS, variables: { owner: repo.owner, name: repo.repo, number, configPath, after } };
}

/** The question `defaultBranch()` asks. */
export function defaultBranchQuestion(repo: RepoRef): GraphQLQuestion {
  return { query: DEFAULT_BRANCH, variables: { owner: repo.owner, name: repo.repo } };
}

function questionKey(question: GraphQLQuestion): string {
  return `${question.query}\u0000${JSON.stringify(question.variables)}`;
}

/** A login as the REST API writes it: GraphQL names a bot `slug`, REST `slug[bot]`. */
export function restLogin(actor: ActorNode): string {
  return actor.__typename === "Bot" && !actor.login.endsWith("[bot]") ? `${actor.login}[bot]` : actor.login;
}

/** GitHub's `Date` header as an ISO time (seconds); the local clock only when GitHub sent none. */
function isoDate(date: string | undefined): string {
  const time = date ? Date.parse(date) : NaN;
  return new Date(Number.isNaN(time) ? Date.now() : time).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The version of a pull request: its state, head, base and every review's state, in one string. */
export function versionOf(
  pr: { state: string; headRefOid: string; baseRefName: string },
  reviews: readonly { login: string; state: string; submittedAt: string | null | undefined }[],
): string {
  // GraphQL spells a bot `slug` or `slug[bot]` depending on the field: compare without the suffix.
  const states = reviews.map(
    (review) => `${review.login.toLowerCase().replace(/\[bot\]$/, "")}@${review.submittedAt ?? "?"}=${review.state}`,
  );
  return [pr.state, pr.headRefOid, pr.baseRefName, ...states.sort()].join("\n");
}

function candidates(nodes: readonly CommentNode[]): CommentCandidate[] {
  return nodes
    .filter((node) => node.viewerDidAuthor && typeof node.databaseId === "number")
    .map((node) => ({ id: node.databaseId!, body: node.body }));
}

export class GitHubApi {
  /** Answers to questions asked before this object existed (the Action's first request): each used once. */
  private readonly offered = new Map<string, Promise<GraphQLAnswer | undefined>>();

  constructor(
    readonly octokit: Octokit,
    readonly repo: RepoRef,
    readonly identity: Identity = {},
  ) {}

  /**
   * Hands over the answer to a question already asked (`undefined` when that request failed): the
   * first call asking the same question takes it instead of asking again, and asks through Octokit
   * after all when the answer is `undefined`.
   */
  offer(question: GraphQLQuestion, answer: Promise<GraphQLAnswer | undefined>): void {
    this.offered.set(questionKey(question), answer);
  }

  /** Where GraphQL requests go: the Octokit's GraphQL endpoint (GitHub Enterprise Server's too). */
  private graphqlUrl(): string {
    const defaults = (this.octokit.graphql as unknown as { endpoint: { DEFAULTS: { baseUrl: string; url?: string } } })
      .endpoint.DEFAULTS;
    if (/\/api\/v3\/?$/.test(defaults.baseUrl)) return defaults.baseUrl.replace(/\/api\/v3\/?$/, "/api/graphql");
    return `${defaults.baseUrl.replace(/\/$/, "")}${defaults.url ?? "/graphql"}`;
  }

  /**
   * Sends one call to GitHub through Octokit (its authentication, retries and throttling come first)
   * and turns whatever it throws into a `GitHubError`: the one place Octokit's errors are read.
   */
  private async call<T>(call: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw gitHubError(error, call);
    }
  }

  /**
   * Whether the token may read this repository, as GitHub says: `GET /repos/{owner}/{repo}`
   * (metadata: read; the pages ask it with a visitor's token). `true` on 200; `false` on a redirect
   * (a renamed or moved repository is not the one asked for). 1 request. 4xx and 5xx throw
   * `GitHubError`.
   */
  async canRead(): Promise<boolean> {
    const response = await this.rest(this.octokit.rest.repos.get, {
      ...this.repo,
      request: { redirect: "manual" },
    } as never);
    return response.status === 200;
  }

  /** One REST call through `call()`, named by its route (`GET /repos/{owner}/{repo}/...`). */
  private rest<P, R>(method: (params: P) => Promise<R>, params: P): Promise<R> {
    const route = (method as { endpoint?: { DEFAULTS?: { method?: string; url?: string } } }).endpoint?.DEFAULTS;
    return this.call(route?.url ? `${route.method ?? "GET"} ${route.url}` : "GitHub REST", () => method(params));
  }

  /**
   * One GraphQL request through Octokit (its authentication, retries and throttling), keeping
   * GitHub's `Date`. Errors throw `GitHubError` unless `partial`, where they come back with
   * whatever data GitHub could give. A `large` answer (megabytes of folder listings, no integer
   * beyond 2^53) is parsed by Node's own JSON parser: Octokit's, which keeps big integers exact, takes
   * ten times as long on Node.js 20.
   */
  private async ask<T>(
    question: GraphQLQuestion,
    options: { partial?: boolean; large?: boolean } = {},
  ): Promise<{ data: T; date: string | undefined; errors: readonly GraphQLErrorItem[] }> {
    const key = questionKey(question);
    const offered = this.offered.get(key);
    if (offered) {
      this.offered.delete(key);
      const answer = await offered.catch(() => undefined);
      if (answer !== undefined) return { data: answer.data as T, date: answer.date, errors: [] };
    }
    const response = await this.call("POST /graphql", () =>
      this.octokit.request({
        method: "POST",
        url: this.graphqlUrl(),
        query: question.query,
        variables: question.variables,
        ...(options.large && { request: { parseSuccessResponseBody: false } }),
      } as never),
    );
    const body = (options.large ? await parsed(response.data) : response.data) as {
      data?: T | null;
      errors?: readonly GraphQLErrorItem[];
    };
    const errors = body.errors ?? [];
    if ((errors.length > 0 && !options.partial) || body.data === undefined || body.data === null) {
      const graphqlErrors = errors.length > 0 ? errors : [{ message: "no data" }];
      throw new GitHubError(
        `GitHub answered with errors: ${graphqlErrors.map((error) => error.message ?? error.type).join("; ")}`,
        { call: "POST /graphql", status: response.status, graphqlErrors, data: body.data },
      );
    }
    return { data: body.data, date: (response.headers as Record<string, string | undefined>).date, errors };
  }

  /**
   * The pull request, its reviews, the base branch's config, who the token is and the token's own
   * comments among the first and last 50: one GraphQL request per 100 reviews.
   */
  async pullRequest(number: number, configPath: string = CONFIG_PATH): Promise<PullRequestFacts | undefined> {
    const reviews: Review[] = [];
    let after: string | null = null;
    let first: FactsPage | undefined;
    let date: string | undefined;
    do {
      const answer: { data: FactsPage; date: string | undefined } = await this.ask<FactsPage>(
        pullRequestQuestion(this.repo, number, configPath, after),
      );
      const pr = answer.data.repository?.pullRequest;
      if (!pr) return undefined;
      first ??= answer.data;
      // The facts are as old as their first page: a later page never makes them look newer.
      date ??= answer.date;
      for (const node of pr.reviews.nodes) {
        reviews.push({
          // A deleted account reviews as nobody: kept, so that the pending text can say why it does not count.
          user: node.author
            ? { login: restLogin(node.author), type: node.author.__typename === "Bot" ? "Bot" : "User" }
            : { login: "ghost", type: "Deleted" },
          state: node.state,
          commit_id: node.commit?.oid ?? null,
          submitted_at: node.submittedAt,
          body: node.body,
          ...(node.authorAssociation && { author_association: node.authorAssociation }),
        } as Review);
      }
      after = pr.reviews.pageInfo.hasNextPage ? pr.reviews.pageInfo.endCursor : null;
    } while (after);
    const repository = first.repository!;
    const pr = repository.pullRequest!;
    const target = pr.baseRef?.target;
    const dismissed = reviews.filter((review) => review.state === "DISMISSED").length;
    const own = new Map<number, CommentCandidate>();
    for (const item of [...candidates(pr.firstComments.nodes), ...candidates(pr.lastComments.nodes)]) {
      own.set(item.id, item);
    }
    return {
      number: pr.number,
      state: pr.state,
      isCrossRepository: pr.isCrossRepository,
      headRefName: pr.headRefName,
      headRefOid: pr.headRefOid,
      headRepository: pr.headRepository?.nameWithOwner ?? null,
      repository: repository.nameWithOwner,
      defaultBranch: repository.defaultBranchRef?.name ?? null,
      baseRefName: pr.baseRefName,
      url: pr.url,
      author: pr.author ? restLogin(pr.author) : "ghost",
      baseTip: target?.oid ?? pr.baseRefOid,
      config: target?.file?.object ?? null,
      reviews,
      viewer: first.viewer.login,
      version: versionOf(
        pr,
        reviews.map((review) => ({ login: review.user!.login, state: review.state, submittedAt: review.submitted_at })),
      ),
      stamp: { at: isoDate(date), seen: reviews.length + dismissed },
      ownComments: [...own.values()].sort((a, b) => a.id - b.id),
      commentCount: pr.firstComments.totalCount,
    };
  }

  /**
   * The pull request's version now (see `versionOf`) and the token's comments among its last 50:
   * one GraphQL request per 100 reviews. `undefined` when the pull request is gone.
   */
  async version(number: number): Promise<{ version: string; ownComments: CommentCandidate[] } | undefined> {
    const reviews: { login: string; state: string; submittedAt: string | null }[] = [];
    let after: string | null = null;
    let first: NonNullable<NonNullable<VersionPage["repository"]>["pullRequest"]> | undefined;
    do {
      const answer: { data: VersionPage } = await this.ask<VersionPage>({
        query: PULL_REQUEST_VERSION,
        variables: { owner: this.repo.owner, name: this.repo.repo, number, after },
      });
      const pr: NonNullable<VersionPage["repository"]>["pullRequest"] | undefined = answer.data.repository?.pullRequest;
      if (!pr) return undefined;
      first ??= pr;
      for (const node of pr.reviews.nodes) {
        reviews.push({ login: node.author?.login ?? "ghost", state: node.state, submittedAt: node.submittedAt });
      }
      after = pr.reviews.pageInfo.hasNextPage ? pr.reviews.pageInfo.endCursor : null;
    } while (after);
    if (!first) return undefined;
    return { version: versionOf(first, reviews), ownComments: candidates(first.lastComments.nodes) };
  }

  /** The merge base, the commits (up to 250) and the changed files (up to 300) of `base...head`: one request. */
  async compare(base: string, head: string): Promise<Comparison> {
    const { data } = await this.rest(this.octokit.rest.repos.compareCommitsWithBasehead, {
      owner: this.repo.owner,
      repo: this.repo.repo,
      basehead: `${base}...${head}`,
    });
    return {
      mergeBase: data.merge_base_commit.sha,
      totalCommits: data.total_commits,
      commits: data.commits as unknown as CompareCommit[],
      files: (data.files ?? []).flatMap((file) => [
        file.filename,
        ...(file.previous_filename ? [file.previous_filename] : []),
      ]),
    };
  }

  /**
   * A tree's entries by REST (`sha` a tree or a commit): one request. `recursive` lists every entry
   * below it, folders included, until GitHub's cap (100,000 entries or 7 MB); either way GitHub says
   * when it cut the listing short.
   */
  async listing(sha: string, options: { recursive: boolean }): Promise<TreeListing> {
    const response = await this.rest(this.octokit.rest.git.getTree, {
      owner: this.repo.owner,
      repo: this.repo.repo,
      tree_sha: sha,
      ...(options.recursive && { recursive: "1" }),
      // Up to 7 MB of entries and no integer beyond 2^53: Node's own parser, as for large GraphQL answers.
      request: { parseSuccessResponseBody: false },
    });
    const data = (await parsed(response.data)) as { sha?: unknown; tree?: unknown; truncated?: unknown };
    if (typeof data.sha !== "string" || !Array.isArray(data.tree)) {
      throw new GitHubError("GitHub's listing of a folder could not be read", {
        call: "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
        status: response.status,
      });
    }
    return { sha: data.sha, entries: data.tree as TreeEntry[], truncated: data.truncated === true };
  }

  /**
   * Folders by object id (a commit's id names its root folder) or by expression (`<commit>:<path>`),
   * each with its entries: one GraphQL request per 200, keyed as asked, `null` for an object GitHub
   * does not have (or that is no folder). GraphQL says nothing of a cut: the reader checks each
   * listing against its object id.
   */
  async folders(
    oids: readonly string[],
    expressions: readonly string[] = [],
  ): Promise<Map<string, FolderListing | null>> {
    const out = new Map<string, FolderListing | null>();
    const pending = [
      ...[...new Set(oids)].map((key) => ({ key, expression: false })),
      ...[...new Set(expressions)].map((key) => ({ key, expression: true })),
    ];
    for (let start = 0; start < pending.length; start += FOLDER_BATCH) {
      const batch = pending.slice(start, start + FOLDER_BATCH);
      const byOid = batch.filter((item) => !item.expression);
      const byExpression = batch.filter((item) => item.expression);
      const variables: Record<string, string> = { owner: this.repo.owner, name: this.repo.repo };
      byOid.forEach((item, index) => (variables[`o${index}`] = item.key));
      byExpression.forEach((item, index) => (variables[`e${index}`] = item.key));
      const { data } = await this.ask<{ repository: Record<string, FolderNode | null> | null }>(
        { query: foldersQuery(byOid.length, byExpression.length), variables },
        { partial: true, large: true },
      );
      byOid.forEach((item, index) => out.set(item.key, folderOf(data.repository?.[`o${index}`])));
      byExpression.forEach((item, index) => out.set(item.key, folderOf(data.repository?.[`e${index}`])));
    }
    return out;
  }

  /**
   * Blob contents, repository permissions, team members and the authors GitHub links to commits, in
   * as few GraphQL requests as the batch size allows (one for a typical pull request). One item GitHub
   * cannot resolve (an organization it does not know, a team it does not show, a deleted user) costs
   * only itself: `unresolved` says why, and everything else is answered.
   */
  async batch(request: {
    blobs: readonly string[];
    people: readonly string[];
    teams: readonly string[];
    commits?: readonly string[];
  }): Promise<BatchAnswer> {
    const out: BatchAnswer = { blobs: new Map(), permissions: {}, teams: {}, unresolved: {}, authors: new Map() };
    const pending = {
      blobs: [...new Set(request.blobs)],
      people: [...new Set(request.people)],
      teams: [...new Set(request.teams)],
      commits: [...new Set(request.commits ?? [])],
    };
    const take = (list: string[], room: number) => list.splice(0, Math.max(0, Math.min(list.length, room)));
    while (pending.blobs.length + pending.people.length + pending.teams.length + pending.commits.length > 0) {
      const people = take(pending.people, BATCH_SIZE);
      const teams = take(pending.teams, BATCH_SIZE - people.length);
      const commits = take(pending.commits, BATCH_SIZE - people.length - teams.length);
      const blobs = take(pending.blobs, BATCH_SIZE - people.length - teams.length - commits.length);
      const part: BatchPart = { blobs, people, teams, commits };
      // Blob texts can run to megabytes; no integer in the answer goes beyond 2^53.
      const { data, errors } = await this.ask<Record<string, unknown>>(batchQuestion(this.repo, part), {
        partial: true,
        large: true,
      });
      readBatch(out, part, data, errors);
    }
    return out;
  }

  /** The default branch, its tip, and who the token is (GitHub's `viewer`): one GraphQL request. */
  async defaultBranch(): Promise<{ name: string; sha: string; viewer: string }> {
    const { data } = await this.ask<{
      viewer: { login: string };
      repository: { defaultBranchRef: { name: string; target: { oid: string } } | null };
    }>(defaultBranchQuestion(this.repo));
    const ref = data.repository.defaultBranchRef;
    if (!ref) throw new Error(`${this.repo.owner}/${this.repo.repo} has no default branch`);
    return { name: ref.name, sha: ref.target.oid, viewer: data.viewer.login };
  }

  /** Does GitHub report the branch as protected (by branch protection or a ruleset)? One request. */
  async isProtected(branch: string): Promise<boolean> {
    const { data } = await this.rest(this.octokit.rest.repos.getBranch, { ...this.repo, branch });
    return data.protected;
  }

  /** The latest commits of a branch (one request for up to 100). */
  async recentCommits(sha: string, count: number): Promise<CompareCommit[]> {
    const { data } = await this.rest(this.octokit.rest.repos.listCommits, {
      ...this.repo,
      sha,
      per_page: Math.min(count, 100),
    });
    return data as unknown as CompareCommit[];
  }

  /** One commit with the files it changed against its first parent: one request per 300 files. */
  async commitFiles(sha: string): Promise<{ commit: CompareCommit; files: string[] }> {
    const { data } = await this.rest(this.octokit.rest.repos.getCommit, { ...this.repo, ref: sha, per_page: 300 });
    const files = (data.files ?? []).flatMap((file) => [
      file.filename,
      ...(file.previous_filename ? [file.previous_filename] : []),
    ]);
    return { commit: data as unknown as CompareCommit, files };
  }

  /**
   * For each commit of the default branch: the merged pull requests it belongs to, with (for the App)
   * the conclusions of its own check runs named `checkName` on each one's last commit, and whether
   * the commit's parent holds the config. One GraphQL request per 50 commits.
   */
  async landings(
    commits: readonly { sha: string; parent: string }[],
    options: { checkName: string; configPath: string; appId?: number | undefined },
  ): Promise<Map<string, CommitLandings>> {
    const out = new Map<string, CommitLandings>();
    const checks = options.appId !== undefined;
    for (let start = 0; start < commits.length; start += 50) {
      const batch = commits.slice(start, start + 50);
      const variables: Record<string, string | number> = { owner: this.repo.owner, name: this.repo.repo };
      if (checks) Object.assign(variables, { appId: options.appId!, checkName: options.checkName });
      batch.forEach((commit, index) => {
        variables[`c${index}`] = commit.sha;
        variables[`e${index}`] = `${commit.parent}:${options.configPath}`;
      });
      const { data } = await this.ask<{ repository: Record<string, unknown> }>(
        { query: landingsQuery(batch.length, { checks }), variables },
        { partial: true },
      );
      batch.forEach((commit, index) => {
        const node = data.repository[`c${index}`] as LandingNode | null | undefined;
        const pulls = (node?.associatedPullRequests?.nodes ?? []).map(
          (pull): Landing => ({
            number: pull.number,
            baseRefName: pull.baseRefName,
            headRefOid: pull.headRefOid,
            mergeCommit: pull.mergeCommit?.oid ?? null,
            mergedAt: pull.mergedAt ?? null,
            author: pull.author ? restLogin(pull.author) : "ghost",
            checks: (pull.commits?.nodes[0]?.commit.checkSuites?.nodes ?? [])
              // Filtered by GitHub already; checked again here, since it decides what counts.
              .filter((suite) => checks && suite.app?.databaseId === options.appId)
              .flatMap((suite) => suite.checkRuns.nodes)
              .filter((run) => run.name === options.checkName)
              .map((run) => run.conclusion ?? "PENDING"),
          }),
        );
        const merged = (node?.associatedPullRequests?.nodes ?? []).map((pull) => pull.merged);
        out.set(commit.sha, {
          pulls: pulls.filter((_, at) => merged[at]),
          configured: Boolean((data.repository[`e${index}`] as { oid?: string } | null)?.oid),
        });
      });
    }
    return out;
  }

  /** The App's own check runs named `name` on a commit (by its app id, never by name alone). */
  async ownCheckRuns(ref: string, name: string): Promise<CheckRunData[]> {
    if (this.identity.appId === undefined) return [];
    const { data } = await this.rest(this.octokit.rest.checks.listForRef, {
      ...this.repo,
      ref,
      check_name: name,
      app_id: this.identity.appId,
      filter: "latest",
      per_page: 20,
    });
    return (data.check_runs as unknown as CheckRunData[]).filter((run) => run.app?.id === this.identity.appId);
  }

  async createCheckRun(body: CheckRunBody & { head_sha: string }): Promise<number> {
    const { data } = await this.rest(this.octokit.rest.checks.create, { ...this.repo, ...body } as never);
    return (data as { id: number }).id;
  }

  async updateCheckRun(id: number, body: CheckRunBody): Promise<void> {
    await this.rest(this.octokit.rest.checks.update, { ...this.repo, ...body, check_run_id: id } as never);
  }

  /** The latest statuses of a commit (100). */
  async statuses(ref: string): Promise<StatusData[]> {
    const { data } = await this.rest(this.octokit.rest.repos.listCommitStatusesForRef, {
      ...this.repo,
      ref,
      per_page: 100,
    });
    return data as unknown as StatusData[];
  }

  async createStatus(sha: string, body: { state: string; context: string; description: string; target_url: string }) {
    await this.rest(this.octokit.rest.repos.createCommitStatus, { ...this.repo, sha, ...body } as never);
  }

  /** One page (100) of a pull request's or issue's comments, oldest first. */
  async commentsPage(number: number, page: number): Promise<IssueCommentData[]> {
    const { data } = await this.rest(this.octokit.rest.issues.listComments, {
      ...this.repo,
      issue_number: number,
      per_page: 100,
      page,
    });
    return data as unknown as IssueCommentData[];
  }

  async createComment(number: number, body: string): Promise<number> {
    const { data } = await this.rest(this.octokit.rest.issues.createComment, {
      ...this.repo,
      issue_number: number,
      body,
    });
    return data.id;
  }

  async updateComment(id: number, body: string): Promise<void> {
    await this.rest(this.octokit.rest.issues.updateComment, { ...this.repo, comment_id: id, body });
  }

  async deleteComment(id: number): Promise<void> {
    await this.rest(this.octokit.rest.issues.deleteComment, { ...this.repo, comment_id: id });
  }

  /** Issues (not pull requests) with a label, open and closed: one request per 100. */
  async labelledIssues(label: string): Promise<IssueData[]> {
    const issues = (await this.call("GET /repos/{owner}/{repo}/issues", () =>
      this.octokit.paginate(this.octokit.rest.issues.listForRepo, {
        ...this.repo,
        labels: label,
        state: "all",
        per_page: 100,
      }),
    )) as unknown as (IssueData & { pull_request?: unknown })[];
    return issues.filter((issue) => !issue.pull_request);
  }

  async createIssue(body: { title: string; body: string; labels: string[] }): Promise<number> {
    const { data } = await this.rest(this.octokit.rest.issues.create, { ...this.repo, ...body });
    return data.number;
  }

  async updateIssue(number: number, body: { title?: string; body?: string; state?: "open" | "closed" }): Promise<void> {
    await this.rest(this.octokit.rest.issues.update, { ...this.repo, issue_number: number, ...body });
  }

  /** Sets a branch (creating it when missing) to a commit; never forced. */
  async setBranch(branch: string, sha: string, options: { force: boolean }): Promise<void> {
    try {
      await this.rest(this.octokit.rest.git.updateRef, {
        ...this.repo,
        ref: `heads/${branch}`,
        sha,
        force: options.force,
      });
    } catch (error) {
      if (!(error instanceof GitHubError && error.is(404, 422))) throw error;
      await this.rest(this.octokit.rest.git.createRef, { ...this.repo, ref: `refs/heads/${branch}`, sha });
    }
  }

  async openPulls(head: string, base: string): Promise<PullData[]> {
    const { data } = await this.rest(this.octokit.rest.pulls.list, {
      ...this.repo,
      state: "open",
      head: `${this.repo.owner}:${head}`,
      base,
      per_page: 10,
    });
    return data as unknown as PullData[];
  }

  async createPull(body: { head: string; base: string; title: string; body: string }): Promise<number> {
    const { data } = await this.rest(this.octokit.rest.pulls.create, { ...this.repo, ...body });
    return data.number;
  }

  async updatePull(number: number, body: string): Promise<void> {
    await this.rest(this.octokit.rest.pulls.update, { ...this.repo, pull_number: number, body });
  }

  /**
   * One commit of the token's account on a branch (GitHub signs it), only if the branch is still at
   * `expectedHead`: GraphQL `createCommitOnBranch`.
   */
  async createCommit(input: {
    branch: string;
    expectedHead: string;
    headline: string;
    body: string;
    additions: readonly { path: string; contents: string }[];
    deletions: readonly string[];
  }): Promise<string> {
    const { data } = await this.ask<{ createCommitOnBranch: { commit: { oid: string } } }>({
      query: CREATE_COMMIT,
      variables: {
        input: {
          branch: { repositoryNameWithOwner: `${this.repo.owner}/${this.repo.repo}`, branchName: input.branch },
          expectedHeadOid: input.expectedHead,
          message: { headline: input.headline, body: input.body },
          fileChanges: {
            additions: input.additions.map((addition) => ({
              path: addition.path,
              contents: Buffer.from(addition.contents, "utf8").toString("base64"),
            })),
            ...(input.deletions.length > 0 && { deletions: input.deletions.map((path) => ({ path })) }),
          },
        },
      },
    });
    return data.createCommitOnBranch.commit.oid;
  }

  /** The full id of the commit a ref names (a branch, a tag or a commit id): one REST request. */
  async commitSha(ref: string): Promise<string> {
    const { data } = await this.octokit.rest.repos.getCommit({ ...this.repo, ref, per_page: 1 });
    return data.sha;
  }
}

export interface CheckRunData {
  readonly id: number;
  readonly conclusion: string | null;
  readonly app?: { readonly id: number } | null;
  readonly output?: { readonly summary?: string | null } | null;
}

export interface CheckRunBody {
  readonly name: string;
  readonly status: "completed";
  readonly conclusion: string;
  readonly completed_at: string;
  readonly details_url: string;
  readonly output: { title: string; summary: string; annotations: readonly unknown[] };
}

export interface StatusData {
  readonly context: string;
  readonly state: string;
  readonly description: string | null;
  readonly creator?: { readonly login: string } | null;
}

export interface IssueCommentData {
  readonly id: number;
  readonly body?: string | null;
  readonly user?: { readonly login: string; readonly type?: string } | null;
  readonly performed_via_github_app?: { readonly id: number } | null;
}

export interface IssueData {
  readonly number: number;
  readonly state: string;
  readonly title?: string;
  readonly body?: string | null;
  readonly user?: { readonly login: string; readonly type?: string } | null;
  readonly performed_via_github_app?: { readonly id: number } | null;
}

export interface PullData {
  readonly number: number;
  readonly user?: { readonly login: string } | null;
  readonly performed_via_github_app?: { readonly id: number } | null;
}

interface TreeNode {
  oid: string;
  entries: { name: string; mode: number; oid: string; size: number }[] | null;
}

/** A commit (with its root folder) or a folder, as the `Folders` query asks for it. */
type FolderNode = Partial<TreeNode> & { tree?: TreeNode };

/** A response body Octokit left unparsed, parsed as JSON (`{}` when there is none, or it is not JSON). */
async function parsed(body: unknown): Promise<unknown> {
  const text = body ? await new Response(body as ReadableStream).text() : "";
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}

/** Git's modes as GraphQL gives them (decimal) and as REST writes them (octal). */
const MODES: Readonly<Record<number, string>> = {
  0o100644: "100644",
  0o100755: "100755",
  0o120000: "120000",
  0o40000: "040000",
  0o160000: "160000",
};

/** Git's type of an entry, from its mode: a folder, a submodule, or else a file. */
function typeOf(mode: number): string {
  const kind = mode & 0o170000;
  return kind === 0o40000 ? "tree" : kind === 0o160000 ? "commit" : "blob";
}

/** GraphQL's answer for one folder in the REST shape: modes in octal, sizes for files only. */
function folderOf(node: FolderNode | null | undefined): FolderListing | null {
  const tree = node?.tree ?? node;
  if (!tree?.oid) return null;
  return {
    oid: tree.oid,
    entries: (tree.entries ?? []).map((entry): FolderEntry => {
      const type = typeOf(entry.mode);
      const mode = MODES[entry.mode] ?? entry.mode.toString(8).padStart(6, "0");
      return type === "blob"
        ? { name: entry.name, mode, type, oid: entry.oid, size: entry.size }
        : { name: entry.name, mode, type, oid: entry.oid };
    }),
  };
}

interface GitActorNode {
  name?: string | null;
  email?: string | null;
  user?: { login: string } | null;
}

interface LandingNode {
  associatedPullRequests?: {
    nodes: {
      number: number;
      merged: boolean;
      mergedAt?: string | null;
      baseRefName: string;
      headRefOid: string;
      author: ActorNode | null;
      mergeCommit: { oid: string } | null;
      commits?: {
        nodes: {
          commit: {
            checkSuites?: {
              nodes: {
                app: { databaseId: number | null } | null;
                checkRuns: { nodes: { name: string; conclusion: string | null }[] };
              }[];
            } | null;
          };
        }[];
      };
    }[];
  };
}

/** What one `Batch` request asks for. */
interface BatchPart {
  readonly blobs: readonly string[];
  readonly people: readonly string[];
  readonly teams: readonly string[];
  readonly commits: readonly string[];
}

/** The `Batch` question for one part: aliases `b`, `p`, `k`, `o`/`t` numbered in order. */
function batchQuestion(repo: RepoRef, part: BatchPart): GraphQLQuestion {
  const variables: Record<string, string> = { owner: repo.owner, name: repo.repo };
  part.blobs.forEach((oid, index) => (variables[`b${index}`] = oid));
  part.people.forEach((login, index) => (variables[`p${index}`] = login));
  part.commits.forEach((sha, index) => (variables[`k${index}`] = sha));
  part.teams.forEach((team, index) => {
    const [org, slug] = team.slice(1).split("/");
    variables[`o${index}`] = org!;
    variables[`t${index}`] = slug!;
  });
  const query = batchQuery({
    blobs: part.blobs.length,
    people: part.people.length,
    teams: part.teams.length,
    commits: part.commits.length,
  });
  return { query, variables };
}

/** Reads one `Batch` answer into `out`; an item GitHub could not resolve says why in `unresolved`. */
function readBatch(
  out: BatchAnswer,
  part: BatchPart,
  data: Record<string, unknown>,
  errors: readonly GraphQLErrorItem[],
): void {
  const why = (alias: string) =>
    errors.find((error) => error.path?.includes(alias))?.message ?? errors.find((error) => !error.path)?.message;
  const repository = (data.repository ?? {}) as Record<string, unknown>;
  part.blobs.forEach((oid, index) => {
    const blob = repository[`b${index}`] as BlobData | null | undefined;
    if (blob?.oid) out.blobs.set(oid, blob);
  });
  part.people.forEach((login, index) => {
    const edges = (repository[`p${index}`] as { edges?: { permission: string; node: { login: string } }[] } | null)
      ?.edges;
    const edge = edges?.find((item) => item.node.login.toLowerCase() === login.toLowerCase());
    const permission = edge ? PERMISSIONS[edge.permission] : undefined;
    if (permission) out.permissions[login] = permission;
    else if (!edges)
      out.unresolved[login] = `GitHub did not say ${login}'s permission (${why(`p${index}`) ?? "no answer"})`;
  });
  part.commits.forEach((sha, index) => {
    const found = repository[`k${index}`] as { authors?: { nodes: GitActorNode[] } } | null | undefined;
    if (!found?.authors) return;
    out.authors.set(
      sha,
      found.authors.nodes.map((node) => ({
        login: node.user?.login ?? null,
        name: node.name ?? null,
        email: node.email ?? null,
      })),
    );
  });
  part.teams.forEach((team, index) => readTeam(out, team, data[`t${index}`], why(`t${index}`)));
}

/** One team's members from a `Batch` answer, or why they are unknown or incomplete. */
function readTeam(out: BatchAnswer, team: string, answer: unknown, why: string | undefined): void {
  const found = answer as { team: { members: { totalCount?: number; nodes: { login: string }[] } } | null } | null;
  const members = found?.team?.members;
  out.teams[team] = members?.nodes.map((node) => node.login) ?? [];
  if (!found) {
    out.unresolved[team] = `GitHub could not resolve ${team} (${why ?? "unknown organization"})`;
  } else if (!members) {
    out.unresolved[team] =
      `GitHub shows no team ${team} to taskgate (it does not exist, or the app may not read the organization's members)`;
  } else if ((members.totalCount ?? 0) > members.nodes.length) {
    out.unresolved[team] =
      `${team} has ${members.totalCount} members and GitHub lists ${members.nodes.length}; the others are not recognised`;
  }
}
