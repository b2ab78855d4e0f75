/**
 * Every delivery of the App is bounded and ends in at most one error line. Each request already has
 * a deadline (`github/octokit.ts`); the delivery as a whole has one too (60 s, or
 * `TASKGATE_DELIVERY_DEADLINE_MS`): GitHub gets its answer within its 10 s (the webhook middleware
 * answers 202 and the work goes on), and the work still ends, its pending requests aborted. A failure
 * is logged as one line naming the host or the cause and what to check, never the payload.
 */
import type { Context } from "probot";
import { describeFailure } from "../github/errors.js";

export const DELIVERY_DEADLINE_MS = 60_000;

type Handler<C> = (context: C) => Promise<void>;

interface Hooked {
  octokit: { hook: { before(name: "request", hook: (options: { request?: { signal?: AbortSignal } }) => void): void } };
  log: { error(message: string): void };
  id?: string;
  name?: string;
}

class DeliveryDeadline extends Error {
  constructor(readonly ms: number) {
    super(`the delivery did not finish within ${Math.round(ms / 1000)} s`);
    this.name = "DeliveryDeadline";
  }
}

/** Runs a handler within the delivery's deadline, logging a failure as one line instead of throwing. */
export function guarded<C extends Context>(what: string, handler: Handler<C>): Handler<C> {
  return async (context) => {
    const fromEnv = Number(process.env.TASKGATE_DELIVERY_DEADLINE_MS);
    const ms = fromEnv > 0 ? fromEnv : DELIVERY_DEADLINE_MS;
    const controller = new AbortController();
    const hooked = context as unknown as Hooked;
    hooked.octokit.hook.before("request", (options) => {
      const given = options.request?.signal;
      options.request = {
        ...options.request,
        signal: given ? AbortSignal.any([given, controller.signal]) : controller.signal,
      };
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeliveryDeadline(ms)), ms);
      timer.unref();
    });
    try {
      await Promise.race([handler(context), deadline]);
    } catch (error) {
      controller.abort();
      const line =
        error instanceof DeliveryDeadline
          ? `${error.message}; its requests were abandoned: check that GitHub answers (GHE_HOST, the network), and the next event tries again`
          : describeFailure(error);
      hooked.log.error(`taskgate: ${what} (delivery ${hooked.id ?? "?"}): ${line}`);
    } finally {
      clearTimeout(timer);
    }
  };
}
