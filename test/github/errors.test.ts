/** Every failed call of GitHubApi comes out as one typed GitHubError, whatever Octokit threw. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubError, describeFailure, gitHubError } from "../../src/github/errors.js";
import { isolate, nockedApi } from "../helpers/nock-api.js";

const net = isolate();
beforeEach(net.before);
afterEach(net.after);

async function failure(promise: Promise<unknown>): Promise<GitHubError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GitHubError);
  return error as GitHubError;
}

describe("GitHubError", () => {
  it("wraps a REST 404 with its status, the call and Octokit's error as its cause", async () => {
    const github = nockedApi();
    github.answer("GET", "/repos/acme/widgets/branches/main", 404, { message: "Branch not found" });
    const error = await failure(github.api.isProtected("main"));
    expect(error.status).toBe(404);
    expect(error.is(404, 410)).toBe(true);
    expect(error.is(403)).toBe(false);
    expect(error.call).toBe("GET /repos/acme/widgets/branches/main");
    expect(error.graphqlErrors).toEqual([]);
    expect((error.cause as { name?: string }).name).toBe("HttpError");
    expect(github.requests).toEqual(["GET /repos/acme/widgets/branches/main"]);
    expect(describeFailure(error)).toMatch(
      /^GitHub at api\.github\.com answered 404 to GET \/repos\/acme\/widgets\/branches\/main: Branch not found.*; check that taskgate is installed on the repository, and GHE_HOST$/,
    );
  });

  it("wraps a GraphQL answer with errors, keeping GitHub's error types and paths", async () => {
    const github = nockedApi();
    github.answer("POST", "/graphql", 200, {
      data: null,
      errors: [{ type: "NOT_FOUND", message: "Could not resolve to a Repository", path: ["repository"] }],
    });
    const error = await failure(github.api.defaultBranch());
    expect(error.status).toBe(200);
    expect(error.call).toBe("POST /graphql");
    expect(error.hasType("NOT_FOUND")).toBe(true);
    expect(error.graphqlErrors).toEqual([
      { type: "NOT_FOUND", message: "Could not resolve to a Repository", path: ["repository"] },
    ]);
    expect(error.message).toBe("GitHub answered with errors: Could not resolve to a Repository");
    expect(github.requests).toEqual(["POST /graphql"]);
  });

  it("reads a folder's listing with Node's parser, and refuses a listing that is not GitHub's shape", async () => {
    const github = nockedApi();
    const tree = [{ path: "a.txt", mode: "100644", type: "blob", sha: "b".repeat(40), size: 3 }];
    github.answer("GET", "/repos/acme/widgets/git/trees/abc", 200, { sha: "abc", tree, truncated: true });
    expect(await github.api.listing("abc", { recursive: false })).toEqual({
      sha: "abc",
      entries: tree,
      truncated: true,
    });
    github.answer("GET", "/repos/acme/widgets/git/trees/def", 200, "<html>not a listing</html>");
    const error = await failure(github.api.listing("def", { recursive: false }));
    expect(error.message).toBe("GitHub's listing of a folder could not be read");
    expect(error.status).toBe(200);
    expect(github.requests).toEqual(["GET /repos/acme/widgets/git/trees/abc", "GET /repos/acme/widgets/git/trees/def"]);
  });

  it("wraps a network error without a status, and the one-line failure names the host and the cause", async () => {
    // A port nothing listens on, on this machine: the connection is refused.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    nock.enableNetConnect(`127.0.0.1:${port}`);
    const github = nockedApi({}, `http://127.0.0.1:${port}`);
    const error = await failure(github.api.isProtected("main"));
    expect(error.status).toBeUndefined();
    expect(error.is(500)).toBe(false);
    expect(describeFailure(error)).toBe(
      `could not reach GitHub at 127.0.0.1:${port} (ECONNREFUSED on GET /repos/acme/widgets/branches/main): check GHE_HOST, the network and any proxy between them`,
    );
  });

  it("wraps Octokit's GraphqlResponseError, and never wraps twice", () => {
    const octokitError = Object.assign(new Error("Request failed due to following response errors"), {
      name: "GraphqlResponseError",
      errors: [{ type: "FORBIDDEN", message: "Resource not accessible by integration" }],
      data: { viewer: null },
    });
    const error = gitHubError(octokitError, "POST /graphql");
    expect(error.graphqlErrors).toEqual([{ type: "FORBIDDEN", message: "Resource not accessible by integration" }]);
    expect(error.data).toEqual({ viewer: null });
    expect(error.cause).toBe(octokitError);
    expect(gitHubError(error, "GET /elsewhere")).toBe(error);
  });
});
