/**
 * The Action's first question to GitHub, asked before the rest of the Action (Octokit, the rules) is
 * loaded: the pull request's facts in check mode, the default branch otherwise. It goes out over
 * node:http(s) as soon as the runner's inputs are read; the entry waits until the request is on the
 * wire, then loads the rest while GitHub answers, and the flow finds the answer waiting (see
 * `GitHubApi.offer`). Anything unusual (an error status, GraphQL errors, a timeout, an oversized
 * answer) yields no answer, and the flow asks again through Octokit, which reports it properly.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { defaultBranchQuestion, pullRequestQuestion, type GraphQLQuestion } from "../github/api.js";
import type { Inputs } from "./inputs.js";

/** The early request gives up after this long; the flow then asks through Octokit (with its retries). */
const TIMEOUT_MS = 30_000;
/** A larger answer is dropped (the flow asks again); it keeps a runaway response out of memory. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export interface EarlyAnswer {
  readonly question: GraphQLQuestion;
  /** The GraphQL `data`, or `undefined` when there is no usable answer. Never rejects. */
  readonly answer: Promise<unknown>;
  /** Settles once the request is written out (or failed). Never rejects. */
  readonly sent: Promise<void>;
}

/** The first question the mode's flow asks, when the event says enough to ask it now. */
export function firstQuestion(inputs: Inputs): GraphQLQuestion | undefined {
  const repo = { owner: inputs.owner, repo: inputs.repo };
  if (inputs.mode !== "check") return defaultBranchQuestion(repo);
  const number = (inputs.payload.pull_request as { number?: unknown } | undefined)?.number;
  return typeof number === "number" ? pullRequestQuestion(repo, number, inputs.configPath) : undefined;
}

/** Asks the first question now; `undefined` when there is none to ask. */
export function askEarly(inputs: Inputs, env: NodeJS.ProcessEnv): EarlyAnswer | undefined {
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
  const answer = new Promise<unknown>((resolve) => {
    const done = (value: unknown) => {
      markSent();
      resolve(value);
    };
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      url,
      {
        method: "POST",
        headers: {
          authorization: `bearer ${inputs.token}`,
          accept: "application/vnd.github+json",
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(body),
          "user-agent": "taskgate-action",
        },
        timeout: TIMEOUT_MS,
      },
      (response) => void read(response).then(done, () => done(undefined)),
    );
    request.on("timeout", () => request.destroy());
    request.on("error", () => done(undefined));
    request.end(body, () => markSent());
  });
  return { question, answer, sent };
}

/** The `data` of a successful GraphQL response; `undefined` for anything else. */
async function read(response: IncomingMessage): Promise<unknown> {
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
  return parsed.data;
}
