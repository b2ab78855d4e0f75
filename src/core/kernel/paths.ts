/** Path helpers shared by the models: glob matching and framework-file classification. */
import { LOCAL_FILES } from "./local-files.js";
import picomatch from "picomatch";
import { CONFIG_PATH, type Config } from "./config.js";

export type PathMatcher = (path: string) => boolean;

/**
 * Matches repository paths against globs; dotfiles match like any other file. A glob starting with
 * `!` excludes what it matches from the others (it never matches on its own), as in `.gitignore`.
 * Compiled on first use.
 */
export function globMatcher(globs: readonly string[]): PathMatcher {
  const positive = globs.filter((glob) => !glob.startsWith("!"));
  const negative = globs.filter((glob) => glob.startsWith("!")).map((glob) => glob.slice(1));
  if (positive.length === 0) return () => false;
  let match: PathMatcher | undefined;
  const compile = (): PathMatcher => {
    const include = picomatch(positive, { dot: true });
    const exclude = negative.length > 0 ? picomatch(negative, { dot: true }) : () => false;
    return (path) => include(path) && !exclude(path);
  };
  return (path) => (match ??= compile())(path);
}

/**
 * Which of many glob lists match a path, without trying every list on every path: each list is filed
 * under the fixed folders its globs start with, and a path only meets the lists filed under one of its
 * own ancestors.
 */
export function globIndex<K>(lists: ReadonlyMap<K, readonly string[]>): (path: string) => K[] {
  const byBase = new Map<string, { key: K; match: PathMatcher }[]>();
  for (const [key, globs] of lists) {
    const match = globMatcher(globs);
    const bases = new Set(globs.filter((glob) => !glob.startsWith("!")).map((glob) => picomatch.scan(glob).base));
    for (const base of bases) {
      const list = byBase.get(base) ?? [];
      list.push({ key, match });
      byBase.set(base, list);
    }
  }
  return (path) => {
    const found = new Set<K>();
    const candidates = [""];
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) {
      candidates.push(path.slice(0, slash));
    }
    candidates.push(path);
    for (const base of candidates) {
      for (const { key, match } of byBase.get(base) ?? []) if (!found.has(key) && match(path)) found.add(key);
    }
    return [...found];
  };
}

/**
 * Files no task may edit: `.github/**`, the config, the config's `framework_paths`, and the CLI's
 * local files (a committed journal would rewrite the files of whoever runs taskgate next).
 */
export function frameworkMatcher(config: Config): PathMatcher {
  const extra = globMatcher(config.framework_paths);
  return (path) => path.startsWith(".github/") || path === CONFIG_PATH || LOCAL_FILES.includes(path) || extra(path);
}

/** Does a path try to leave the repository or hide behind `.`/`..` segments? */
export function isSuspiciousPath(path: string): boolean {
  return SUSPICIOUS_PATH.test(path);
}

/**
 * An absolute path, a backslash, or a segment that is empty, `.` or `..` (a leading, trailing or
 * doubled `/` makes an empty one): the segments are matched in place, without splitting the path.
 */
const SUSPICIOUS_PATH = /^\/|\\|\/\/|\/$|^$|(?:^|\/)\.\.?(?:\/|$)/;

export { renderRootOf } from "./config.js";
