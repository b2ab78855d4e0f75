/**
 * A stateful fake of one GitHub repository and one pull request, backed by a real git repository
 * and served through nock: the REST and GraphQL endpoints taskgate uses answer from git and from the
 * fake's state (reviews, check runs, comments), every GraphQL document is validated against GitHub's
 * published schema, every REST request against GitHub's published OpenAPI description (and for the
 * API version it names), and every request is recorded so tests can assert what was asked, and how
 * often.
 */
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync } from "node:crypto";
import { validate as validateGraphql } from "@octokit/graphql-schema";
import nock from "nock";
import type { Review } from "../../src/core/kernel/types.js";
import type { TempRepo } from "./git.js";
import { loadOpenApi, validateRequest } from "./openapi.js";

export const API = "https://api.github.com";
/** GitHub's web side (the OAuth web flow). */
export const WEB = "https://github.com";

/** The REST API version every REST request must name in `X-GitHub-Api-Version`. */
export const API_VERSION = "2022-11-28";

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
  /** The query string's parameters (absent when there is no query string). */
  readonly query?: Readonly<Record<string, string>>;
  /** The body: parsed JSON (the text if it is not JSON); absent when there is none. */
  readonly body?: unknown;
  /** The request's headers, by lower-cased name. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The bytes of the answer's body, as GitHub would send it (set once it is answered). */
  readonly bytes?: number;
}

/** What a request carried besides its method and path. */
type Carried = Pick<RecordedRequest, "query" | "body" | "headers">;

/** Headers by lower-cased name, a repeated one joined as HTTP joins it. */
function lowerCased(headers: Readonly<Record<string, string | string[] | number | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

export interface CheckRun {
  id: number;
  /** The app that made it: GitHub files a check run under its creator's app, and nobody else may update it. */
  app: { id: number; slug: string };
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
  /** The app whose token wrote it (GitHub's `performed_via_github_app`), `null` for a person. */
  performed_via_github_app: { id: number; slug: string } | null;
}

/** Who a token is: its account's login and, for an app's installation token, the app. */
export interface Actor {
  readonly login: string;
  readonly type: "Bot" | "User";
  readonly app: { id: number; slug: string } | null;
}

/** The identities tests act as. */
export const ACTORS: Readonly<Record<string, Actor>> = {
  "taskgate[bot]": { login: "taskgate[bot]", type: "Bot", app: { id: 1, slug: "taskgate" } },
  "github-actions[bot]": { login: "github-actions[bot]", type: "Bot", app: { id: 15368, slug: "github-actions" } },
};

/** A merged pull request of the fake's history (set up by a test). */
export interface MergedPull {
  readonly number: number;
  readonly base: string;
  readonly head: string;
  /** The commit that landed it on the base branch (a merge, a squash, or the last of a rebased series). */
  readonly mergeCommit: string;
  /** Commits that belong to it (its own, and the rebased copies on the base branch). */
  readonly commits: readonly string[];
  readonly author: string;
  readonly mergedAt: string;
  readonly reviews?: readonly Review[];
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

/** A full object id. */
const OID = /^[0-9a-f]{40}$/;
/** git commands that only read. */
const READS = new Set(["rev-parse", "log", "ls-tree", "merge-base", "diff", "rev-list", "show", "cat-file"]);
/** An argument that names objects by id only (or is an option): its answer never changes. */
function byIdOnly(arg: string): boolean {
  return arg.startsWith("-") || /^[0-9a-f]{40}(?:(?:\^\{\w*\}|[~^]\d*)*(?::[^\0]*)?|\.\.\.?[0-9a-f]{40})$/.test(arg);
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
  /**
   * GitHub's attribution of commits: sha → author login (default: the git author name), committer
   * login (default: none linked), and signature verification.
   */
  readonly logins = new Map<
    string,
    { login: string | null; type?: string; verified?: boolean; committer?: string | null }
  >();
  /** E-mail addresses GitHub links to accounts (for `Co-authored-by:` trailers). */
  readonly emailLogins: Record<string, string> = {};
  /** Merged pull requests of the history, for the audit (set up by a test). */
  readonly merged: MergedPull[] = [];
  /** GitHub's clock: every answer is one second later, and says so in its `Date` header. */
  now = Date.parse("2026-12-01T10:00:00Z");
  permissions: Record<string, "ADMIN" | "MAINTAIN" | "WRITE" | "TRIAGE" | "READ"> = {};
  teams: Record<string, string[]> = {};
  readonly checkRuns: CheckRun[] = [];
  readonly comments: IssueComment[] = [];
  readonly statuses: {
    sha: string;
    context: string;
    state: string;
    description: string;
    target_url?: string;
    creator: { login: string };
  }[] = [];
  readonly issues: {
    number: number;
    title: string;
    body: string;
    state: string;
    labels: { name: string }[];
    user: { login: string; type: string };
    performed_via_github_app: { id: number; slug: string } | null;
  }[] = [];
  readonly pulls: {
    number: number;
    head: { ref: string };
    base: { ref: string };
    state: string;
    title: string;
    body: string;
    user: { login: string; type: string };
    performed_via_github_app: { id: number; slug: string } | null;
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
  /**
   * Cut a REST tree listing after this many entries, or once its `tree` array would pass
   * `treeByteCap` bytes, and say `truncated: true`, as GitHub does (100,000 entries or 7 MB; a test
   * sets a small cap to meet the mechanism). A listing without `recursive` is cut the same way.
   */
  treeEntryCap = 100_000;
  treeByteCap = 7 * 1024 * 1024;
  /**
   * Cut GraphQL's `Tree.entries` after this many entries, silently (GraphQL has no `truncated`):
   * GitHub documents no such cut; a test sets one to show that a cut listing is never trusted.
   */
  graphqlEntryCap = Number.POSITIVE_INFINITY;
  /** Called before each request is answered: lets a test make something happen "meanwhile". */
  onRequest: ((request: RecordedRequest) => void) | undefined;
  /** Answers held back until a test releases them (computed when asked, delivered later). */
  private readonly holds: {
    match: (request: RecordedRequest) => boolean;
    released: Promise<void>;
    reached: () => void;
    /** `before`: the request reaches GitHub late (a write in transit); `after`: its answer does. */
    when: "before" | "after";
  }[] = [];
  /** How many teams' members were asked for. */
  teamQueries = 0;
  /**
   * GitHub's OAuth web flow for the App's pages: its credentials, who signs in next at
   * `/login/oauth/authorize`, and which people may read this repository (`GET /repos/:owner/:repo`
   * answers 200 to their tokens, 404 to anyone else's). A person's token is `ghu_<login>`.
   */
  readonly oauth = {
    clientId: "Iv1.fakeclient",
    clientSecret: "fake-client-secret",
    signInAs: "dana",
    readers: new Set(["dana"]),
    /** Seconds GitHub gives a token (its `expires_in`). */
    expiresIn: 28_800,
  };
  /** Codes handed out by `/login/oauth/authorize` and not yet exchanged: code → login. */
  private readonly codes = new Map<string, string>();
  private nextId = 100;
  private readonly invalidGraphql: string[] = [];
  private readonly invalidRest: string[] = [];
  private readonly unversioned: string[] = [];

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

  /** Who the token asking is (the fake serves one surface at a time). */
  get identity(): Actor {
    return ACTORS[this.actor] ?? { login: this.actor, type: "User", app: null };
  }

  /**
   * Holds back the answer to the next request that matches: GitHub computes it when asked (from the
   * state at that moment) and delivers it only once `release` is called. `reached` settles when the
   * request has been asked.
   */
  hold(
    match: (request: RecordedRequest) => boolean,
    when: "before" | "after" = "after",
  ): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const asked = new Promise<void>((resolve) => (reached = resolve));
    this.holds.push({ match, released, reached, when });
    return { reached: asked, release };
  }

  /** A merged pull request of the history (for the audit). */
  merge(pull: Omit<MergedPull, "mergedAt" | "author"> & { author?: string; mergedAt?: string }): MergedPull {
    const full: MergedPull = { author: "carol", mergedAt: "2026-11-30T12:00:00Z", ...pull };
    this.merged.push(full);
    return full;
  }

  /** A check run some other app (or a workflow) made, with taskgate's name and marker. */
  foreignCheckRun(
    run: Omit<CheckRun, "id" | "app" | "annotations"> & { app?: { id: number; slug: string } },
  ): CheckRun {
    const full: CheckRun = { app: { id: 99, slug: "impostor" }, annotations: [], ...run, id: this.nextId++ };
    this.checkRuns.push(full);
    return full;
  }

  /** A comment someone else wrote (a person, or another app when `app` is given). */
  foreignComment(body: string, login = "mallory", app: { id: number; slug: string } | null = null): IssueComment {
    const comment: IssueComment = {
      id: this.nextId++,
      body,
      user: { login, type: app ? "Bot" : "User" },
      performed_via_github_app: app,
    };
    this.comments.push(comment);
    return comment;
  }

  /** GraphQL documents that did not validate against GitHub's schema (tests expect none). */
  get schemaErrors(): readonly string[] {
    return this.invalidGraphql;
  }

  /**
   * What GitHub's OpenAPI description finds wrong in the REST requests made (tests expect none): an
   * unknown operation, an undeclared query parameter or body property, a value it does not allow.
   */
  get restErrors(): readonly string[] {
    return this.invalidRest;
  }

  /**
   * REST requests that did not name the API version (`X-GitHub-Api-Version: 2022-11-28`), as
   * `METHOD path`, with the value sent when it was another. GraphQL has no versions: not listed.
   */
  get missingApiVersion(): readonly string[] {
    return this.unversioned;
  }

  /** Records a request (with what it carried), noting whether a REST one named the API version. */
  private record(request: RecordedRequest, graphql = request.path === "/graphql"): void {
    this.requests.push(request);
    if (graphql) return;
    const version = request.headers?.["x-github-api-version"];
    if (version !== API_VERSION)
      this.unversioned.push(`${request.method} ${request.path}${version === undefined ? "" : ` (sent ${version})`}`);
  }

  /** Requests other than the app's token exchange. */
  get apiRequests(): RecordedRequest[] {
    return this.requests.filter((request) => !request.path.includes("/access_tokens"));
  }

  /**
   * Runs git in the fake's repository. A read of objects named by id alone (`log -1 <oid>`,
   * `rev-parse <oid>:path`) always gives the same answer, so it is run once and remembered: the
   * tests' requests repeat such reads many times, and each is a process.
   */
  git(...args: string[]): string {
    if (!READS.has(args[0]!) || !args.slice(1).every(byIdOnly)) return this.repo.git(...args);
    const key = args.join("\0");
    let out = this.reads.get(key);
    if (out === undefined) {
      out = this.repo.git(...args);
      this.reads.set(key, out);
    }
    return out;
  }

  /** Answers of reads by object id (see `git`). */
  private readonly reads = new Map<string, string>();
  /** Objects read by id, by `objects` (see `git`). */
  private readonly objectCache = new Map<string, { oid: string; type: string; data: Buffer }>();

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

  /** The repository's id, as webhook payloads carry it. */
  readonly repositoryId = 4242;

  /** This pull request as a check event lists it (`check_run.pull_requests[]`). */
  pullRef(): {
    number: number;
    head: { sha: string; ref: string; repo: { id: number } };
    base: { ref: string; repo: { id: number } };
  } {
    return {
      number: this.number,
      head: { sha: this.sha(this.head), ref: this.head, repo: { id: this.repositoryId } },
      base: { ref: this.base, repo: { id: this.repositoryId } },
    };
  }

  /** A webhook payload from GitHub's examples, pointed at this repository and pull request. */
  payload<T extends Record<string, unknown>>(example: T, overrides: Record<string, unknown> = {}): T {
    const copy = structuredClone(example) as Record<string, unknown>;
    const repository = {
      ...(copy.repository as object),
      id: this.repositoryId,
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
    // A review event describes the review just given: the latest one of the fake's pull request.
    const latest = this.reviews.at(-1);
    const review =
      copy.review && latest
        ? {
            ...(copy.review as object),
            state: latest.state.toLowerCase(),
            user: { ...((copy.review as { user?: object }).user ?? {}), login: latest.user?.login ?? "ghost" },
            commit_id: latest.commit_id,
            submitted_at: latest.submitted_at,
          }
        : copy.review;
    return {
      ...copy,
      repository,
      ...(review !== undefined && { review }),
      ...(pullRequest && { pull_request: pullRequest }),
      installation: { id: 1, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==" },
      ...overrides,
    } as unknown as T;
  }

  /** Serves the fake through nock until `nock.cleanAll()`. */
  install(): void {
    this.installOAuth();
    const scope = nock(API).persist();
    const respond = this.respond.bind(this);
    for (const method of ["GET", "POST", "PATCH", "DELETE", "PUT"] as const) {
      // A function, not an arrow: nock hands it the request (`this.req`), whose headers are recorded.
      scope.intercept(/.*/, method).reply(function (uri, body, callback) {
        respond(method, uri, body, lowerCased(this.req.headers)).then(
          ([status, text, headers]) => callback(null, [status, text, headers] as never),
          (error: Error) => callback(error, [500, { message: error.message }]),
        );
      });
    }
  }

  /**
   * GitHub's web side of OAuth: `/login/oauth/authorize` signs `oauth.signInAs` in at once and sends
   * the browser back to `redirect_uri` with a code and the `state` it was given; `/login/oauth/access_token`
   * exchanges a code once, for the App's own client id and secret only.
   */
  private installOAuth(): void {
    const web = nock(WEB).persist();
    web
      .get("/login/oauth/authorize")
      .query(true)
      .reply((uri) => {
        const params = new URL(uri, WEB).searchParams;
        this.record({ method: "GET", path: "/login/oauth/authorize", query: Object.fromEntries(params) }, true);
        if (params.get("client_id") !== this.oauth.clientId) return [404, "no such app"];
        const code = `code-${this.nextId++}`;
        this.codes.set(code, this.oauth.signInAs);
        const back = new URL(params.get("redirect_uri") ?? "");
        back.searchParams.set("code", code);
        back.searchParams.set("state", params.get("state") ?? "");
        return [302, "", { location: back.href }];
      });
    web.post("/login/oauth/access_token").reply((_uri, body) => {
      const asked = (typeof body === "string" ? JSON.parse(body) : body) as Record<string, string>;
      this.record({ method: "POST", path: "/login/oauth/access_token", body: asked }, true);
      const login = this.codes.get(asked.code ?? "");
      if (asked.client_id !== this.oauth.clientId || asked.client_secret !== this.oauth.clientSecret || !login) {
        return [200, { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." }];
      }
      this.codes.delete(asked.code!);
      return [200, { access_token: `ghu_${login}`, token_type: "bearer", scope: "", expires_in: this.oauth.expiresIn }];
    });
  }

  /** `GET /repos/:owner/:repo`: 200 to the App's token and to readers' tokens, 404 to anyone else. */
  private repository(headers: Readonly<Record<string, string>>): [number, unknown] {
    const token = /^(?:token|bearer) (\S+)$/i.exec(headers.authorization ?? "")?.[1] ?? "";
    const login = token.startsWith("ghu_") ? token.slice(4) : undefined;
    if (token !== "ghs_test" && !(login && this.oauth.readers.has(login))) return [404, { message: "Not Found" }];
    return [200, { id: 1, name: this.name, full_name: `${this.owner}/${this.name}`, private: true }];
  }

  /**
   * Serves the fake over HTTP on 127.0.0.1 (for a child process); the URL is its API root. As GitHub
   * does, it refuses (401) a request that does not carry the token `token`.
   */
  async serve(token = "ghs_actiontoken"): Promise<{ url: string; close: () => Promise<void> }> {
    // Read GitHub's description now, not while the child waits for its first answer.
    loadOpenApi();
    const server = createServer((request, response) => {
      const headers = lowerCased(request.headers);
      if (!new RegExp(`^(token|bearer) ${token}$`, "i").test(request.headers.authorization ?? "")) {
        this.record(
          { method: request.method ?? "GET", path: `${request.url ?? "/"} (refused: no token)`, headers },
          (request.url ?? "/").split("?")[0] === "/graphql",
        );
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
        void this.respond(request.method ?? "GET", request.url ?? "/", body, headers).then(
          ([status, text, answered]) => {
            response.writeHead(status, answered);
            response.end(status === 204 ? undefined : text);
          },
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /**
   * One request, answered as GitHub would: computed now, stamped with GitHub's clock (`Date`, one
   * second later than the previous answer), and delivered once any hold on it is released. The body
   * comes as JSON text, and its size is recorded with the request (`bytes`).
   */
  async respond(
    method: string,
    uri: string,
    body: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<[number, string, Record<string, string>]> {
    const operation =
      method === "POST" && uri.split("?")[0] === "/graphql"
        ? (/(?:query|mutation)\s+(\w+)/.exec((body as { query?: string } | undefined)?.query ?? "")?.[1] ?? "anonymous")
        : undefined;
    const asked: RecordedRequest = { method, path: uri.split("?")[0]!, ...(operation && { operation }) };
    const early = this.holds.findIndex((hold) => hold.when === "before" && hold.match(asked));
    if (early >= 0) {
      const [hold] = this.holds.splice(early, 1);
      hold!.reached();
      await hold!.released;
    }
    const recorded = this.requests.length;
    const [status, payload, answered] = this.dispatch(method, uri, body, headers);
    const text = status === 204 ? "" : JSON.stringify(payload);
    const request = this.requests[recorded] as { bytes?: number } | undefined;
    if (request) request.bytes = Buffer.byteLength(text);
    this.now += 1000;
    const stamped = {
      "content-type": "application/json; charset=utf-8",
      ...(answered ?? {}),
      date: new Date(this.now).toUTCString(),
    };
    const last = this.requests.at(-1);
    const at = last ? this.holds.findIndex((hold) => hold.when === "after" && hold.match(last)) : -1;
    if (at >= 0) {
      const [hold] = this.holds.splice(at, 1);
      hold!.reached();
      await hold!.released;
    }
    return [status, text, stamped];
  }

  /**
   * One request to the fake GitHub: the REST and GraphQL endpoints taskgate uses. A REST request is
   * checked against GitHub's OpenAPI description first (see `restErrors`).
   */
  dispatch(
    method: string,
    uri: string,
    body: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): [number, unknown] | [number, unknown, Record<string, string>] {
    const base = `/repos/${this.owner}/${this.name}`;
    const path = uri.split("?")[0]!;
    const route = (pattern: string) => new RegExp(`^${base}${pattern}$`).test(path);
    const search = uri.includes("?") ? uri.slice(uri.indexOf("?") + 1) : "";
    const carried: Carried = {
      ...(search && { query: Object.fromEntries(new URLSearchParams(search)) }),
      ...(body !== undefined && body !== "" && { body }),
      headers,
    };
    for (const problem of validateRequest({ method, path, query: carried.query, body: carried.body }))
      this.invalidRest.push(`${method} ${path}: ${problem}`);
    if (method === "POST" && /^\/app\/installations\/\d+\/access_tokens$/.test(path)) {
      this.record({ method: "POST", path: "/app/installations/1/access_tokens", ...carried });
      return [
        201,
        { token: "ghs_test", expires_at: "2999-01-01T00:00:00Z", permissions: {}, repository_selection: "all" },
      ];
    }
    if (method === "POST" && path === "/graphql")
      return this.graphql(body as { query: string; variables: Record<string, unknown> }, carried);
    const handle = (): [number, unknown] => {
      if (method === "GET" && route("")) return this.repository(headers);
      if (method === "GET" && route("/installation")) return [200, { id: 1, app_id: 1 }];
      if (method === "GET" && route("/compare/.+")) return this.compare(uri);
      if (method === "GET" && route("/git/trees/.+")) return this.tree(uri);
      if (method === "GET" && route("/commits/[^/]+/check-runs")) return this.listChecks(uri);
      if (method === "POST" && route("/check-runs")) return this.createCheck(body as never);
      if (method === "PATCH" && route("/check-runs/\\d+")) return this.updateCheck(uri, body as never);
      if (method === "GET" && route("/commits/[^/]+/statuses")) return this.listStatuses(uri);
      if (method === "POST" && route("/statuses/[0-9a-f]+")) return this.createStatus(uri, body as never);
      if (method === "GET" && route("/commits")) return this.listCommits(uri);
      if (method === "GET" && route("/commits/[^/]+")) return this.getCommit(uri);
      if (method === "GET" && route("/issues/\\d+/comments")) return this.listComments(uri);
      if (method === "GET" && route("/issues/comments/\\d+")) return this.getComment(uri);
      if (method === "GET" && route("/branches/.+")) return this.getBranch(uri);
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
    return this.answer(method, uri, handle, carried);
  }

  private answer(
    method: string,
    uri: string,
    handle: () => [number, unknown],
    carried: Carried,
  ): [number, unknown] | [number, unknown, Record<string, string>] {
    const path = uri.split("?")[0]!;
    this.record({ method, path, ...carried });
    this.onRequest?.({ method, path });
    const failure = this.failures.findIndex((item) => item.method === method && item.match.test(path));
    if (failure >= 0) {
      const [item] = this.failures.splice(failure, 1);
      return [item!.status, { message: item!.message ?? "fake failure" }, item!.headers ?? {}];
    }
    return handle();
  }

  private graphql(body: { query: string; variables: Record<string, unknown> }, carried: Carried): [number, unknown] {
    const operation = /(?:query|mutation)\s+(\w+)/.exec(body.query)?.[1] ?? "anonymous";
    this.record({ method: "POST", path: "/graphql", operation, ...carried });
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
        if (this.missingPulls.has(Number(body.variables.number))) return this.noSuchPull(body.variables.number);
        return [200, { data: this.facts(body.variables) }];
      case "PullRequestVersion":
        return [200, { data: this.version() }];
      case "Batch":
        return [200, this.batch(body.variables)];
      case "Folders":
        return [200, { data: { repository: this.folders(body.variables) } }];
      case "RecordDecisions":
        return this.createCommit(body.variables.input as never);
      case "DefaultBranch":
        return [
          200,
          {
            data: {
              viewer: { login: this.identity.login },
              repository: {
                defaultBranchRef: { name: this.defaultBranch, target: { oid: this.sha(this.defaultBranch) } },
              },
            },
          },
        ];
      case "Landings":
        return [200, { data: { repository: this.landings(body.variables) } }];
      default:
        return [200, { errors: [{ message: `the fake does not know ${operation}` }] }];
    }
  }

  /** The default branch (the base unless a test says otherwise). */
  defaultBranch = "main";

  /** The association GitHub reports for a reviewer: a collaborator when they have a permission. */
  private association(login: string | undefined): string {
    const known = Object.keys(this.permissions).some((who) => who.toLowerCase() === login?.toLowerCase());
    return known ? "COLLABORATOR" : "NONE";
  }

  /** A comment as GraphQL shows it to the token asking. */
  private commentNode(comment: IssueComment): unknown {
    return {
      databaseId: comment.id,
      viewerDidAuthor: comment.user.login.toLowerCase() === this.identity.login.toLowerCase(),
      body: comment.body,
    };
  }

  private reviewNodes(): unknown[] {
    return this.reviews.map((review) => {
      const bot = review.user?.type === "Bot" || review.user?.login.endsWith("[bot]");
      return {
        // GraphQL names a bot without its `[bot]` suffix, and a deleted account not at all.
        author: review.user
          ? {
              __typename: bot ? "Bot" : "User",
              login: bot ? review.user.login.replace(/\[bot\]$/, "") : review.user.login,
            }
          : null,
        authorAssociation: this.association(review.user?.login),
        state: review.state,
        commit: review.commit_id ? { oid: review.commit_id } : null,
        submittedAt: review.submitted_at ?? null,
        body: review.body ?? "",
      };
    });
  }

  /** Pull request numbers GitHub knows nothing of (any other number answers with this pull request). */
  readonly missingPulls = new Set<number>();

  /** GitHub's answer for a pull request that does not exist: no data for it, and a NOT_FOUND error. */
  private noSuchPull(number: unknown): [number, unknown] {
    const message = `Could not resolve to a PullRequest with the number of ${String(number)}.`;
    return [
      200,
      {
        data: { viewer: { login: this.identity.login }, repository: { pullRequest: null } },
        errors: [{ type: "NOT_FOUND", path: ["repository", "pullRequest"], message }],
      },
    ];
  }

  private facts(variables: Record<string, unknown> = {}): unknown {
    const baseTip = this.sha(this.base);
    const config = this.blobAt(baseTip, String(variables.configPath ?? ".github/taskgate.yml"));
    const merged = this.merged.find((pull) => pull.number === variables.number);
    if (merged) return this.mergedFacts(merged);
    return {
      viewer: { login: this.identity.login },
      repository: {
        nameWithOwner: `${this.owner}/${this.name}`,
        defaultBranchRef: { name: this.defaultBranch },
        pullRequest: {
          number: this.number,
          state: this.state,
          isCrossRepository: this.fork,
          headRefName: this.head,
          headRefOid: this.sha(this.head),
          baseRefName: this.base,
          baseRefOid: baseTip,
          url: `https://github.com/${this.owner}/${this.name}/pull/${this.number}`,
          author: { __typename: "User", login: this.author },
          headRepository: this.headRepository(),
          reviews: {
            totalCount: this.reviews.length,
            pageInfo: { hasNextPage: false, endCursor: null },
            nodes: this.reviewNodes(),
          },
          firstComments: {
            totalCount: this.comments.length,
            nodes: this.comments.slice(0, 50).map((comment) => this.commentNode(comment)),
          },
          lastComments: { nodes: this.comments.slice(-50).map((comment) => this.commentNode(comment)) },
          baseRef: { target: { oid: baseTip, file: config ? { object: config } : null } },
        },
      },
    };
  }

  /** Where the pull request's head lives: this repository, a fork, or nowhere (a deleted fork). */
  headRepository: () => { nameWithOwner: string } | null = () => ({
    nameWithOwner: this.fork ? `${this.author}/${this.name}` : `${this.owner}/${this.name}`,
  });

  private mergedFacts(pull: MergedPull): unknown {
    return {
      viewer: { login: this.identity.login },
      repository: {
        nameWithOwner: `${this.owner}/${this.name}`,
        defaultBranchRef: { name: this.defaultBranch },
        pullRequest: {
          number: pull.number,
          state: "MERGED",
          isCrossRepository: false,
          headRefName: `pull-${pull.number}`,
          headRefOid: pull.head,
          baseRefName: pull.base,
          baseRefOid: this.sha(pull.base),
          url: `https://github.com/${this.owner}/${this.name}/pull/${pull.number}`,
          author: { __typename: "User", login: pull.author },
          headRepository: { nameWithOwner: `${this.owner}/${this.name}` },
          reviews: {
            totalCount: pull.reviews?.length ?? 0,
            pageInfo: { hasNextPage: false, endCursor: null },
            nodes: (pull.reviews ?? []).map((review) => ({
              author: review.user ? { __typename: "User", login: review.user.login } : null,
              authorAssociation: this.association(review.user?.login),
              state: review.state,
              commit: review.commit_id ? { oid: review.commit_id } : null,
              submittedAt: review.submitted_at ?? null,
              body: review.body ?? "",
            })),
          },
          firstComments: { totalCount: 0, nodes: [] },
          lastComments: { nodes: [] },
          baseRef: { target: { oid: this.sha(pull.base), file: null } },
        },
      },
    };
  }

  private version(): unknown {
    return {
      repository: {
        pullRequest: {
          state: this.state,
          headRefOid: this.sha(this.head),
          baseRefName: this.base,
          reviews: {
            totalCount: this.reviews.length,
            pageInfo: { hasNextPage: false, endCursor: null },
            nodes: this.reviews.map((review) => ({
              author: review.user ? { login: review.user.login.replace(/\[bot\]$/, "") } : null,
              state: review.state,
              submittedAt: review.submitted_at ?? null,
            })),
          },
          lastComments: { nodes: this.comments.slice(-50).map((comment) => this.commentNode(comment)) },
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
    const object = this.objects([oid])[0];
    return object?.type === "blob" ? blobNode(object.oid, object.data) : null;
  }

  /**
   * Objects by name (an object id or any expression git resolves), read by one `git cat-file
   * --batch`: its id, type and content, or `null` when git has no such object.
   */
  private objects(names: readonly string[]): ({ oid: string; type: string; data: Buffer } | null)[] {
    if (names.length === 0) return [];
    if (names.every((name) => OID.test(name) && this.objectCache.has(name))) {
      return names.map((name) => this.objectCache.get(name)!);
    }
    const read = this.readObjects(names);
    names.forEach((name, index) => {
      const object = read[index];
      if (object && OID.test(name)) this.objectCache.set(name, object);
    });
    return read;
  }

  private readObjects(names: readonly string[]): ({ oid: string; type: string; data: Buffer } | null)[] {
    const out = execFileSync("git", ["cat-file", "--batch"], {
      cwd: this.repo.dir,
      input: `${names.map((name) => name.replace(/\s/g, "")).join("\n")}\n`,
      maxBuffer: 2 ** 31 - 1,
    });
    const objects: ({ oid: string; type: string; data: Buffer } | null)[] = [];
    for (let at = 0; objects.length < names.length && at < out.length; ) {
      const end = out.indexOf(10, at);
      const [oid, type, size] = out.toString("utf8", at, end).split(" ");
      if (size === undefined) {
        objects.push(null);
        at = end + 1;
        continue;
      }
      const data = out.subarray(end + 1, end + 1 + Number(size));
      objects.push({ oid: oid!, type: type!, data });
      at = end + 1 + Number(size) + 1;
    }
    return objects;
  }

  /** The sizes of blobs, by one `git cat-file --batch-check`. */
  private sizes(oids: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    if (oids.length === 0) return out;
    const lines = execFileSync("git", ["cat-file", "--batch-check"], {
      cwd: this.repo.dir,
      input: `${oids.join("\n")}\n`,
      encoding: "utf8",
      maxBuffer: 2 ** 31 - 1,
    });
    for (const line of lines.split("\n")) {
      const [oid, , size] = line.split(" ");
      if (oid && size) out.set(oid, Number(size));
    }
    return out;
  }

  /**
   * GraphQL's `Folders`: each asked object as a folder (`... on Tree`) or as a commit with its root
   * folder (`... on Commit { tree }`), each asked expression (`<commit>:<path>`) as a folder or
   * nothing, entries in git's order with the fields the query asks (name,
   * decimal mode, object id, size); `null` for an object git does not have. Entries are cut at
   * `graphqlEntryCap`, without a word.
   */
  private folders(variables: Record<string, unknown>): Record<string, unknown> {
    const names = Object.keys(variables).filter((name) => /^[oe]\d+$/.test(name));
    const asked = names.map((name) => String(variables[name]));
    // An object id (a commit or a folder), or an expression `<commit>:<path>` naming a folder.
    const objects = this.objects(asked.map((key) => (key.includes(":") ? key : `${key}^{tree}`)));
    const listings = objects.map((object) => (object?.type === "tree" ? treeEntries(object.data) : []));
    const sizes = this.sizes([
      ...new Set(listings.flat().flatMap((entry) => (entry.type === "blob" ? [entry.oid] : []))),
    ]);
    const out: Record<string, unknown> = {};
    names.forEach((name, index) => {
      const object = objects[index];
      if (object?.type !== "tree") {
        out[name] = null;
        return;
      }
      const node = {
        oid: object.oid,
        entries: listings[index]!.slice(0, this.graphqlEntryCap).map((entry) => ({
          name: entry.name,
          mode: Number.parseInt(entry.mode, 8),
          oid: entry.oid,
          size: entry.type === "blob" ? (sizes.get(entry.oid) ?? 0) : 0,
        })),
      };
      out[name] = object.oid === asked[index] || name.startsWith("e") ? node : { tree: node };
    });
    return out;
  }

  /** Organizations GitHub knows: those of the teams a test set up, plus any named here. */
  readonly organizations = new Set<string>();

  private batch(variables: Record<string, unknown>): unknown {
    const repository: Record<string, unknown> = {};
    const top: Record<string, unknown> = {};
    const errors: { type: string; path: string[]; message: string }[] = [];
    const orgs = new Set([
      ...this.organizations,
      ...Object.keys(this.teams).map((team) => team.slice(1).split("/")[0]!),
    ]);
    for (const [name, value] of Object.entries(variables)) {
      const index = name.slice(1);
      if (/^b\d+$/.test(name)) {
        continue; // read together below
      } else if (/^p\d+$/.test(name)) {
        const login = String(value);
        const permission = Object.entries(this.permissions).find(
          ([who]) => who.toLowerCase() === login.toLowerCase(),
        )?.[1];
        repository[`p${index}`] = { edges: permission ? [{ permission, node: { login } }] : [] };
      } else if (/^k\d+$/.test(name)) {
        repository[`k${index}`] = { oid: String(value), authors: { nodes: this.commitAuthors(String(value)) } };
      } else if (/^o\d+$/.test(name)) {
        this.teamQueries++;
        const org = String(value);
        if (!orgs.has(org)) {
          top[`t${index}`] = null;
          errors.push({
            type: "NOT_FOUND",
            path: [`t${index}`],
            message: `Could not resolve to an Organization with the login of '${org}'.`,
          });
          continue;
        }
        const slug = String(variables[`t${index}`]);
        const members = this.teams[`@${org}/${slug}`];
        top[`t${index}`] = {
          team: members
            ? { members: { totalCount: members.length, nodes: members.map((login) => ({ login })) } }
            : null,
        };
      }
    }
    const blobs = Object.keys(variables).filter((name) => /^b\d+$/.test(name));
    const objects = this.objects(blobs.map((name) => String(variables[name])));
    blobs.forEach((name, at) => {
      const object = objects[at];
      repository[name] = object?.type === "blob" ? blobNode(object.oid, object.data) : null;
    });
    return { data: { repository, ...top }, ...(errors.length > 0 && { errors }) };
  }

  /** The authors GitHub links to a commit: the git author, then each `Co-authored-by:` trailer. */
  private commitAuthors(sha: string): unknown[] {
    const text = this.git(
      "log",
      "-1",
      "--format=%an%x00%ae%x00%(trailers:key=Co-authored-by,valueonly,separator=%x01)",
      sha,
    );
    const [name, email, trailers] = text.split("\u0000");
    const people = [{ name: name!, email: email! }];
    for (const value of (trailers ?? "").split("\u0001").filter(Boolean)) {
      const match = /^(.*?)\s*<([^>]+)>$/.exec(value.trim());
      if (match) people.push({ name: match[1]!, email: match[2]! });
    }
    return people.map((person) => {
      const login = this.emailLogins[person.email.toLowerCase()];
      return { name: person.name, email: person.email, user: login ? { login } : null };
    });
  }

  private compare(uri: string): [number, unknown] {
    const basehead = decodeURIComponent(uri.split("/compare/")[1]!.split("?")[0]!);
    const [base, head] = basehead.split("...");
    let mergeBase: string;
    let shas: string[];
    try {
      mergeBase = this.git("merge-base", base!, head!);
      shas = this.git("log", "--reverse", "--topo-order", "--format=%H", `${mergeBase}..${head}`)
        .split("\n")
        .filter(Boolean);
    } catch {
      return [404, { message: "Not Found" }];
    }
    const commits = shas.map((sha) => this.commitJson(sha));
    return [
      200,
      {
        merge_base_commit: { sha: mergeBase },
        total_commits: commits.length,
        commits: commits.slice(0, this.commitCap),
        files: this.comparedFiles(mergeBase, head!).slice(0, this.compareFileCap),
      },
    ];
  }

  /** List at most this many files in a comparison, as GitHub lists at most 300. */
  compareFileCap = 300;

  /** The files of a comparison as GitHub lists them (renames found), without their patches. */
  private comparedFiles(base: string, head: string): unknown[] {
    const STATUS: Record<string, string> = { A: "added", D: "removed", M: "modified", R: "renamed", C: "copied" };
    const fields = execFileSync("git", ["diff", "--raw", "-z", "-M", "--no-abbrev", base, head], {
      cwd: this.repo.dir,
      encoding: "utf8",
      maxBuffer: 2 ** 31 - 1,
    }).split("\u0000");
    const out: unknown[] = [];
    for (let at = 0; at < fields.length - 1; ) {
      const [, , before, after, code] = fields[at]!.split(" ");
      const renamed = code!.startsWith("R") || code!.startsWith("C");
      const [from, to] = renamed ? [fields[at + 1]!, fields[at + 2]!] : [fields[at + 1]!, fields[at + 1]!];
      at += renamed ? 3 : 2;
      out.push({
        sha: code === "D" ? before : after,
        filename: to,
        status: STATUS[code![0]!] ?? "changed",
        ...(renamed && { previous_filename: from }),
      });
    }
    return out;
  }

  /**
   * REST's tree listing (`recursive`: every entry below, folders included, in git's order), cut
   * short after `treeEntryCap` entries or `treeByteCap` bytes of its `tree` array, as GitHub cuts it.
   */
  private tree(uri: string): [number, unknown] {
    const sha = decodeURIComponent(uri.split("/git/trees/")[1]!.split("?")[0]!);
    const recursive = new URL(uri, API).searchParams.has("recursive");
    let listing: string;
    let root: string;
    try {
      root = this.git("rev-parse", "--verify", "--quiet", `${sha}^{tree}`);
      listing = execFileSync("git", ["ls-tree", ...(recursive ? ["-r", "-t"] : []), "-l", "-z", root], {
        cwd: this.repo.dir,
        encoding: "utf8",
        maxBuffer: 2 ** 31 - 1,
      });
    } catch {
      return [404, { message: "Not Found" }];
    }
    const url = (type: string, oid: string) => `${API}/repos/${this.owner}/${this.name}/git/${type}s/${oid}`;
    const tree: unknown[] = [];
    let bytes = 2;
    let truncated = false;
    for (const record of listing.split("\u0000")) {
      if (!record) continue;
      const [meta, path] = record.split("\t");
      const [mode, type, oid, size] = meta!.split(/ +/);
      const entry = {
        path,
        mode,
        type,
        sha: oid,
        ...(type === "blob" && { size: Number(size) }),
        ...(type !== "commit" && { url: url(type!, oid!) }),
      };
      bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
      if (tree.length >= this.treeEntryCap || bytes > this.treeByteCap) {
        truncated = true;
        break;
      }
      tree.push(entry);
    }
    return [200, { sha: root, url: url("tree", root), tree, truncated }];
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
          GIT_AUTHOR_EMAIL: `1+${this.actor}@users.noreply.github.com`,
          GIT_COMMITTER_NAME: "GitHub",
          GIT_COMMITTER_EMAIL: "noreply@github.com",
        },
      },
    )
      .toString("utf8")
      .trim();
    run(["update-ref", ref, commit, current]);
    // GitHub commits for the token's account, as web-flow, and signs the commit.
    this.logins.set(commit, { login: this.actor, type: "Bot", verified: true, committer: "web-flow" });
    return [200, { data: { createCommitOnBranch: { commit: { oid: commit } } } }];
  }

  private commitJson(sha: string, files?: string[]): unknown {
    const line = this.git("log", "-1", "--format=%H %P%x00%an%x00%ae%x00%cn%x00%ce%x00%T%x00%B", sha);
    const [shas, name, email, committerName, committerEmail, tree, message] = line.split("\u0000");
    const [, ...parents] = shas!.split(" ");
    const who = this.logins.get(sha) ?? { login: name ?? null };
    const committer = who.committer ?? null;
    return {
      sha,
      author: who.login ? { login: who.login, type: who.type ?? (who.login.endsWith("[bot]") ? "Bot" : "User") } : null,
      committer: committer ? { login: committer, type: committer.endsWith("[bot]") ? "Bot" : "User" } : null,
      parents: parents.filter(Boolean).map((parent) => ({ sha: parent })),
      commit: {
        author: { name, email },
        committer: { name: committerName, email: committerEmail },
        message: (message ?? "").replace(/\n$/, ""),
        tree: { sha: tree },
        verification: { verified: who.verified ?? false },
      },
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
    // Against the first parent, as GitHub shows a merge commit's files.
    const parent = this.git("rev-list", "--parents", "-n", "1", sha).split(" ")[1];
    const files = (
      parent ? this.git("diff", "--name-only", parent, sha) : this.git("ls-tree", "-r", "--name-only", sha)
    )
      .split("\n")
      .filter(Boolean);
    return [200, this.commitJson(sha, [...new Set(files)])];
  }

  /**
   * For each commit: the merged pull requests it belongs to, with the check suites of the asked app
   * on each one's head (from the fake's check runs, which carry their app), and whether the object
   * expression (the config at the commit's parent) exists.
   */
  private landings(variables: Record<string, unknown>): unknown {
    const out: Record<string, unknown> = {};
    const appId = variables.appId;
    const checkName = variables.checkName;
    for (const [name, value] of Object.entries(variables)) {
      if (/^e\d+$/.test(name)) {
        try {
          out[name] = { oid: this.git("rev-parse", "--verify", "--quiet", String(value)) };
        } catch {
          out[name] = null;
        }
        continue;
      }
      if (!/^c\d+$/.test(name)) continue;
      const oid = String(value);
      const pulls = this.merged.filter((pull) => pull.mergeCommit === oid || pull.commits.includes(oid));
      out[name] = {
        oid,
        associatedPullRequests: {
          nodes: pulls.map((pull) => ({
            number: pull.number,
            merged: true,
            mergedAt: pull.mergedAt,
            baseRefName: pull.base,
            headRefOid: pull.head,
            author: { __typename: "User", login: pull.author },
            mergeCommit: { oid: pull.mergeCommit },
            ...(appId !== undefined && {
              commits: {
                nodes: [
                  {
                    commit: {
                      oid: pull.head,
                      checkSuites: {
                        nodes: [
                          ...new Set(
                            this.checkRuns.filter((run) => run.head_sha === pull.head).map((run) => run.app.id),
                          ),
                        ]
                          .filter((id) => id === appId)
                          .map((id) => ({
                            app: { databaseId: id },
                            checkRuns: {
                              nodes: this.checkRuns
                                .filter(
                                  (run) => run.head_sha === pull.head && run.app.id === id && run.name === checkName,
                                )
                                .map((run) => ({ name: run.name, conclusion: run.conclusion.toUpperCase() })),
                            },
                          })),
                      },
                    },
                  },
                ],
              },
            }),
          })),
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
    const status = { sha, ...body, creator: { login: this.identity.login } };
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
      user: { login: this.identity.login, type: this.identity.type },
      performed_via_github_app: this.identity.app,
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
      user: { login: this.identity.login, type: this.identity.type },
      performed_via_github_app: this.identity.app,
    };
    this.pulls.push(pull);
    return [201, pull];
  }

  private listChecks(uri: string): [number, unknown] {
    const ref = decodeURIComponent(uri.split("/commits/")[1]!.split("/")[0]!);
    const params = new URL(uri, API).searchParams;
    const name = params.get("check_name");
    const app = params.get("app_id");
    const runs = this.checkRuns.filter(
      (run) => run.head_sha === ref && (!name || run.name === name) && (!app || run.app.id === Number(app)),
    );
    return [200, { total_count: runs.length, check_runs: runs.map((run) => ({ ...run })) }];
  }

  private createCheck(
    body: CheckRun & { output: { title: string; summary: string; annotations?: unknown[] } },
  ): [number, unknown] {
    if (!this.identity.app) return [403, { message: "Resource not accessible by integration" }];
    const run: CheckRun = {
      id: this.nextId++,
      app: this.identity.app,
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
    // GitHub lets only the app that created a check run update it.
    if (run.app.id !== this.identity.app?.id) return [403, { message: "Invalid app_id" }];
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

  private listComments(uri: string): [number, unknown] {
    const params = new URL(uri, API).searchParams;
    const size = Number(params.get("per_page") ?? 30);
    const page = Number(params.get("page") ?? 1);
    return [200, this.comments.slice((page - 1) * size, page * size).map((comment) => ({ ...comment }))];
  }

  private getComment(uri: string): [number, unknown] {
    const comment = this.comments.find((item) => item.id === Number(uri.split("/comments/")[1]!.split("?")[0]));
    return comment ? [200, { ...comment }] : [404, { message: "Not Found" }];
  }

  private getBranch(uri: string): [number, unknown] {
    const branch = decodeURIComponent(uri.split("/branches/")[1]!.split("?")[0]!);
    try {
      this.git("rev-parse", "--verify", "--quiet", `refs/heads/${branch}`);
    } catch {
      return [404, { message: "Branch not found" }];
    }
    return [200, { name: branch, protected: this.protectedBranches.has(branch) }];
  }

  /** Another app's comment may not be edited or deleted with this token (GitHub refuses it). */
  private foreign(comment: IssueComment): boolean {
    return comment.performed_via_github_app !== null && comment.performed_via_github_app.id !== this.identity.app?.id;
  }

  private createComment(body: { body: string }): [number, unknown] {
    const comment: IssueComment = {
      id: this.nextId++,
      body: body.body,
      user: { login: this.identity.login, type: this.identity.type },
      performed_via_github_app: this.identity.app,
    };
    this.comments.push(comment);
    return [201, comment];
  }

  private updateComment(uri: string, body: { body: string }): [number, unknown] {
    const comment = this.comments.find((item) => item.id === Number(uri.split("/comments/")[1]));
    if (!comment) return [404, { message: "Not Found" }];
    if (this.foreign(comment)) return [403, { message: "Resource not accessible by integration" }];
    comment.body = body.body;
    return [200, comment];
  }

  private deleteComment(uri: string): [number, unknown] {
    const at = this.comments.findIndex((item) => item.id === Number(uri.split("/comments/")[1]));
    if (at < 0) return [404, { message: "Not Found" }];
    if (this.foreign(this.comments[at]!)) return [403, { message: "Resource not accessible by integration" }];
    this.comments.splice(at, 1);
    return [204, ""];
  }
}

/** A blob as GraphQL's `... on Blob { oid text isBinary isTruncated byteSize }` shows it. */
function blobNode(oid: string, raw: Buffer): unknown {
  const binary = raw.subarray(0, 8000).includes(0);
  return {
    oid,
    text: binary ? null : raw.toString("utf8"),
    isBinary: binary,
    isTruncated: false,
    byteSize: raw.length,
  };
}

/** The entries of a raw git tree object (`<mode> <name>\0<20-byte id>` each), in git's order. */
function treeEntries(data: Buffer): { name: string; mode: string; type: string; oid: string }[] {
  const out: { name: string; mode: string; type: string; oid: string }[] = [];
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(32, at);
    const nul = data.indexOf(0, space);
    const mode = data.toString("latin1", at, space);
    out.push({
      name: data.toString("utf8", space + 1, nul),
      mode,
      type: mode === "40000" ? "tree" : mode === "160000" ? "commit" : "blob",
      oid: data.toString("hex", nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return out;
}
