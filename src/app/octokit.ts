/** The App's Octokit: Probot's, naming the API version and with a deadline on every request. */
import { ProbotOctokit } from "probot";
import { taskgateRequests } from "../github/octokit.js";

export const TaskgateOctokit: typeof ProbotOctokit = ProbotOctokit.plugin(taskgateRequests as never) as never;
