/**
 * A stateful fake of one GitHub repository and one pull request, backed by a real git repository
 * and served through nock: the REST and GraphQL endpoints taskgate uses answer from git and from the
 * fake's state (reviews, check runs, comments), every GraphQL document is validated against GitHub's
 * published schema, and every request is recorded so tests can assert what was asked, and how often.
 */
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync } from "node:crypto";
import { validate as validateGraphql } from "@octokit/graphql-schema";
import nock from "nock";
import type { Review } from "../../src/core/types.js";
import type { TempRepo } from "./git.js";

export const API = "https://api.github.com";

let key: string | undefined;
/** An RSA key for the app, made once per test process (never committed). */
export function privateKey(): string {
  key ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  }).privateKey;
  return key;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** For GraphQL: the operation name. */
  readonly operation?: string;
}

export interface CheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string;
  details_url?: string;
  output: { title: string; summary: string; annotations_count: number };
  annotations: unknown[];
}

export interface IssueComment {
  id: number;
  body: string;
  user: { login: string; type: string };
}

export interface FakeOptions {
  readonly owner?: string;
  readonly name?: string;
  readonly number?: number;
  readonly base?: string;
  readonly head: string;
  readonly author?: string;
  readonly bot?: string;
  readonly fork?: boolean;
}

export class FakeGitHub {
  readonly owner: string;
  readonly name: string;
  readonly number: number;
  /** The base branch; a test may retarget the pull request. */
  base: string;
  readonly head: string;
  readonly author: string;
  readonly bot: string;
  fork: boolean;
  state = "OPEN";
  reviews: Review[] = [];
  /** GitHub's attribution of commits: sha → login (default: the git author name) and verification. */
  readonly logins = new Map<string, { login: string | null; type?: string; verified?: boolean }>();
  permissions: Record<string, "ADMIN" | "MAINTAIN" | "WRITE" | "TRIAGE" | "READ"> = {};
  teams: Record<string, string[]> = {};
  readonly checkRuns: CheckRun[] = [];
  readonly comments: IssueComment[] = [];
  readonly statuses: { sha: string; context: string; state: string; description: string; target_url?: string }[] = [];
  readonly issues: {
    number: number;
    title: string;
    body: string;
    state: string;
    labels: { name: string }[];
    user: { login: string; type: string };
  }[] = [];
  readonly pulls: {
    number: number;
    head: { ref: string };
    base: { ref: string };
    state: string;
    title: string;
    body: string;
  }[] = [];
  /** Branches that refuse the bot's commits, as a protected branch does. */
  readonly protectedBranches = new Set<string>();
  /** Who the API token belongs to (the issue and comment author): the app's bot or github-actions[bot]. */
  actor = "taskgate[bot]";
  readonly requests: RecordedRequest[] = [];
  /** Answer the next matching requests with an error status (one entry per request). */
  readonly failures: {
    method: string;
    match: RegExp;
    status: number;
    message?: string;
    headers?: Record<string, string>;
  }[] = [];
  /** List at most this many commits in a comparison, as GitHub caps it at 250. */
  commitCap = 250;
  /** Called before each request is answered: lets a test make something happen "meanwhile". */
  onRequest: ((request: RecordedRequest) => void) | undefined;
  /** How many teams' members were asked for. */
  teamQueries = 0;
  private nextId = 100;
  private readonly invalidGraphql: string[] = [];

  constructor(
    readonly repo: TempRepo,
    options: FakeOptions,
  ) {
    this.owner = options.owner ?? "acme";
    this.name = options.name ?? "web";
    this.number = options.number ?? 7;
    this.base = options.base ?? "main";
    this.head = options.head;
    this.author = options.author ?? "carol";
    this.bot = options.bot ?? "taskgate[bot]";
    this.fork = options.fork ?? false;
  }

  /** GraphQL documents that did not validate against GitHub's schema (tests expect none). */
  get schemaErrors(): readonly string[] {
    return this.invalidGraphql;
  }

  /** Requests other than the app's token exchange. */
  get apiRequests(): RecordedRequest[] {
    return this.requests.filter((request) => !request.path.includes("/access_tokens"));
  }

  git(...args: string[]): string {
    return this.repo.git(...args);
  }

  sha(ref: string): string {
    return this.git("rev-parse", ref);
  }

  /** A review of the pull request, in GitHub's REST shape. */
  review(login: string, state: string, commit: string, at: string, body = ""): Review {
    const review: Review = {
      user: { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
      state,
      commit_id: commit,
      submitted_at: at,
      body,
    };
    this.reviews.push(review);
    return review;
  }

  /** Brings the work tree up to the branch after the bot committed to it. */
  syncWorkTree(): void {
    this.git("checkout", "-q", this.head);
    this.git("reset", "-q", "--hard", `refs/heads/${this.head}`);
  }

  /** A webhook payload from GitHub's examples, pointed at this repository and pull request. */
  payload<T extends Record<string, unknown>>(example: T, overrides: Record<string, unknown> = {}): T {
    const copy = structuredClone(example) as Record<string, unknown>;
    const repository = {
      ...(copy.repository as object),
      name: this.name,
      full_name: `${this.owner}/${this.name}`,
      owner: { ...((copy.repository as { owner?: object }).owner ?? {}), login: this.owner },
    };
    const pr = copy.pull_request as Record<string, unknown> | undefined;
    const pullRequest = pr && {
      ...pr,
      number: this.number,
      head: {
        ...(pr.head as object),
        sha: this.sha(this.head),
        ref: this.head,
        repo: {
          ...((pr.head as { repo?: object }).repo ?? {}),
          full_name: this.fork ? `${this.author}/${this.name}` : `${this.owner}/${this.name}`,
        },
      },
      base: {
        ...(pr.base as object),
        sha: this.sha(this.base),
        ref: this.base,
        repo: { ...((pr.base as { repo?: object }).repo ?? {}), full_name: `${this.owner}/${this.name}` },
      },
      user: { ...(pr.user as object), login: this.author },
    };
    return {
      ...copy,
      repository,
      ...(pullRequest && { pull_request: pullRequest }),
      installation: { id: 1, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==" },
      ...overrides,
    } as unknown as T;
  }

  /** Serves the fake through nock until `nock.cleanAll()`. */
  install(): void {
    const scope = nock(API).persist();
    for (const method of ["GET", "POST", "PATCH", "DELETE", "PUT"] as const) {
      scope.intercept(/.*/, method).reply((uri, body) => this.dispatch(method, uri, body));
    }
  }

  /**
   * Serves the fake over HTTP on 127.0.0.1 (for a child process); the URL is its API root. As GitHub
   * does, it refuses (401) a request that does not carry the token `token`.
   */
  async serve(token = "ghs_actiontoken"): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((request, response) => {
      if (!new RegExp(`^(token|bearer) ${token}$`, "i").test(request.headers.authorization ?? "")) {
        this.requests.push({ method: request.method ?? "GET", path: `${request.url ?? "/"} (refused: no token)` });
        response.writeHead(401, { "content-type": "application/json" });
        response.end(JSON.stringify({ message: "Requires authentication" }));
        request.resume();
        return;
      }
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        const [status, payload, headers] = this.dispatch(request.method ?? "GET", request.url ?? "/", body);
        response.writeHead(status, { "content-type": "application/json", ...(headers ?? {}) });
        response.end(status === 204 ? undefined : JSON.stringify(payload));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** One request to the fake GitHub: the REST and GraphQL endpoints taskgate uses. */
  dispatch(method: string, uri: string, body: unknown): [number, unknown] | [number, unknown, Record<string, string>] {
    const base = `/repos/${this.owner}/${this.name}`;
    const path = uri.split("?")[0]!;
    const route = (pattern: string) => new RegExp(`^${base}${pattern}$`).test(path);
    if (method === "POST" && /^\/app\/installations\/\d+\/access_tokens$/.test(path)) {
      this.requests.push({ method: "POST", path: "/app/installations/1/access_tokens" });
      return [
        201,
        { token: "ghs_test", expires_at: "2999-01-01T00:00:00Z", permissions: {}, repository_selection: "all" },
      ];
    }
    if (method === "POST" && path === "/graphql")
      return this.graphql(body as { query: string; variables: Record<string, unknown> });
    const handle = (): [number, unknown] => {
      if (method === "GET" && route("/compare/.+")) return this.compare(uri);
      if (method === "GET" && route("/git/trees/.+")) return this.tree(uri);
      if (method === "GET" && route("/commits/[^/]+/check-runs")) return this.listChecks(uri);
      if (method === "POST" && route("/check-runs")) return this.createCheck(body as never);
      if (method === "PATCH" && route("/check-runs/\\d+")) return this.updateCheck(uri, body as never);
      if (method === "GET" && route("/commits/[^/]+/statuses")) return this.listStatuses(uri);
      if (method === "POST" && route("/statuses/[0-9a-f]+")) return this.createStatus(uri, body as never);
      if (method === "GET" && route("/commits")) return this.listCommits(uri);
      if (method === "GET" && route("/commits/[^/]+")) return this.getCommit(uri);
      if (method === "GET" && route("/issues/\\d+/comments")) return [200, this.comments.map((c) => ({ ...c }))];
      if (method === "POST" && route("/issues/\\d+/comments")) return this.createComment(body as { body: string });
      if (method === "PATCH" && route("/issues/comments/\\d+"))
        return this.updateComment(uri, body as { body: string });
      if (method === "DELETE" && route("/issues/comments/\\d+")) return this.deleteComment(uri);
      if (method === "GET" && route("/issues")) return [200, this.issues.map((issue) => ({ ...issue }))];
      if (method === "POST" && route("/issues")) return this.createIssue(body as never);
      if (method === "PATCH" && route("/issues/\\d+")) return this.updateIssue(uri, body as never);
      if (method === "PATCH" && route("/git/refs/.+")) return this.setRef(uri, body as { sha: string }, false);
      if (method === "POST" && route("/git/refs")) return this.setRef(uri, body as { ref: string; sha: string }, true);
      if (method === "GET" && route("/pulls")) return [200, this.pulls.filter((pull) => pull.state === "open")];
      if (method === "POST" && route("/pulls")) return this.createPull(body as never);
      if (method === "PATCH" && route("/pulls/\\d+")) return [200, {}];
      return [404, { message: `the fake has no ${method} ${path}` }];
    };
    return this.answer(method, uri, handle);
  }

  private answer(
    method: string,
    uri: string,
    handle: () => [number, unknown],
  ): [number, unknown] | [number, unknown, Record<string, string>] {
    const path = uri.split("?")[0]!;
    this.requests.push({ method, path });
    this.onRequest?.({ method, path });
    const failure = this.failures.findIndex((item) => item.method === method && item.match.test(path));
    if (failure >= 0) {
      const [item] = this.failures.splice(failure, 1);
      return [item!.status, { message: item!.message ?? "fake failure" }, item!.headers ?? {}];
    }
    return handle();
  }

  private graphql(body: { query: string; variables: Record<string, unknown> }): [number, unknown] {
    const operation = /(?:query|mutation)\s+(\w+)/.exec(body.query)?.[1] ?? "anonymous";
    this.requests.push({ method: "POST", path: "/graphql", operation });
    this.onRequest?.({ method: "POST", path: "/graphql", operation });
    const errors = validateGraphql(body.query) as readonly { message: string }[];
    if (errors.length > 0) {
      this.invalidGraphql.push(`${operation}: ${errors.map((error) => error.message).join("; ")}`);
      return [200, { errors: errors.map((error) => ({ message: error.message })) }];
    }
    const failure = this.failures.findIndex((item) => item.method === "GRAPHQL" && item.match.test(operation));
    if (failure >= 0) {
      const [item] = this.failures.splice(failure, 1);
      if (item!.status === 200)
        return [200, { data: null, errors: [{ type: "STALE_DATA", message: item!.message ?? "stale" }] }];
      return [item!.status, { message: item!.message ?? "fake failure" }];
    }
    switch (operation) {
      case "PullRequestFacts":
        return [200, { data: this.facts() }];
      case "Batch":
        return [200, { data: this.batch(body.variables) }];
      case "RecordDecisions":
        return this.createCommit(body.variables.input as never);
      case "DefaultBranch":
        return [
          200,
          { data: { repository: { defaultBranchRef: { name: this.base, target: { oid: this.sha(this.base) } } } } },
        ];
      case "Authorizations":
        return [200, { data: { repository: this.authorizations(body.variables) } }];
      default:
        return [200, { errors: [{ message: `the fake does not know ${operation}` }] }];
    }
  }

  private facts(): unknown {
    const baseTip = this.sha(this.base);
    const config = this.blobAt(baseTip, ".github/taskgate.yml");
    return {
      repository: {
        pullRequest: {
          number: this.number,
          state: this.state,
          isCrossRepository: this.fork,
          headRefName: this.head,
          headRefOid: this.sha(this.head),
          baseRefName: this.base,
          baseRefOid: baseTip,
          url: `https://github.com/${this.owner}/${this.name}/pull/${this.number}`,
          author: { login: this.author },
          headRepository: { nameWithOwner: this.fork ? `${this.author}/${this.name}` : `${this.owner}/${this.name}` },
          reviews: {
            pageInfo: { hasNextPage: false, endCursor: null },
            nodes: this.reviews.map((review) => ({
              author: { __typename: review.user?.type === "Bot" ? "Bot" : "User", login: review.user?.login },
              state: review.state,
              commit: review.commit_id ? { oid: review.commit_id } : null,
              submittedAt: review.submitted_at ?? null,
              body: review.body ?? "",
            })),
          },
          baseRef: { target: { oid: baseTip, file: config ? { object: config } : null } },
        },
      },
    };
  }

  private blobAt(rev: string, path: string): unknown {
    try {
      const oid = this.git("rev-parse", `${rev}:${path}`);
      return this.blob(oid);
    } catch {
      return null;
    }
  }

  private blob(oid: string): unknown {
    const raw = execFileSync("git", ["cat-file", "blob", oid], { cwd: this.repo.dir });
    const binary = raw.subarray(0, 8000).includes(0);
    return {
      oid,
      text: binary ? null : raw.toString("utf8"),
      isBinary: binary,
      isTruncated: false,
      byteSize: raw.length,
    };
  }

  private batch(variables: Record<string, unknown>): unknown {
    const repository: Record<string, unknown> = {};
    const top: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(variables)) {
      const index = name.slice(1);
      if (/^b\d+$/.test(name)) {
        try {
          repository[`b${index}`] = this.blob(String(value));
        } catch {
          repository[`b${index}`] = null;
        }
      } else if (/^p\d+$/.test(name)) {
        const login = String(value);
        const permission = Object.entries(this.permissions).find(
          ([who]) => who.toLowerCase() === login.toLowerCase(),
        )?.[1];
        repository[`p${index}`] = { edges: permission ? [{ permission, node: { login } }] : [] };
      } else if (/^o\d+$/.test(name)) {
        this.teamQueries++;
        const slug = String(variables[`t${index}`]);
        const members = this.teams[`@${String(value)}/${slug}`];
        top[`t${index}`] = {
          team: members
            ? { members: { totalCount: members.length, nodes: members.map((login) => ({ login })) } }
            : null,
        };
      }
    }
    return { repository, ...top };
  }

  private compare(uri: string): [number, unknown] {
    const basehead = decodeURIComponent(uri.split("/compare/")[1]!.split("?")[0]!);
    const [base, head] = basehead.split("...");
    const mergeBase = this.git("merge-base", base!, head!);
    const log = this.git("log", "--reverse", "--topo-order", "--format=%H %P%x00%an", `${mergeBase}..${head}`);
    const commits = log
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [shas, name] = line.split("\u0000");
        const [sha, ...parents] = shas!.split(" ");
        const who = this.logins.get(sha!) ?? { login: name ?? null };
        return {
          sha,
          author: who.login
            ? { login: who.login, type: who.type ?? (who.login.endsWith("[bot]") ? "Bot" : "User") }
            : null,
          parents: parents.filter(Boolean).map((parent) => ({ sha: parent })),
          commit: { author: { name }, verification: { verified: who.verified ?? false } },
        };
      });
    return [
      200,
      {
        merge_base_commit: { sha: mergeBase },
        total_commits: commits.length,
        commits: commits.slice(0, this.commitCap),
        files: [],
      },
    ];
  }

  private tree(uri: string): [number, unknown] {
    const sha = decodeURIComponent(uri.split("/git/trees/")[1]!.split("?")[0]!);
    let listing: string;
    try {
      listing = execFileSync("git", ["ls-tree", "-r", "-l", "-z", sha], { cwd: this.repo.dir, encoding: "utf8" });
    } catch {
      return [404, { message: "Not Found" }];
    }
    const tree = listing
      .split("\u0000")
      .filter(Boolean)
      .map((record) => {
        const [meta, path] = record.split("\t");
        const [mode, type, oid, size] = meta!.split(/ +/);
        return { path, mode, type, sha: oid, ...(type === "blob" && { size: Number(size) }) };
      });
    return [200, { sha, tree, truncated: false }];
  }

  private createCommit(input: {
    branch: { branchName: string };
    expectedHeadOid: string;
    message: { headline: string; body?: string };
    fileChanges: { additions?: { path: string; contents: string }[]; deletions?: { path: string }[] };
  }): [number, unknown] {
    const ref = `refs/heads/${input.branch.branchName}`;
    if (this.protectedBranches.has(input.branch.branchName)) {
      return [
        200,
        {
          data: null,
          errors: [
            {
              type: "FORBIDDEN",
              message: "Protected branch update failed: changes must be made through a pull request",
            },
          ],
        },
      ];
    }
    const current = this.sha(ref);
    if (current !== input.expectedHeadOid) {
      return [
        200,
        {
          data: null,
          errors: [
            { type: "STALE_DATA", message: `Expected branch to point to "${input.expectedHeadOid}" but it did not.` },
          ],
        },
      ];
    }
    const index = `${this.repo.dir}/.git/fake-index`;
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const run = (args: string[], input?: Buffer) =>
      execFileSync("git", args, { cwd: this.repo.dir, env, input }).toString("utf8").trim();
    run(["read-tree", current]);
    for (const addition of input.fileChanges.additions ?? []) {
      const blob = run(["hash-object", "-w", "--stdin"], Buffer.from(addition.contents, "base64"));
      run(["update-index", "--add", "--cacheinfo", `100644,${blob},${addition.path}`]);
    }
    for (const deletion of input.fileChanges.deletions ?? []) run(["update-index", "--force-remove", deletion.path]);
    const tree = run(["write-tree"]);
    const commit = execFileSync(
      "git",
      ["commit-tree", tree, "-p", current, "-m", `${input.message.headline}\n\n${input.message.body ?? ""}`],
      {
        cwd: this.repo.dir,
        env: {
          ...env,
          GIT_AUTHOR_NAME: this.actor,
          GIT_AUTHOR_EMAIL: "bot@example.com",
          GIT_COMMITTER_NAME: "GitHub",
          GIT_COMMITTER_EMAIL: "noreply@github.com",
        },
      },
    )
      .toString("utf8")
      .trim();
    run(["update-ref", ref, commit, current]);
    this.logins.set(commit, { login: this.actor, type: "Bot", verified: true });
    return [200, { data: { createCommitOnBranch: { commit: { oid: commit } } } }];
  }

  private commitJson(sha: string, files?: string[]): unknown {
    const [line] = this.git("log", "-1", "--format=%H %P%x00%an", sha).split("\n");
    const [shas, name] = line!.split("\u0000");
    const [, ...parents] = shas!.split(" ");
    const who = this.logins.get(sha) ?? { login: name ?? null };
    return {
      sha,
      author: who.login ? { login: who.login, type: who.type ?? (who.login.endsWith("[bot]") ? "Bot" : "User") } : null,
      parents: parents.filter(Boolean).map((parent) => ({ sha: parent })),
      commit: { author: { name }, verification: { verified: who.verified ?? false } },
      ...(files && { files: files.map((filename) => ({ filename })) }),
    };
  }

  private listCommits(uri: string): [number, unknown] {
    const params = new URL(uri, API).searchParams;
    const count = Number(params.get("per_page") ?? 30);
    const shas = this.git("rev-list", `--max-count=${count}`, params.get("sha") ?? this.base)
      .split("\n")
      .filter(Boolean);
    return [200, shas.map((sha) => this.commitJson(sha))];
  }

  private getCommit(uri: string): [number, unknown] {
    const sha = this.sha(decodeURIComponent(uri.split("/commits/")[1]!.split("?")[0]!));
    const files = this.git("diff-tree", "--no-commit-id", "--name-only", "-r", "-m", "--root", sha)
      .split("\n")
      .filter(Boolean);
    return [200, this.commitJson(sha, [...new Set(files)])];
  }

  /** Commits that belong to a merged pull request whose taskgate check passed (set by the test). */
  readonly passedMerges = new Set<string>();

  private authorizations(variables: Record<string, unknown>): unknown {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(variables)) {
      if (!/^c\d+$/.test(name)) continue;
      const oid = String(value);
      const passed = this.passedMerges.has(oid);
      out[name] = {
        oid,
        associatedPullRequests: {
          nodes: passed
            ? [
                {
                  number: 1,
                  merged: true,
                  baseRefName: this.base,
                  commits: {
                    nodes: [
                      {
                        commit: {
                          statusCheckRollup: {
                            contexts: {
                              nodes: [
                                { __typename: "CheckRun", name: `taskgate: ${this.base}`, conclusion: "SUCCESS" },
                              ],
                            },
                          },
                        },
                      },
                    ],
                  },
                },
              ]
            : [],
        },
      };
    }
    return out;
  }

  private listStatuses(uri: string): [number, unknown] {
    const ref = decodeURIComponent(uri.split("/commits/")[1]!.split("/")[0]!);
    return [
      200,
      this.statuses
        .filter((status) => status.sha === ref)
        .reverse()
        .map((status) => ({ ...status })),
    ];
  }

  private createStatus(
    uri: string,
    body: { state: string; context: string; description: string; target_url?: string },
  ): [number, unknown] {
    const sha = uri.split("/statuses/")[1]!.split("?")[0]!;
    const status = { sha, ...body };
    this.statuses.push(status);
    return [201, status];
  }

  private createIssue(body: { title: string; body: string; labels?: string[] }): [number, unknown] {
    const issue = {
      number: this.nextId++,
      title: body.title,
      body: body.body,
      state: "open",
      labels: (body.labels ?? []).map((name) => ({ name })),
      user: { login: this.actor, type: "Bot" },
    };
    this.issues.push(issue);
    return [201, issue];
  }

  private updateIssue(uri: string, body: { title?: string; body?: string; state?: string }): [number, unknown] {
    const issue = this.issues.find((item) => item.number === Number(uri.split("/issues/")[1]!.split("?")[0]));
    if (!issue) return [404, { message: "Not Found" }];
    Object.assign(issue, Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)));
    return [200, issue];
  }

  private setRef(uri: string, body: { ref?: string; sha: string }, create: boolean): [number, unknown] {
    const ref = create ? body.ref! : `refs/${decodeURIComponent(uri.split("/git/refs/")[1]!.split("?")[0]!)}`;
    try {
      this.git("rev-parse", "--verify", ref);
      if (create) return [422, { message: "Reference already exists" }];
    } catch {
      if (!create) return [422, { message: "Reference does not exist" }];
    }
    this.git("update-ref", ref, body.sha);
    return [create ? 201 : 200, { ref, object: { sha: body.sha } }];
  }

  private createPull(body: { head: string; base: string; title: string; body: string }): [number, unknown] {
    const pull = {
      number: this.nextId++,
      head: { ref: body.head },
      base: { ref: body.base },
      state: "open",
      title: body.title,
      body: body.body,
    };
    this.pulls.push(pull);
    return [201, pull];
  }

  private listChecks(uri: string): [number, unknown] {
    const ref = decodeURIComponent(uri.split("/commits/")[1]!.split("/")[0]!);
    const name = new URL(uri, API).searchParams.get("check_name");
    const runs = this.checkRuns.filter((run) => run.head_sha === ref && (!name || run.name === name));
    return [200, { total_count: runs.length, check_runs: runs.map((run) => ({ ...run })) }];
  }

  private createCheck(
    body: CheckRun & { output: { title: string; summary: string; annotations?: unknown[] } },
  ): [number, unknown] {
    const run: CheckRun = {
      id: this.nextId++,
      name: body.name,
      head_sha: body.head_sha,
      status: body.status,
      conclusion: body.conclusion,
      ...(body.details_url && { details_url: body.details_url }),
      output: {
        title: body.output.title,
        summary: body.output.summary,
        annotations_count: body.output.annotations?.length ?? 0,
      },
      annotations: [...(body.output.annotations ?? [])],
    };
    this.checkRuns.push(run);
    return [201, run];
  }

  private updateCheck(
    uri: string,
    body: Partial<CheckRun> & { output?: { title: string; summary: string; annotations?: unknown[] } },
  ): [number, unknown] {
    const id = Number(uri.split("/check-runs/")[1]);
    const run = this.checkRuns.find((item) => item.id === id);
    if (!run) return [404, { message: "Not Found" }];
    if (body.conclusion) run.conclusion = body.conclusion;
    if (body.output) {
      run.annotations.push(...(body.output.annotations ?? []));
      run.output = {
        title: body.output.title,
        summary: body.output.summary,
        annotations_count: run.annotations.length,
      };
    }
    return [200, run];
  }

  private createComment(body: { body: string }): [number, unknown] {
    const comment = { id: this.nextId++, body: body.body, user: { login: this.actor, type: "Bot" } };
    this.comments.push(comment);
    return [201, comment];
  }

  private updateComment(uri: string, body: { body: string }): [number, unknown] {
    const comment = this.comments.find((item) => item.id === Number(uri.split("/comments/")[1]));
    if (!comment) return [404, { message: "Not Found" }];
    comment.body = body.body;
    return [200, comment];
  }

  private deleteComment(uri: string): [number, unknown] {
    const at = this.comments.findIndex((item) => item.id === Number(uri.split("/comments/")[1]));
    if (at < 0) return [404, { message: "Not Found" }];
    this.comments.splice(at, 1);
    return [204, ""];
  }
}
