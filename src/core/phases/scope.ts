/**
 * What a path is to a `phases` repository: a task's file, a framework file, a rendered status file or
 * a project file. The pull-request rules sort changed files with it, and `taskgate can-edit` and
 * `taskgate scope` answer with it, so the answer and the check cannot disagree.
 */
import type { Config } from "../kernel/config.js";
import { frameworkMatcher, isSuspiciousPath, renderRootOf } from "../kernel/paths.js";
import type { Workflow } from "./workflow.js";
import { taskIdOf } from "./reader.js";

export type PathKind =
  | { readonly kind: "task"; readonly task: string }
  /** `.github/**`, the config, `framework_paths`, and files directly in the tasks folder. */
  | { readonly kind: "framework"; readonly loose: boolean }
  | { readonly kind: "rendered" }
  | { readonly kind: "project" };

export type PathClassifier = (path: string) => PathKind;

/** Classifies repository paths for one config and workflow. */
export function phasesPaths(config: Config, workflow: Workflow): PathClassifier {
  const tasksDir = workflow.def.tasksDir;
  const isFramework = frameworkMatcher(config);
  const renderPrefix = `${renderRootOf(config)}/`;
  return (path) => {
    if (path.startsWith(`${tasksDir}/`)) {
      const task = taskIdOf(path, tasksDir);
      return task === undefined ? { kind: "framework", loose: true } : { kind: "task", task };
    }
    if (isFramework(path)) return { kind: "framework", loose: false };
    if (path.startsWith(renderPrefix) && !isSuspiciousPath(path)) return { kind: "rendered" };
    return { kind: "project" };
  };
}
