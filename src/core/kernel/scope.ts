/**
 * Rules on the files a pull request changes that both workflow models share: which paths are
 * framework files (never editable from a task), which are rendered status files (derived, within
 * every scope), when a pull request touches no task (`task-missing`), append-only logs and empty files.
 */
import { principalMatcher } from "./approval.js";
import type { Config } from "./config.js";
import { frameworkMatcher, isSuspiciousPath, renderRootOf } from "./paths.js";
import type { ChangedFile, PrContext, Violation } from "./types.js";
import { violation } from "./violations.js";

export interface ChangedPaths {
  /** `.github/**`, the config, `framework_paths`. */
  readonly framework: readonly string[];
  /** Under the render folder: derived files, within scope; `render --check` and audits judge them. */
  readonly rendered: readonly string[];
  /** Everything else the model did not claim as its own (task files, ledger, ...). */
  readonly project: readonly string[];
}

/** Every path a pull request changes: both sides of a rename, once each. */
export function changedPathsOf(files: readonly ChangedFile[]): string[] {
  const paths = new Set<string>();
  for (const file of files) {
    paths.add(file.path);
    if (file.previousPath !== undefined) paths.add(file.previousPath);
  }
  return [...paths];
}

/** What one path is to a pull request's scope: the model's own, a framework, rendered or project file. */
export type PathClass = "own" | "framework" | "rendered" | "project";

/**
 * Classifies one path at a time: `isOwn` paths belong to the model, then framework files, rendered
 * status files, and everything else is a project file. `classifyPaths` sorts a pull request's files
 * with it, and `can-edit` asks it about one file.
 */
export function pathClassifier(config: Config, isOwn: (path: string) => boolean): (path: string) => PathClass {
  const isFramework = frameworkMatcher(config);
  const renderPrefix = `${renderRootOf(config)}/`;
  return (path) => {
    if (isOwn(path)) return "own";
    if (isFramework(path)) return "framework";
    if (path.startsWith(renderPrefix) && !isSuspiciousPath(path)) return "rendered";
    return "project";
  };
}

/** Sorts changed paths into framework, rendered and project files; `isOwn` paths belong to the model. */
export function classifyPaths(
  config: Config,
  files: readonly ChangedFile[],
  isOwn: (path: string) => boolean,
): ChangedPaths {
  const classify = pathClassifier(config, isOwn);
  const sorted: Record<Exclude<PathClass, "own">, string[]> = { framework: [], rendered: [], project: [] };
  for (const path of changedPathsOf(files)) {
    const kind = classify(path);
    if (kind !== "own") sorted[kind].push(path);
  }
  return sorted;
}

/** A framework file changed by a pull request that works on a task. */
export function frameworkViolations(paths: readonly string[]): Violation[] {
  return paths.map((path) =>
    violation("out-of-scope", {
      path,
      message: `${path} is a framework file; a task's pull request may not change it`,
      hint: "Revert it here; maintainers change framework files in a pull request that touches no task.",
    }),
  );
}

export function isMaintainer(config: Config, pr: PrContext): boolean {
  return principalMatcher(config.maintainers, config, pr)(pr.author);
}

/**
 * A pull request that changes files but works on no task: allowed for a maintainer's framework
 * change, and for rendered files alone; with `require_task: false`, also for project files (but a
 * non-maintainer never changes framework files).
 */
export function taskMissing(
  config: Config,
  pr: PrContext,
  paths: ChangedPaths,
  how: { what: string; fix: string; projectNeeds: string },
): Violation | undefined {
  const { framework, project } = paths;
  if (framework.length === 0 && project.length === 0) return undefined;
  const maintainer = isMaintainer(config, pr);
  if (maintainer && project.length === 0) return undefined;
  if (!config.require_task && (maintainer || framework.length === 0)) return undefined;
  const sample = [...project, ...framework];
  return violation("task-missing", {
    message: `this pull request changes ${sample.length} file(s) (${sample.slice(0, 3).join(", ")}${sample.length > 3 ? ", …" : ""}) but ${how.what}`,
    hint: maintainer
      ? `Maintainers may change framework files without a task; project files need ${how.projectNeeds}.`
      : `${how.fix[0]!.toUpperCase()}${how.fix.slice(1)} in this pull request, or ask a maintainer to make framework changes.`,
  });
}

/** The index of the first entry of an append-only log that was changed or removed, or -1. */
export function firstRewrite<T>(before: readonly T[], after: readonly T[], equal: (a: T, b: T) => boolean): number {
  for (let index = 0; index < before.length; index++) {
    if (index >= after.length || !equal(before[index]!, after[index]!)) return index;
  }
  return -1;
}
