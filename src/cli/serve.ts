/**
 * `taskgate serve [--port N] [--pr PR.json]`: the App's pages for the local checkout, on 127.0.0.1
 * only and without sign-in. `/` is the repository page at HEAD (with its `?state=&owner=&role=&page=`
 * filters), `/pull?base=REF&head=REF` a pull request's page (its reviews from `--pr`), and the
 * stylesheet is at `STYLESHEET_PATH`. Every request reads the checkout afresh, so a moved HEAD shows.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, resolve } from "node:path";
import {
  CONFIG_PATH,
  ConfigError,
  RefNotFoundError,
  RepositoryError,
  judgePullRequest,
  loadConfig,
  readLimits,
  type PrInput,
} from "../core/index.js";
import { GitRepository } from "../git/repository.js";
import { escapeHtml } from "../pages/html.js";
import {
  TEAMS_BY_NAME,
  approverLogins,
  repositoryTasks,
  reviewViews,
  teamsAmong,
  workflowGraph,
} from "../pages/data.js";
import { CONTENT_SECURITY_POLICY, STYLESHEET, STYLESHEET_PATH, layout } from "../pages/layout.js";
import { pullRequestPage } from "../pages/pull-request.js";
import { repositoryPage } from "../pages/repository.js";
import type { CommandRun } from "./commands.js";
import { EXIT, UsageError } from "./io.js";

/** The only address the server listens on. */
export const HOST = "127.0.0.1";

const HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
};

const HTML = "text/html; charset=utf-8";

export interface ServeOptions {
  /** The checkout served. */
  readonly repoDir: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** What `--pr PR.json` holds: the reviews and people of the pull request page. */
  readonly pr?: PrInput;
}

export interface RunningServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly type?: string;
}

/** The validated `--port`: an integer from 1 to 65535, or 0 for a free one; default 0. */
export function parsePort(value: string | boolean | undefined): number {
  if (value === undefined) return 0;
  const port = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be a number from 1 to 65535, or 0 for a free port (got "${String(value)}")`);
  }
  return port;
}

/** Starts the server on 127.0.0.1; resolves once it listens. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const server = createServer((request, response) => {
    void handle(options, request, response);
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port, HOST, () => {
      server.off("error", fail);
      done();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${HOST}:${port}/`,
    server,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        server.closeAllConnections();
      }),
  };
}

async function handle(options: ServeOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let reply: Reply;
  try {
    reply = await route(options, request);
  } catch (error) {
    reply = failure(error);
  }
  response.writeHead(reply.status, {
    ...HEADERS,
    "content-type": reply.type ?? HTML,
    "content-length": String(Buffer.byteLength(reply.body)),
  });
  response.end(request.method === "HEAD" ? undefined : reply.body);
}

async function route(options: ServeOptions, request: IncomingMessage): Promise<Reply> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return messagePage(405, "Method not allowed", "These pages are read-only.", "Use GET.");
  }
  const url = new URL(request.url ?? "/", `http://${HOST}`);
  switch (url.pathname) {
    case "/":
      return { status: 200, body: await repositoryView(options, url.searchParams) };
    case "/pull":
      return await pullView(options, url.searchParams);
    case STYLESHEET_PATH:
      return { status: 200, body: STYLESHEET, type: "text/css; charset=utf-8" };
    default:
      return messagePage(404, "Not found", `There is no page at ${url.pathname}.`, "The pages are / and /pull.");
  }
}

interface Checkout {
  readonly repo: GitRepository;
  /** The repository as `origin` names it, or `local/<folder>` without one. */
  readonly owner: string;
  readonly name: string;
  readonly host?: string;
  /** Whether `origin` is on GitHub: the pages link files, commits and people there only then. */
  readonly onGitHub: boolean;
}

/**
 * Whether a remote's host is GitHub: github.com, a GitHub Enterprise Cloud host (`*.ghe.com`), or
 * the GitHub Enterprise Server host `GH_HOST` names (as GitHub's own CLI reads it).
 */
export function isGitHubHost(host: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const name = host.toLowerCase();
  const enterprise = env.GH_HOST?.trim().toLowerCase();
  return name === "github.com" || name === "www.github.com" || name.endsWith(".ghe.com") || name === enterprise;
}

/** The checkout, opened afresh: HEAD may have moved since the last request. */
async function openCheckout(dir: string): Promise<Checkout> {
  const repo = await GitRepository.open(dir);
  const origin = (await repo.configValues(["remote.origin.url"])).get("remote.origin.url");
  const match = origin && /^(?:[a-z+]+:\/\/)?(?:[^@/]+@)?([^/:]+)[:/]([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(origin);
  if (match) {
    const host = match[1]!;
    return { repo, host, owner: match[2]!, name: match[3]!, onGitHub: isGitHubHost(host) };
  }
  return { repo, owner: "local", name: basename(await repo.workTreeRoot()), onGitHub: false };
}

/** The note of a page that names teams: `serve` reads no GitHub, so they stay by name. */
function teamNotes(named: Iterable<readonly string[] | undefined>, known: PrInput["teams"]): string[] {
  const unknown = teamsAmong(named).filter(
    (team) => !Object.keys(known ?? {}).some((key) => key.toLowerCase() === team.toLowerCase()),
  );
  return unknown.length > 0 ? [TEAMS_BY_NAME] : [];
}

/** The repository page: every task at HEAD, from its audit scope. */
async function repositoryView(options: ServeOptions, query: URLSearchParams): Promise<string> {
  const { repo, owner, name, host, onGitHub } = await openCheckout(options.repoDir);
  const sha = await repo.resolve("HEAD");
  const loaded = await loadConfig(repo, sha);
  if (!loaded) {
    return messagePage(200, "Not configured", `taskgate is not configured at HEAD (no ${CONFIG_PATH}).`, CONFIG_HINT)
      .body;
  }
  const { config, model } = loaded;
  const snapshot = await repo.readSnapshot(sha, model.auditScope(), readLimits(config));
  const tasks = repositoryTasks(loaded, snapshot, options.pr?.teams);
  const notes = teamNotes(
    tasks.map((task) => task.reviewers),
    options.pr?.teams,
  );
  return repositoryPage(
    {
      owner,
      repo: name,
      ...(host && { host }),
      branch: await branchName(repo),
      sha,
      preset: config.preset === "board" ? "board" : "phases",
      tasks,
      href: "/",
      ...(!onGitHub && { githubLinks: false }),
      ...(notes.length > 0 && { teamNotes: notes }),
    },
    query,
  );
}

const CONFIG_HINT = "Add .github/taskgate.yml (for example `preset: phases`).";

async function branchName(repo: GitRepository): Promise<string> {
  const result = await repo.git(["rev-parse", "--abbrev-ref", "HEAD"]);
  const name = result.stdout.toString().trim();
  return name && name !== "HEAD" ? name : "HEAD";
}

/** A pull request's page: `head` judged as a pull request into `base`, as `taskgate check` does. */
async function pullView(options: ServeOptions, query: URLSearchParams): Promise<Reply> {
  const base = query.get("base");
  const head = query.get("head");
  if (!base || !head) {
    return messagePage(400, "Which pull request?", "The pull request page needs base and head.", PULL_HINT);
  }
  const { repo, owner, name, host, onGitHub } = await openCheckout(options.repoDir);
  const judgement = await judgePullRequest(repo, { base, head, ...(options.pr && { pr: options.pr }) });
  const { report, loaded } = judgement;
  const config = loaded?.config;
  const approvers = config && approverLogins(config, report, options.pr?.teams);
  const notes = teamNotes(
    [report.pending.flatMap((item) => item.approvers), ...Object.values(approvers ?? {})],
    options.pr?.teams,
  );
  const body = pullRequestPage({
    owner,
    repo: name,
    ...(host && { host }),
    number: 0,
    title: `${head} into ${base}`,
    headSha: await repo.resolve(head),
    report,
    reviews: reviewViews(options.pr?.reviews ?? [], report),
    workflow: config ? workflowGraph(config) : { states: [], edges: [] },
    ...(approvers && { approvers }),
    repositoryHref: "/",
    ...(!onGitHub && { githubLinks: false }),
    ...(notes.length > 0 && { teamNotes: notes }),
  });
  return { status: 200, body };
}

const PULL_HINT = "Open /pull?base=main&head=feature with two refs of this checkout.";

/** A failure as a page with its message and a hint; never a stack. */
function failure(error: unknown): Reply {
  if (error instanceof RefNotFoundError) return messagePage(404, "No such ref", error.message, error.hint);
  if (error instanceof RepositoryError)
    return messagePage(400, "Cannot read the repository", error.message, error.hint);
  if (error instanceof ConfigError) {
    return messagePage(400, "The config is not valid", error.message, `Fix ${CONFIG_PATH} and reload.`);
  }
  return messagePage(
    500,
    "Something went wrong",
    "taskgate could not read this page from the checkout.",
    "Run `taskgate check` or `taskgate audit` in a terminal to see the error.",
  );
}

function messagePage(status: number, title: string, message: string, hint: string): Reply {
  const body = layout({
    title,
    kicker: "taskgate serve",
    crumbs: [{ label: "tasks", href: "/" }, { label: title }],
    body: `<section><p>${escapeHtml(message)}</p><p class="muted">Hint: ${escapeHtml(hint)}</p></section>`,
  });
  return { status, body };
}

/** `serve [--port N] [--pr PR.json]`: serves the pages until Ctrl-C. */
export async function serve(run: CommandRun): Promise<number> {
  if (run.positionals.length > 0) throw new UsageError(`unexpected argument "${run.positionals[0]}"`);
  const port = parsePort(run.values.port);
  const prFile = run.values.pr as string | undefined;
  const pr = prFile ? await (await import("./pr-file.js")).readPrFile(resolve(run.io.cwd, prFile)) : undefined;
  await GitRepository.open(run.repoDir);
  const running = await startServer({ repoDir: run.repoDir, port, ...(pr && { pr }) });
  run.io.stdout(`taskgate serve: ${running.url}\n`);
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void running.close().then(done, done);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  return EXIT.ok;
}
