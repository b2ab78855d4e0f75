/**
 * The GitHub calls taskgate makes, one method each, with what each costs. The only module besides
 * the writers that knows Octokit; everything above it works with plain data.
 */
import type { Octokit as RestOctokit } from "@octokit/rest";
import type { Permission, Review } from "../core/types.js";
import { CONFIG_PATH } from "../core/config-path.js";
import { DEFAULT_BRANCH, PULL_REQUEST_FACTS, authorizationQuery, batchQuery } from "./queries.js";

/** What taskgate needs of an Octokit: Probot's (the app) and @octokit/rest's (the Action) both fit. */
export type Octokit = Pick<RestOctokit, "rest" | "graphql" | "paginate">;

export interface RepoRef {
  readonly owner: string;
  readonly repo: string;
}

/** GitHub lists at most this many commits of a comparison; more are never judged as if complete. */
export const MAX_COMMITS = 250;
/** Blobs, permissions and teams asked for in one GraphQL request. */
export const BATCH_SIZE = 200;

export interface BlobData {
  readonly oid: string;
  readonly text: string | null;
  readonly isBinary: boolean | null;
  readonly isTruncated: boolean;
  readonly byteSize: number;
}

export interface PullRequestFacts {
  readonly number: number;
  readonly state: string;
  readonly isCrossRepository: boolean;
  readonly headRefName: string;
  readonly headRefOid: string;
  readonly headRepository: string | null;
  readonly baseRefName: string;
  readonly url: string;
  readonly author: string;
  /** The tip of the base branch: the config is read there. */
  readonly baseTip: string;
  readonly config: BlobData | null;
  readonly reviews: Review[];
}

/** A commit of a comparison, in the REST API's shape (the one `PR.json` uses too). */
export interface CompareCommit {
  readonly sha: string;
  readonly author: { readonly login: string; readonly type?: string } | null;
  readonly parents: readonly { readonly sha: string }[];
  readonly commit: {
    readonly author: { readonly name?: string } | null;
    readonly verification?: { readonly verified: boolean } | null;
  };
}

export interface Comparison {
  readonly mergeBase: string;
  readonly totalCommits: number;
  readonly commits: readonly CompareCommit[];
}

export interface TreeEntry {
  readonly path: string;
  readonly mode: string;
  readonly type: string;
  readonly sha: string;
  readonly size?: number;
}

export interface Tree {
  readonly sha: string;
  readonly entries: readonly TreeEntry[];
  /** GitHub cut the listing short (over 100,000 entries or 7 MB). */
  readonly truncated: boolean;
}

interface ReviewNode {
  author: { __typename: string; login: string } | null;
  state: string;
  commit: { oid: string } | null;
  submittedAt: string | null;
  body: string | null;
}

interface FactsResponse {
  repository: {
    pullRequest: {
      number: number;
      state: string;
      isCrossRepository: boolean;
      headRefName: string;
      headRefOid: string;
      baseRefName: string;
      baseRefOid: string;
      url: string;
      author: { login: string } | null;
      headRepository: { nameWithOwner: string } | null;
      reviews: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ReviewNode[] };
      baseRef: { target: { oid?: string; file?: { object: BlobData | null } | null } | null } | null;
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

export class GitHubApi {
  /** Answers to questions asked before this object existed (the Action's first request): each used once. */
  private readonly offered = new Map<string, Promise<unknown>>();

  constructor(
    readonly octokit: Octokit,
    readonly repo: RepoRef,
  ) {}

  /**
   * Hands over the answer to a question already asked (the `data` of a GraphQL response, or
   * `undefined` when that request failed): the first call asking the same question takes it instead
   * of asking again, and asks through Octokit after all when the answer is `undefined`.
   */
  offer(question: GraphQLQuestion, answer: Promise<unknown>): void {
    this.offered.set(questionKey(question), answer);
  }

  private async graphql<T>(question: GraphQLQuestion): Promise<T> {
    const key = questionKey(question);
    const offered = this.offered.get(key);
    if (offered) {
      this.offered.delete(key);
      const data = await offered.catch(() => undefined);
      if (data !== undefined) return data as T;
    }
    return this.octokit.graphql<T>(question.query, question.variables);
  }

  /** The pull request, its reviews and the base branch's config: one GraphQL request per 100 reviews. */
  async pullRequest(number: number, configPath: string = CONFIG_PATH): Promise<PullRequestFacts | undefined> {
    const reviews: Review[] = [];
    let after: string | null = null;
    let first: NonNullable<NonNullable<FactsResponse["repository"]>["pullRequest"]> | undefined;
    do {
      const response: FactsResponse = await this.graphql<FactsResponse>(
        pullRequestQuestion(this.repo, number, configPath, after),
      );
      const pr = response.repository?.pullRequest;
      if (!pr) return undefined;
      first ??= pr;
      for (const node of pr.reviews.nodes) {
        if (!node.author) continue;
        reviews.push({
          user: { login: node.author.login, type: node.author.__typename === "Bot" ? "Bot" : "User" },
          state: node.state,
          commit_id: node.commit?.oid ?? null,
          submitted_at: node.submittedAt,
          body: node.body,
        });
      }
      after = pr.reviews.pageInfo.hasNextPage ? pr.reviews.pageInfo.endCursor : null;
    } while (after);
    const target = first.baseRef?.target;
    return {
      number: first.number,
      state: first.state,
      isCrossRepository: first.isCrossRepository,
      headRefName: first.headRefName,
      headRefOid: first.headRefOid,
      headRepository: first.headRepository?.nameWithOwner ?? null,
      baseRefName: first.baseRefName,
      url: first.url,
      author: first.author?.login ?? "ghost",
      baseTip: target?.oid ?? first.baseRefOid,
      config: target?.file?.object ?? null,
      reviews,
    };
  }

  /** The merge base and the commits of `base...head` (up to 250 in one request). */
  async compare(base: string, head: string): Promise<Comparison> {
    const { data } = await this.octokit.rest.repos.compareCommitsWithBasehead({
      owner: this.repo.owner,
      repo: this.repo.repo,
      basehead: `${base}...${head}`,
    });
    return {
      mergeBase: data.merge_base_commit.sha,
      totalCommits: data.total_commits,
      commits: data.commits as unknown as CompareCommit[],
    };
  }

  /** Every entry of a commit's tree: one request, whatever the size (GitHub says when it cut it short). */
  async tree(sha: string): Promise<Tree> {
    const { data } = await this.octokit.rest.git.getTree({
      owner: this.repo.owner,
      repo: this.repo.repo,
      tree_sha: sha,
      recursive: "1",
    });
    return { sha, entries: data.tree as TreeEntry[], truncated: data.truncated };
  }

  /**
   * Blob contents, repository permissions and team members in as few GraphQL requests as the batch
   * size allows (one for a typical pull request).
   */
  async batch(request: { blobs: readonly string[]; people: readonly string[]; teams: readonly string[] }): Promise<{
    blobs: Map<string, BlobData>;
    permissions: Record<string, Permission>;
    teams: Record<string, string[]>;
  }> {
    const blobs = new Map<string, BlobData>();
    const permissions: Record<string, Permission> = {};
    const teams: Record<string, string[]> = {};
    const pending = {
      blobs: [...new Set(request.blobs)],
      people: [...new Set(request.people)],
      teams: [...new Set(request.teams)],
    };
    while (pending.blobs.length + pending.people.length + pending.teams.length > 0) {
      const take = (list: string[], room: number) => list.splice(0, Math.min(list.length, room));
      const people = take(pending.people, BATCH_SIZE);
      const teamSlugs = take(pending.teams, BATCH_SIZE - people.length);
      const oids = take(pending.blobs, BATCH_SIZE - people.length - teamSlugs.length);
      const variables: Record<string, string> = { owner: this.repo.owner, name: this.repo.repo };
      oids.forEach((oid, index) => (variables[`b${index}`] = oid));
      people.forEach((login, index) => (variables[`p${index}`] = login));
      teamSlugs.forEach((team, index) => {
        const [org, slug] = team.slice(1).split("/");
        variables[`o${index}`] = org!;
        variables[`t${index}`] = slug!;
      });
      const query = batchQuery({ blobs: oids.length, people: people.length, teams: teamSlugs.length });
      const data = await this.octokit.graphql<Record<string, unknown>>(query, variables);
      const repository = (data.repository ?? {}) as Record<string, unknown>;
      oids.forEach((oid, index) => {
        const blob = repository[`b${index}`] as BlobData | null | undefined;
        if (blob?.oid) blobs.set(oid, blob);
      });
      people.forEach((login, index) => {
        const edges = (repository[`p${index}`] as { edges?: { permission: string; node: { login: string } }[] } | null)
          ?.edges;
        const edge = edges?.find((item) => item.node.login.toLowerCase() === login.toLowerCase());
        const permission = edge ? PERMISSIONS[edge.permission] : undefined;
        if (permission) permissions[login] = permission;
      });
      teamSlugs.forEach((team, index) => {
        const found = data[`t${index}`] as { team: { members: { nodes: { login: string }[] } } | null } | null;
        teams[team] = found?.team?.members.nodes.map((node) => node.login) ?? [];
      });
    }
    return { blobs, permissions, teams };
  }

  /** The default branch and its tip: one GraphQL request. */
  async defaultBranch(): Promise<{ name: string; sha: string }> {
    const data = await this.graphql<{
      repository: { defaultBranchRef: { name: string; target: { oid: string } } | null };
    }>(defaultBranchQuestion(this.repo));
    const ref = data.repository.defaultBranchRef;
    if (!ref) throw new Error(`${this.repo.owner}/${this.repo.repo} has no default branch`);
    return { name: ref.name, sha: ref.target.oid };
  }

  /** The latest commits of a branch (one request for up to 100). */
  async recentCommits(sha: string, count: number): Promise<CompareCommit[]> {
    const { data } = await this.octokit.rest.repos.listCommits({ ...this.repo, sha, per_page: Math.min(count, 100) });
    return data as unknown as CompareCommit[];
  }

  /** One commit with the files it changed: one request (the audit without a checkout). */
  async commitFiles(sha: string): Promise<{ commit: CompareCommit; files: string[] }> {
    const { data } = await this.octokit.rest.repos.getCommit({ ...this.repo, ref: sha, per_page: 100 });
    const files = (data.files ?? []).flatMap((file) => [
      file.filename,
      ...(file.previous_filename ? [file.previous_filename] : []),
    ]);
    return { commit: data as unknown as CompareCommit, files };
  }

  /**
   * For each commit, whether it belongs to a merged pull request into `base` whose check or status
   * `name` succeeded on its last commit. One GraphQL request per 50 commits.
   */
  async authorized(shas: readonly string[], base: string, name: string): Promise<Set<string>> {
    const out = new Set<string>();
    for (let start = 0; start < shas.length; start += 50) {
      const batch = shas.slice(start, start + 50);
      const variables: Record<string, string> = { owner: this.repo.owner, name: this.repo.repo };
      batch.forEach((sha, index) => (variables[`c${index}`] = sha));
      const data = await this.octokit.graphql<{ repository: Record<string, AuthorizationNode | null> }>(
        authorizationQuery(batch.length),
        variables,
      );
      batch.forEach((sha, index) => {
        const pulls = data.repository[`c${index}`]?.associatedPullRequests?.nodes ?? [];
        const passed = pulls.some(
          (pull) =>
            pull.merged &&
            pull.baseRefName === base &&
            (pull.commits.nodes[0]?.commit.statusCheckRollup?.contexts.nodes ?? []).some(
              (context) =>
                (context.__typename === "CheckRun" && context.name === name && context.conclusion === "SUCCESS") ||
                (context.__typename === "StatusContext" && context.context === name && context.state === "SUCCESS"),
            ),
        );
        if (passed) out.add(sha);
      });
    }
    return out;
  }
}

interface AuthorizationNode {
  associatedPullRequests?: {
    nodes: {
      merged: boolean;
      baseRefName: string;
      commits: {
        nodes: {
          commit: {
            statusCheckRollup: {
              contexts: {
                nodes: { __typename: string; name?: string; conclusion?: string; context?: string; state?: string }[];
              };
            } | null;
          };
        }[];
      };
    }[];
  };
}
