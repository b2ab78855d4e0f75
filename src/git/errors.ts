/** The git adapter's errors about what git said: each a `RepositoryError` with a hint. */
import { RepositoryError } from "../core/index.js";

export const GIT_HINT =
  "Check that the revisions exist locally (fetch them first) and that `git` works in this directory.";

export function missingObject(sha: string, path?: string): RepositoryError {
  return new RepositoryError(
    `git cannot read object ${sha}${path === undefined ? "" : ` (${path})`}`,
    "The repository is incomplete or damaged (shallow or partial clone?); fetch the missing objects or run `git fsck`.",
  );
}

export function malformed(command: string, what: string): RepositoryError {
  return new RepositoryError(`unexpected output from git ${command}: ${what}`, GIT_HINT);
}
