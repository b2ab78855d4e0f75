/**
 * The Action's first question to GitHub, asked before the rest of the Action (Octokit, the rules) is
 * loaded: the pull request's facts in check mode, the default branch otherwise. It goes out over
 * node:http(s) as soon as the runner's inputs are read; the entry waits until the request is on the
 * wire, then loads the rest while GitHub answers, and the flow finds the answer waiting (see
 * `GitHubApi.offer`). Two deadlines bound it: a total one (30 s: connect, write, the response's
 * headers and its whole body; a server that dribbles its answer byte by byte is cut off there) and
 * an idle one (30 s without a byte on the socket). Anything unusual (an error status, GraphQL
 * errors, either deadline, an oversized answer) yields no answer, and the flow asks again through
 * Octokit, which reports it properly. No timer outlives the answer.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { defaultBranchQuestion, pullRequestQuestion, type GraphQLAnswer, type GraphQLQuestion } from "../github/api.js";
import { GITHUB_API_VERSION } from "../github/octokit.js";
import type { Inputs } from "./inputs.js";

/** The whole early request gives up after this long; the flow then asks through Octokit (with its retries). */
const DEADLINE_MS = 30_000;
/** The early request also gives up when its socket stays silent this long. */
const IDLE_MS = 30_000;
/** A larger answer is dropped (the flow asks again); it keeps a runaway response out of memory. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export interface EarlyAnswer {
  readonly question: GraphQLQuestion;
  /** The GraphQL `data` and GitHub's `Date` of it, or `undefined` when there is no usable answer. Never rejects. */
  readonly answer: Promise<GraphQLAnswer | undefined>;
  /** Settles once the request is written out (or failed). Never rejects. */
  readonly sent: Promise<void>;
}

/** How long the early request may take; both default to 30 s (tests inject shorter ones). */
export interface EarlyDeadlines {
  /** The whole request (connect, write, response headers and body) settles within this. */
  readonly deadlineMs?: number;
  /** The request is dropped when its socket stays idle this long. */
  readonly idleMs?: number;
}

/** The first question the mode's flow asks, when the event says enough to ask it now. */
export function firstQuestion(inputs: Inputs): GraphQLQuestion | undefined {
  const repo = { owner: inputs.owner, repo: inputs.repo };
  if (inputs.mode !== "check") return defaultBranchQuestion(repo);
  const number = (inputs.payload.pull_request as { number?: unknown } | undefined)?.number;
  return typeof number === "number" ? pullRequestQuestion(repo, number, inputs.configPath) : undefined;
}

/** Asks the first question now; `undefined` when there is none to ask. */
export function askEarly(
  inputs: Inputs,
  env: NodeJS.ProcessEnv,
  { deadlineMs = DEADLINE_MS, idleMs = IDLE_MS }: EarlyDeadlines = {},
): EarlyAnswer | undefined {
  const question = firstQuestion(inputs);
  if (!question) return undefined;
  let url: URL;
  try {
    url = new URL(env.GITHUB_GRAPHQL_URL || "https://api.github.com/graphql");
  } catch {
    return undefined; // the flow's Octokit reports the bad URL
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const body = JSON.stringify({ query: question.query, variables: question.variables });
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const answer = new Promise<GraphQLAnswer | undefined>((resolve) => {
    let request: ClientRequest | undefined;
    let settled = false;
    const done = (value: GraphQLAnswer | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      markSent();
      resolve(value);
    };
    const giveUp = () => {
      done(undefined);
      request?.destroy();
    };
    // Set before the request, so that a request that fails at once still finds a timer to clear.
    const deadline = setTimeout(giveUp, deadlineMs);
    deadline.unref(); // cleared when the answer settles; never the reason the process stays up
    try {
      request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
        url,
        {
          method: "POST",
          headers: {
            authorization: `bearer ${inputs.token}`,
            accept: "application/vnd.github+json",
            "content-type": "application/json; charset=utf-8",
            "content-length": Buffer.byteLength(body),
            "user-agent": "taskgate-action",
            "x-github-api-version": GITHUB_API_VERSION,
          },
          timeout: idleMs,
        },
        (response) => void read(response).then(done, () => done(undefined)),
      );
      request.on("timeout", giveUp);
      request.on("error", () => done(undefined));
      request.end(body, () => markSent());
    } catch {
      giveUp(); // e.g. a token that is no valid header value: the flow's Octokit reports it
    }
  });
  return { question, answer, sent };
}

/**
 * The `data` of a successful GraphQL response with GitHub's time of the answer (its `Date` header,
 * which stamps the facts the flow judges); `undefined` for anything else.
 */
async function read(response: IncomingMessage): Promise<GraphQLAnswer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      response.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  if (response.statusCode !== 200) return undefined;
  const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: unknown; errors?: unknown };
  if (parsed.errors !== undefined || parsed.data === null || typeof parsed.data !== "object") return undefined;
  return { data: parsed.data, date: response.headers.date };
}
