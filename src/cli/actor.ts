/**
 * Who acts: the one place the command line works out the GitHub login a command acts for, from
 * `--as`, the environment and git's configuration.
 */
import type { GitRepository } from "../git/repository.js";
import type { CliIo } from "./io.js";

export interface Actor {
  readonly login: string;
  /** Where the login came from, for messages: `--as`, `TASKGATE_LOGIN`, `git config github.user`... */
  readonly from: string;
}

export interface ActorSources {
  /** `--as LOGIN`, when the command takes it. */
  readonly as?: string | undefined;
  readonly io: CliIo;
  /**
   * Also git's `user.name`, last: the pre-commit hook judges a commit as its author's pull request
   * and falls back to the name git commits under.
   */
  readonly gitName?: boolean;
}

/**
 * The acting login: `--as`, else `$TASKGATE_LOGIN`, else `git config github.user` (else, when asked,
 * `git config user.name`); `undefined` when none is set. Values are taken as given: the caller
 * decides whether a login is required and valid.
 */
export async function resolveActor(repo: GitRepository, sources: ActorSources): Promise<Actor | undefined> {
  if (sources.as !== undefined) return { login: sources.as, from: "--as" };
  const fromEnv = sources.io.env?.TASKGATE_LOGIN?.trim();
  if (fromEnv) return { login: fromEnv, from: "TASKGATE_LOGIN" };
  const keys = sources.gitName ? ["github.user", "user.name"] : ["github.user"];
  const values = await repo.configValues(keys);
  for (const key of keys) {
    const login = values.get(key);
    if (login) return { login, from: `git config ${key}` };
  }
  return undefined;
}
