/**
 * The renderer of the App's pages: reads what a page shows through the App's installation, with
 * the same requests as a check (a pull request's page is its evaluation; the repository page is the
 * default branch's config and its audit scope: one tree and one batch), and hands it to the views
 * of `pages/`. The stylesheet is served beside the pages, at `STYLESHEET_PATH`.
 */
import { CONFIG_PATH, ConfigError, loadConfig, readLimits } from "../../core/index.js";
import { GitHubApi, type Octokit } from "../../github/api.js";
import { GitHubError } from "../../github/errors.js";
import { evaluatePullRequest, type Evaluation } from "../../github/pull-request.js";
import { GitHubRepository } from "../../github/repository.js";
import { approverLogins, repositoryTasks, reviewViews, workflowGraph } from "../../pages/data.js";
import { STYLESHEET, STYLESHEET_PATH } from "../../pages/layout.js";
import { pullRequestPage } from "../../pages/pull-request.js";
import { repositoryPage } from "../../pages/repository.js";
import { htmlPage, escapeHtml, type PageAsset, type PageInput, type PageKind, type PageRenderer } from "./render.js";

/** Where the asset route serves files: the stylesheet's name is what follows it in `STYLESHEET_PATH`. */
const ASSET_PREFIX = "/taskgate/-/";

/** The web host of GitHub the installation talks to: `github.com`, or a GitHub Enterprise host. */
export function webHostOf(octokit: Octokit): string {
  const base = (octokit.request.endpoint.DEFAULTS as { baseUrl?: string }).baseUrl ?? "https://api.github.com";
  const host = new URL(base).host;
  return host === "api.github.com" ? "github.com" : host;
}

function apiOf(input: PageInput): GitHubApi {
  return new GitHubApi(input.octokit, { owner: input.owner, repo: input.repo }, { appId: input.appId });
}

/** The evaluation a check makes; undefined when GitHub knows no such pull request. */
async function evaluated(input: PageInput, number: number): Promise<Evaluation | undefined> {
  try {
    return await evaluatePullRequest(apiOf(input), number);
  } catch (error) {
    const missing =
      error instanceof GitHubError &&
      error.graphqlErrors.some((item) => item.type === "NOT_FOUND" && item.path?.includes("pullRequest"));
    if (missing) return undefined;
    throw error;
  }
}

/** The pull request's page: its evaluation at its head, as a check makes it; undefined when there is no such pull request. */
async function pullPage(input: PageInput): Promise<string | undefined> {
  if (input.number === undefined) return undefined;
  const evaluation = await evaluated(input, input.number);
  if (!evaluation) return undefined;
  const { facts, report, config } = evaluation;
  return pullRequestPage({
    owner: input.owner,
    repo: input.repo,
    host: new URL(facts.url).host,
    number: input.number,
    headSha: evaluation.headSha,
    report,
    reviews: reviewViews(facts.reviews, report),
    workflow: config ? workflowGraph(config) : { states: [], edges: [] },
    ...(config && { approvers: approverLogins(config, report) }),
    ...(evaluation.incomplete && { withheld: "GitHub did not show everything the rules need" }),
  });
}

/** The repository page: every task on the default branch, from its audit scope. */
async function repositoryView(input: PageInput): Promise<string> {
  const api = apiOf(input);
  const { name: branch, sha } = await api.defaultBranch();
  const reader = new GitHubRepository(api);
  const host = webHostOf(input.octokit);
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    loaded = await loadConfig(reader, sha, CONFIG_PATH);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return notice(input, `The config at ${CONFIG_PATH} on ${branch} is not valid: taskgate shows no tasks.`);
  }
  if (!loaded) return notice(input, `taskgate is not configured on ${branch}.`);
  const { config, model } = loaded;
  const snapshot = await reader.readSnapshot(sha, model.auditScope(), readLimits(config));
  return repositoryPage(
    {
      owner: input.owner,
      repo: input.repo,
      host,
      branch,
      sha,
      preset: config.preset === "board" ? "board" : "phases",
      tasks: repositoryTasks(config, snapshot),
    },
    input.query,
  );
}

/** A page that says why there is nothing to show (no config, a broken one). */
function notice(input: PageInput, text: string): string {
  const name = `${input.owner}/${input.repo}`;
  return htmlPage(`taskgate: ${name}`, `<main><h1>${escapeHtml(name)}</h1><p>${escapeHtml(text)}</p></main>`);
}

const ASSETS: Readonly<Record<string, PageAsset>> = {
  [STYLESHEET_PATH.slice(ASSET_PREFIX.length)]: { type: "text/css; charset=utf-8", body: STYLESHEET },
};

/** The pages the App serves, from its installation's reads. */
export const viewsRenderer: PageRenderer = {
  render(kind: PageKind, input: PageInput) {
    return kind === "pull" ? pullPage(input) : repositoryView(input);
  },
  asset(name) {
    return Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  },
};
