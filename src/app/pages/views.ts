/**
 * The renderer of the App's pages: reads what a page shows through the App's installation, with
 * the same requests as a check, and hands it to the views of `pages/`. A pull request's page is its
 * evaluation; the repository page reads the default branch's head, then one recursive listing of the
 * root (the config and either preset's store) and one batch of blobs (the config with the tasks). Teams among who may review or approve are read in one more batch, once per render. The
 * stylesheet is served beside the pages, at `STYLESHEET_PATH`.
 */
import {
  APPROVALS_FILE,
  CONFIG_PATH,
  ConfigError,
  STATE_FILE,
  configOf,
  defaultConfig,
  workflowOf,
  type Loaded,
  type ReadLimits,
  type Snapshot,
  type SnapshotScope,
} from "../../core/index.js";
import { GitHubApi, type Octokit } from "../../github/api.js";
import { GitHubError } from "../../github/errors.js";
import { evaluatePullRequest, type Evaluation } from "../../github/pull-request.js";
import { GitHubRepository } from "../../github/repository.js";
import { snapshotOf, type Tree } from "../../github/trees.js";
import {
  approverLogins,
  expandTeams,
  repositoryTasks,
  reviewViews,
  teamMembersOf,
  teamsAmong,
  workflowGraph,
  type TeamMembers,
} from "../../pages/data.js";
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
  let approvers: Record<string, string[]> | undefined;
  let teamNotes: readonly string[] = [];
  if (config) {
    const named = approverLogins(config, report);
    const teams = await teamsRead(
      evaluation.repo ?? new GitHubRepository(apiOf(input)),
      teamsAmong([report.pending.flatMap((item) => item.approvers), ...Object.values(named)]),
    );
    approvers = approverLogins(config, report, teams.members);
    teamNotes = teams.notes;
  }
  return pullRequestPage({
    owner: input.owner,
    repo: input.repo,
    host: new URL(facts.url).host,
    number: input.number,
    headSha: evaluation.headSha,
    report,
    reviews: reviewViews(facts.reviews, report),
    workflow: config ? workflowGraph(config) : { states: [], edges: [] },
    ...(approvers && { approvers }),
    ...(teamNotes.length > 0 && { teamNotes }),
    ...(evaluation.incomplete && { withheld: "GitHub did not show everything the rules need" }),
  });
}

/**
 * The members of the teams a page names, in one `Batch` (the port's `people`, as an evaluation
 * reads team approvals); no request when it names none.
 */
async function teamsRead(reader: GitHubRepository, teams: readonly string[]): Promise<TeamMembers> {
  if (teams.length === 0) return { members: {}, notes: [] };
  const people = await reader.people({ logins: [], teams, commits: [] });
  return teamMembersOf(teams, people);
}

/** Where each preset keeps its task store when the config does not say. */
interface Stores {
  readonly boardFiles: readonly string[];
  readonly tasksDir: string;
}

let defaults: Stores | undefined;
function defaultStores(): Stores {
  if (defaults) return defaults;
  const board = defaultConfig("board").board;
  const phases = workflowOf(defaultConfig("phases"));
  defaults = {
    boardFiles: [board.definitions, board.ledger],
    tasksDir: phases.ok ? phases.workflow.def.tasksDir : "tasks",
  };
  return defaults;
}

/** What the repository page reads of a store: the config, the board's two files, the phases' task folders. */
function storeScope(stores: Stores): SnapshotScope {
  return { paths: [CONFIG_PATH, ...stores.boardFiles], prefixes: [`${stores.tasksDir}/`] };
}

/** The stores a valid config names (one preset's). */
function storesOf(loaded: Loaded): Stores {
  const { config } = loaded;
  if (config.preset === "board") return { boardFiles: [config.board.definitions, config.board.ledger], tasksDir: "" };
  const workflow = workflowOf(config);
  return { boardFiles: [], tasksDir: workflow.ok ? workflow.workflow.def.tasksDir : "" };
}

/**
 * The limits of a page's read: of a phases task folder only its state and approvals are read (what
 * a task's state and gate come from), every other file is listed and not read; the config and the
 * board's files up to the limits they have.
 */
function pageLimits(tree: Tree, stores: Stores, limits: { maxFileBytes: number; ledgerBytes: number }): ReadLimits {
  const perPath: Record<string, number> = { [CONFIG_PATH]: limits.maxFileBytes };
  for (const path of stores.boardFiles) perPath[path] = limits.ledgerBytes;
  if (stores.tasksDir !== "") {
    const folder = `${stores.tasksDir}/`;
    const scope = { paths: [], prefixes: [folder] };
    for (const path of snapshotOf(tree, scope, { maxFileBytes: 0 }, NOTHING_READ).files.keys()) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      const inTask = path.indexOf("/", folder.length) === path.length - name.length - 1;
      if (inTask && (name === STATE_FILE || name === APPROVALS_FILE)) perPath[path] = limits.maxFileBytes;
    }
  }
  return { maxFileBytes: 0, perPath };
}

const NOTHING_READ = new Map<string, never>();

/**
 * The default branch's tasks at `sha`: the config and the stores where the presets keep them by
 * default are listed (one recursive listing of the root) and read in one batch; when the config
 * moves the store, one more round reads it (only what GitHub cut short of the listing is listed).
 */
async function readTasks(
  reader: GitHubRepository,
  sha: string,
): Promise<{ loaded: Loaded; snapshot: Snapshot } | "not configured" | "invalid"> {
  const stores = defaultStores();
  const scope = storeScope(stores);
  // One recursive listing holds the config and either preset's store: the page does not know yet
  // which one the config names, nor where.
  const tree = await reader.wholeTree(sha);
  await reader.cover([{ tree, scope }]);
  const defaultLimits = defaultConfig("board").limits;
  const first = pageLimits(tree, stores, {
    maxFileBytes: defaultLimits.max_file_bytes,
    ledgerBytes: defaultLimits.max_ledger_bytes,
  });
  const guessed = await reader.readSnapshot(sha, scope, first);
  const entry = guessed.files.get(CONFIG_PATH);
  if (!entry) return "not configured";
  let loaded: Loaded;
  try {
    loaded = await configOf(entry, CONFIG_PATH);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return "invalid";
  }
  const own = storesOf(loaded);
  const { limits } = loaded.config;
  const sameLimits =
    limits.max_file_bytes === defaultLimits.max_file_bytes &&
    limits.max_ledger_bytes === defaultLimits.max_ledger_bytes;
  const sameStore =
    own.boardFiles.every((path) => stores.boardFiles.includes(path)) &&
    (own.tasksDir === "" || own.tasksDir === stores.tasksDir);
  // The store where the preset keeps it by default, read within the same limits: read already.
  if (sameLimits && sameStore) return { loaded, snapshot: guessed };
  const pageScope = own.tasksDir === "" ? { paths: [CONFIG_PATH, ...own.boardFiles], prefixes: [] } : storeScope(own);
  await reader.cover([{ tree, scope: pageScope }]);
  const read = pageLimits(tree, own, { maxFileBytes: limits.max_file_bytes, ledgerBytes: limits.max_ledger_bytes });
  return { loaded, snapshot: await reader.readSnapshot(sha, pageScope, read) };
}

/** The repository page: every task on the default branch, and who may review those waiting for it. */
async function repositoryView(input: PageInput): Promise<string> {
  const api = apiOf(input);
  const { name: branch, sha } = await api.defaultBranch();
  const reader = new GitHubRepository(api);
  const read = await readTasks(reader, sha);
  if (read === "not configured") return notice(input, `taskgate is not configured on ${branch}.`);
  if (read === "invalid") {
    return notice(input, `The config at ${CONFIG_PATH} on ${branch} is not valid: taskgate shows no tasks.`);
  }
  const { loaded, snapshot } = read;
  const named = repositoryTasks(loaded, snapshot);
  const teams = await teamsRead(reader, teamsAmong(named.map((task) => task.reviewers)));
  return repositoryPage(
    {
      owner: input.owner,
      repo: input.repo,
      host: webHostOf(input.octokit),
      branch,
      sha,
      preset: loaded.config.preset === "board" ? "board" : "phases",
      tasks: expandTeams(named, teams.members),
      ...(teams.notes.length > 0 && { teamNotes: teams.notes }),
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
