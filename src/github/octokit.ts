/**
 * What every Octokit of taskgate does on every request, the App's and the Action's alike: it names
 * the REST API version GitHub asks clients to name, and it gives up after a deadline, so that an
 * unreachable or silent GitHub never holds a delivery or a workflow step for minutes.
 */

/** The version of GitHub's REST API taskgate is written against. */
export const GITHUB_API_VERSION = "2022-11-28";
/** A request GitHub has not answered in this long is abandoned (each attempt; retries stay bounded). */
export const REQUEST_DEADLINE_MS = 10_000;

interface RequestOptions {
  headers: Record<string, string | number | undefined>;
  request?: { signal?: AbortSignal } & Record<string, unknown>;
}

interface Hookable {
  hook: { before(name: "request", hook: (options: RequestOptions) => void): void };
}

/**
 * An Octokit plugin: the API version header and a deadline on each request (`deadlineMs`, or the
 * `TASKGATE_REQUEST_DEADLINE_MS` environment variable, or 10 s). A deadline or an abort signal the
 * caller set is kept alongside.
 */
export function taskgateRequests(octokit: Hookable, options: { taskgate?: { deadlineMs?: number } } = {}): object {
  const fromEnv = Number(process.env.TASKGATE_REQUEST_DEADLINE_MS);
  const deadlineMs = options.taskgate?.deadlineMs ?? (fromEnv > 0 ? fromEnv : REQUEST_DEADLINE_MS);
  octokit.hook.before("request", (request) => {
    request.headers["x-github-api-version"] = GITHUB_API_VERSION;
    const deadline = AbortSignal.timeout(deadlineMs);
    const given = request.request?.signal;
    request.request = { ...request.request, signal: given ? AbortSignal.any([given, deadline]) : deadline };
  });
  return {};
}
