/**
 * The pages on the App's own HTTP server: Probot's `addHandler` puts the routes of `routes.ts` in
 * front of the webhooks, and the start message says once when the pages are off and why.
 */
import type { ApplicationFunctionOptions, Probot } from "probot";
import type { Octokit } from "../../github/api.js";
import { PAGE_VARIABLES, type PagesSetup } from "./config.js";
import type { PageRenderer } from "./render.js";
import { pagesHandler, type InstallationOf } from "./routes.js";

/** The App's installation on a repository through its own key (one request), or undefined. */
function installationOf(probot: Probot): InstallationOf {
  return async (owner, repo) => {
    const appOctokit = await probot.auth();
    let id: number;
    try {
      const { data } = await appOctokit.request("GET /repos/{owner}/{repo}/installation", { owner, repo });
      id = data.id;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
    const auth = (await appOctokit.auth({ type: "app" })) as { appId?: number | string };
    return { octokit: (await probot.auth(id)) as unknown as Octokit, appId: Number(auth.appId) };
  };
}

/** Says at start, in one line, when the pages are off; then serves /taskgate/ (503 when off). */
export function servePages(
  probot: Probot,
  options: ApplicationFunctionOptions | undefined,
  setup: PagesSetup,
  renderer: PageRenderer,
): void {
  if (!setup.on) {
    // Nothing of the pages set: a server that does not want them. Some set: a mistake to point out.
    if (setup.missing.length === PAGE_VARIABLES.length) probot.log.info(setup.message);
    else probot.log.warn(setup.message);
  }
  options?.addHandler(pagesHandler({ setup, renderer, installation: installationOf(probot), log: probot.log }));
}
