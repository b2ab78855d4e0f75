/**
 * The checking verbs: `check`, `audit`, `explain` and `render`. Each loads what it needs when it
 * runs (the service, the git adapter, PR.json's schema only with `--pr`, the work tree only for
 * `render`), so a check loads neither the authoring commands nor the hook.
 */
import { resolve } from "node:path";
import type { RenderResult, Report } from "../core/index.js";
import type { WorkTree } from "../git/worktree.js";
import type { CommandRun } from "./commands.js";
import { EXIT, UsageError, printFailure } from "./io.js";

/** `check --base REF --head REF [--pr PR.json]`: the head judged as a pull request into the base. */
export async function check(run: CommandRun): Promise<number> {
  const { base, head, pr: prFile } = run.values as { base?: string; head?: string; pr?: string };
  if (!base || !head) throw new UsageError("check needs --base REF and --head REF");
  noArguments(run);
  const pr = prFile ? await (await import("./pr-file.js")).readPrFile(resolve(run.io.cwd, prFile)) : undefined;
  const [{ checkPullRequest }, repo] = await Promise.all([service(), openRepository(run.repoDir)]);
  const report = await checkPullRequest(repo, { base, head, ...(pr && { pr }) });
  return printReport(run, report, `check ${base}...${head}`);
}

/** `audit [--ref REF]`: every task at a revision against the rules at rest. */
export async function audit(run: CommandRun): Promise<number> {
  noArguments(run);
  const ref = (run.values.ref as string | undefined) ?? "HEAD";
  const [{ auditRevision }, repo] = await Promise.all([service(), openRepository(run.repoDir, ref)]);
  return printReport(run, await auditRevision(repo, ref), `audit ${ref}`);
}

/** `explain [--ref REF] <task-id>`: where a task is and what each next step needs. */
export async function explain(run: CommandRun): Promise<number> {
  if (run.positionals.length !== 1) throw new UsageError("explain needs exactly one task id");
  const id = run.positionals[0]!;
  const ref = (run.values.ref as string | undefined) ?? "HEAD";
  const [{ explainTask }, repo] = await Promise.all([service(), openRepository(run.repoDir, ref)]);
  const result = await explainTask(repo, ref, id);
  if (!result.found) {
    const hint = !result.configured
      ? "Add .github/taskgate.yml (for example `preset: phases`)."
      : result.known.length > 0
        ? `Known tasks: ${result.known.slice(0, 10).join(", ")}${result.known.length > 10 ? ", …" : ""}.`
        : "The repository has no tasks yet.";
    return printFailure(run, `${result.configured ? `no task "${id}"` : "taskgate is not configured"} at ${ref}`, hint);
  }
  const [{ redactDeep }, { formatExplanation }] = await Promise.all([import("./use-cases.js"), import("./format.js")]);
  const explanation = redactDeep(result.explanation);
  if (run.json) run.printJson(explanation);
  else run.io.stdout(formatExplanation(explanation));
  return result.explanation.problems.length > 0 ? EXIT.failure : EXIT.ok;
}

/** `render [--check]`: the status files from the work tree, written, or listed when stale. */
export async function render(run: CommandRun): Promise<number> {
  noArguments(run);
  const [{ renderStatus }, { WorkTree }, repo] = await Promise.all([
    service(),
    import("../git/worktree.js"),
    openRepository(run.repoDir),
  ]);
  const tree = new WorkTree(await repo.workTreeRoot());
  const result = await renderStatus(tree, "work tree");
  if (!result) {
    return printFailure(
      run,
      "taskgate is not configured here",
      "Add .github/taskgate.yml (for example `preset: board`).",
    );
  }
  return run.values.check ? printStale(run, result) : await writeRendered(run, tree, result);
}

function noArguments(run: CommandRun): void {
  if (run.positionals.length > 0) throw new UsageError(`unexpected argument "${run.positionals[0]}"`);
}

/** The use cases, loaded with the command (the service loads only the preset a config names). */
function service() {
  return import("./use-cases.js");
}

/** Opens the checkout with the git adapter, loaded by the commands that read one. */
/** The repository, with `ref` (the revision the command reads first) resolved as it opens. */
async function openRepository(dir: string, ref?: string) {
  const { GitRepository } = await import("../git/repository.js");
  return GitRepository.open(dir, ref === undefined ? {} : { ref });
}

async function printReport(run: CommandRun, report: Report, title: string): Promise<number> {
  const { formatReport, reportJson } = await import("./format.js");
  if (run.json) run.printJson(reportJson(report));
  else run.io.stdout(formatReport(report, title));
  switch (report.conclusion) {
    case "failure":
      return EXIT.failure;
    case "action_required":
      return EXIT.actionRequired;
    default:
      return EXIT.ok;
  }
}

function printStale(run: CommandRun, result: RenderResult): number {
  const outdated = [...result.stale, ...result.extra];
  if (run.json) run.printJson({ stale: result.stale, extra: result.extra });
  else if (outdated.length === 0)
    run.io.stdout(`taskgate render: ${result.files.size} file(s) under ${result.root}/ are up to date\n`);
  else {
    for (const path of result.stale) run.io.stdout(`${path}: matrix-stale: out of date\n`);
    for (const path of result.extra) run.io.stdout(`${path}: matrix-stale: belongs to no task any more\n`);
    run.io.stdout(`${outdated.length} rendered file(s) are stale; run \`taskgate render\` and commit the result\n`);
  }
  return outdated.length > 0 ? EXIT.failure : EXIT.ok;
}

async function writeRendered(run: CommandRun, tree: WorkTree, result: RenderResult): Promise<number> {
  for (const path of result.stale) await tree.writeAtomic(path, result.files.get(path)!);
  for (const path of result.extra) await tree.remove(path);
  if (run.json) run.printJson({ written: result.stale, removed: result.extra });
  else {
    run.io.stdout(
      `taskgate render: wrote ${result.stale.length} and removed ${result.extra.length} file(s) under ${result.root}/ ` +
        `(${result.files.size - result.stale.length} already up to date)\n`,
    );
  }
  return EXIT.ok;
}
