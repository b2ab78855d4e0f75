/**
 * What the authoring commands share (`phases.ts` and `board.ts` hold the verbs): the workspace
 * (the checkout, its config and model, a journal left by a crash completed first), who acts, and one
 * change built, judged and written in one crash-safe transaction under the checkout's lock, or
 * nothing written and the violations the pull-request check would report printed. `unlock` is here
 * too.
 */
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { AuthoringRefusal, isLogin, type Authored, type GivenFile } from "../core/index.js";
import {
  RepositoryError,
  loadConfig,
  readLimits,
  type Config,
  type Report,
  type Snapshot,
  type Violation,
  type WorkflowModel,
} from "../core/index.js";
import { EXCLUDE_LINES, JOURNAL_FILE, LOCAL_FILES } from "../git/local-files.js";
import { GitRepository } from "../git/repository.js";
import { recover, transaction, unlock } from "../git/transaction.js";
import { WorkTree } from "../git/worktree.js";
import { resolveActor } from "./actor.js";
import { presetRefusal, type CommandRun } from "./commands.js";
import { formatItem } from "./format.js";
import { EXIT, IdentityError, UsageError } from "./io.js";

export { IdentityError } from "./io.js";

export interface Workspace {
  readonly repo: GitRepository;
  readonly root: string;
  readonly tree: WorkTree;
  readonly config: Config;
  readonly model: WorkflowModel;
}

/**
 * Opens the checkout for an authoring verb: refuses local files that came committed, completes a
 * change a crash cut short before anything reads the work tree, loads the config, and refuses a
 * verb of the other preset.
 */
export async function openWorkspace(run: CommandRun): Promise<Workspace> {
  const repo = await GitRepository.open(run.repoDir);
  const root = await repo.workTreeRoot();
  await refuseCommittedLocalFiles(repo);
  const tree = new WorkTree(root);
  if (existsSync(join(root, JOURNAL_FILE))) {
    const recovery = await recover(root, run.verb.name);
    if (recovery.kind === "completed") {
      run.io.stderr(`taskgate: completed an interrupted change (${recovery.files.join(", ")})\n`);
    }
  }
  const loaded = await loadConfig(tree, "work tree");
  if (!loaded) {
    throw new UsageError(`taskgate is not configured in ${root} (no .github/taskgate.yml)`);
  }
  const refusal = presetRefusal(run.verb, loaded.model.name);
  if (refusal !== undefined) throw new UsageError(refusal);
  return { repo, root, tree, config: loaded.config, model: loaded.model };
}

/** The verb's one positional argument (`what` it is, for the message when it is missing). */
export function one(run: CommandRun, what: string): string {
  if (run.positionals.length !== 1) throw new UsageError(`${run.verb.name} needs exactly one ${what}`);
  return run.positionals[0]!;
}

/** The value of a string option, or `undefined`. */
export function option(run: CommandRun, name: string): string | undefined {
  const value = run.values[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * The acting GitHub login (see `resolveActor`), checked to be one. Without any: an error when the
 * verb acts for someone (`required`), else "unknown".
 */
export async function actorOf(run: CommandRun, ws: Workspace, required: boolean): Promise<string> {
  const actor = await resolveActor(ws.repo, { as: option(run, "as"), io: run.io });
  if (!actor) {
    if (required) throw new IdentityError(`\`${run.verb.name}\` acts for someone, but no GitHub login is known`);
    return "unknown";
  }
  if (!isLogin(actor.login)) throw new UsageError(`"${actor.login}" (from ${actor.from}) is not a GitHub login`);
  return actor.login;
}

/** Reads the part of the work tree the workflow keeps its tasks in. */
export async function readTree(ws: Workspace): Promise<Snapshot> {
  return ws.tree.readSnapshot("work tree", ws.model.auditScope(), readLimits(ws.config));
}

class Refused extends Error {
  constructor(readonly authored: Authored) {
    super("refused");
  }
}

/** The first line of a written change's text output, from the facts the change reports. */
export type Summary = (facts: Readonly<Record<string, unknown>>) => string;

/** Builds, judges and writes one change, all under the checkout's lock. */
export async function mutate(
  run: CommandRun,
  ws: Workspace,
  build: (snapshot: Snapshot) => Authored,
  summary: Summary,
): Promise<number> {
  await keepOutOfGit(ws.repo);
  let authored: Authored | undefined;
  try {
    const { recovery, applied } = await transaction(ws.root, run.verb.name, async () => {
      authored = build(await readTree(ws));
      if (authored.report.violations.length > 0) throw new Refused(authored);
      return authored.changes;
    });
    if (recovery.kind === "completed") {
      run.io.stderr(`taskgate: completed an interrupted change first (${recovery.files.join(", ")})\n`);
    }
    const written = applied.map((change) => change.path);
    return printDone(run, authored!, written, summary);
  } catch (error) {
    if (error instanceof Refused) return printRefusal(run, error.authored.report.violations, error.authored.report);
    if (error instanceof AuthoringRefusal) return printRefusal(run, error.violations);
    throw error;
  }
}

/** Runs a read-only builder, printing its refusal (exit 1) instead of throwing. */
export async function refusable<T>(run: CommandRun, build: () => Promise<T>): Promise<T | number> {
  try {
    return await build();
  } catch (error) {
    if (error instanceof AuthoringRefusal) return printRefusal(run, error.violations);
    throw error;
  }
}

function printDone(run: CommandRun, authored: Authored, written: readonly string[], summary: Summary): number {
  const { report, facts } = authored;
  const command = run.verb.name;
  if (run.json) {
    run.printJson({ command, ok: true, ...facts, written, pending: report.pending, transitions: report.transitions });
    return EXIT.ok;
  }
  const out = [`taskgate ${command}: ${summary(facts)}`];
  if (written.length === 0) out.push("  nothing to write: the work tree already says so");
  for (const path of written) out.push(`  wrote ${path}`);
  for (const item of report.pending) out.push(`  pending: ${formatItem(item)}`);
  if (facts.agent_must_exit === true) {
    out.push(`resolution_task: ${String(facts.resolution_task)}`, "agent_must_exit: true");
  }
  run.io.stdout(`${out.join("\n")}\n`);
  return EXIT.ok;
}

function printRefusal(run: CommandRun, violations: readonly Violation[], report?: Report): number {
  const command = run.verb.name;
  if (run.json) {
    run.printJson({ command, ok: false, written: [], violations, pending: report?.pending ?? [] });
  } else {
    const lines = [
      `taskgate ${command}: refused, nothing written`,
      ...violations.map((item) => `  ${formatItem(item)}`),
    ];
    run.io.stdout(`${lines.join("\n")}\n`);
  }
  return EXIT.failure;
}

/** A path given on the command line, as a repository path (relative to the checkout's root). */
export function repoPath(run: CommandRun, root: string, given: string): string {
  const absolute = resolve(run.io.cwd, given);
  const inside = relative(root, absolute);
  if (inside.startsWith("..") || resolve(root, inside) !== absolute) {
    throw new UsageError(`${given} is outside the checkout ${root}`);
  }
  return inside.split(sep).join("/");
}

/** A file handed to a command: its text, and its repository path when it is inside the checkout. */
export async function given(run: CommandRun, root: string, path: string): Promise<GivenFile> {
  const absolute = resolve(run.io.cwd, path);
  let content: string;
  try {
    content = await readFile(absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${path}${code ? ` (${code})` : ""}`);
  }
  const inside = relative(root, absolute);
  const repoPath = inside.startsWith("..") || inside === "" ? undefined : inside.split(sep).join("/");
  return { name: basename(absolute), content, ...(repoPath !== undefined && { repoPath }) };
}

/**
 * A journal that came with a checkout (committed by someone) would make the next command rewrite
 * files of whoever runs it; a committed lock would stop everyone. These files are local: refuse to
 * run while git tracks any of them.
 */
async function refuseCommittedLocalFiles(repo: GitRepository): Promise<void> {
  const committed = await repo.tracked(LOCAL_FILES);
  if (committed.length === 0) return;
  throw new RepositoryError(
    `${committed.join(", ")} ${committed.length > 1 ? "are" : "is"} committed to the repository; taskgate keeps these files local, and will not act on a journal or a lock that came with a checkout`,
    `Remove ${committed.length > 1 ? "them" : "it"} from the repository (\`git rm --cached ${committed.join(" ")}\`, then delete the file) and commit that; look at what the journal would have written first.`,
  );
}

/** The lock, the journal and the unlock log stay out of commits: listed in .git/info/exclude. */
async function keepOutOfGit(repo: GitRepository): Promise<void> {
  const exclude = await repo.gitPath("info/exclude");
  const text = await readFile(exclude, "utf8").catch(() => "");
  const lines = new Set(text.split("\n").map((line) => line.trim()));
  const missing = EXCLUDE_LINES.filter((line) => !lines.has(line));
  if (missing.length === 0) return;
  await mkdir(dirname(exclude), { recursive: true });
  const prefix = text === "" || text.endsWith("\n") ? "" : "\n";
  await appendFile(exclude, `${prefix}# taskgate's lock, journal and unlock log\n${missing.join("\n")}\n`);
}

/** `unlock --reason TEXT`: removes the lock of a process that is provably gone. */
export async function unlockCommand(run: CommandRun): Promise<number> {
  const repo = await GitRepository.open(run.repoDir);
  const root = await repo.workTreeRoot();
  await refuseCommittedLocalFiles(repo);
  if (run.positionals.length > 0) throw new UsageError(`unexpected argument "${run.positionals[0]}"`);
  const reason = option(run, "reason")?.trim();
  if (!reason) throw new UsageError('unlock needs --reason "why the lock is stale"');
  const result = await unlock(root, reason, ...(run.now ? [{ now: run.now }] : []));
  if (run.json) run.printJson(result);
  else run.io.stdout(`taskgate unlock: ${result.message}\n`);
  return EXIT.ok;
}
