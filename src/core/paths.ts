/** Path helpers shared by the models: glob matching and framework-file classification. */
import picomatch from "picomatch";
import { CONFIG_PATH, type Config } from "./config.js";

export type PathMatcher = (path: string) => boolean;

/** Matches repository paths against globs; dotfiles match like any other file. */
export function globMatcher(globs: readonly string[]): PathMatcher {
  if (globs.length === 0) return () => false;
  const match = picomatch([...globs], { dot: true });
  return (path) => match(path);
}

/** Files no task may edit: `.github/**`, the config, and the config's `framework_paths`. */
export function frameworkMatcher(config: Config): PathMatcher {
  const extra = globMatcher(config.framework_paths);
  return (path) => path.startsWith(".github/") || path === CONFIG_PATH || extra(path);
}

/** Does a path try to leave the repository or hide behind `.`/`..` segments? */
export function isSuspiciousPath(path: string): boolean {
  return (
    path.startsWith("/") ||
    path.includes("\\") ||
    path.split("/").some((part) => part === ".." || part === "." || part === "")
  );
}

/** The folder rendered status files go to, without trailing slashes. */
export function renderRootOf(config: Config): string {
  return config.render.path.replace(/^\/+|\/+$/g, "");
}
