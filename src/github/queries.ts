/**
 * Every GraphQL document taskgate sends to GitHub. They live here, side by side, so the tests can
 * validate each one against GitHub's published schema.
 */

/** The pull request, its reviews and the config at the tip of its base branch: one request. */
export const PULL_REQUEST_FACTS = /* GraphQL */ `
  query PullRequestFacts($owner: String!, $name: String!, $number: Int!, $configPath: String!, $after: String) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        number
        state
        isCrossRepository
        headRefName
        headRefOid
        baseRefName
        baseRefOid
        url
        author {
          login
        }
        headRepository {
          nameWithOwner
        }
        reviews(first: 100, after: $after) {
          pageInfo {
            hasNextPage
            endCursor
          }
          nodes {
            author {
              __typename
              login
            }
            state
            commit {
              oid
            }
            submittedAt
            body
          }
        }
        baseRef {
          target {
            ... on Commit {
              oid
              file(path: $configPath) {
                object {
                  ... on Blob {
                    oid
                    text
                    isBinary
                    isTruncated
                    byteSize
                  }
                }
              }
            }
          }
        }
      }
    }
  }
`;

/** One batch of blobs, repository permissions and team members (built for what one check needs). */
export function batchQuery(counts: { blobs: number; people: number; teams: number }): string {
  const vars: string[] = ["$owner: String!", "$name: String!"];
  const repo: string[] = [];
  const top: string[] = [];
  for (let index = 0; index < counts.blobs; index++) {
    vars.push(`$b${index}: GitObjectID!`);
    repo.push(`b${index}: object(oid: $b${index}) { ... on Blob { oid text isBinary isTruncated byteSize } }`);
  }
  for (let index = 0; index < counts.people; index++) {
    vars.push(`$p${index}: String!`);
    repo.push(`p${index}: collaborators(login: $p${index}, first: 1) { edges { permission node { login } } }`);
  }
  for (let index = 0; index < counts.teams; index++) {
    vars.push(`$o${index}: String!`, `$t${index}: String!`);
    top.push(
      `t${index}: organization(login: $o${index}) { team(slug: $t${index}) { members(first: 100, membership: ALL) { totalCount nodes { login } } } }`,
    );
  }
  return `query Batch(${vars.join(", ")}) {\n  repository(owner: $owner, name: $name) {\n    ${repo.join("\n    ") || "id"}\n  }\n  ${top.join("\n  ")}\n}\n`;
}

/** One atomic commit on a pull request's branch, refused by GitHub if the branch moved. */
export const CREATE_COMMIT = /* GraphQL */ `
  mutation RecordDecisions($input: CreateCommitOnBranchInput!) {
    createCommitOnBranch(input: $input) {
      commit {
        oid
      }
    }
  }
`;

/** The default branch and its tip: one request. */
export const DEFAULT_BRANCH = /* GraphQL */ `
  query DefaultBranch($owner: String!, $name: String!) {
    repository(owner: $owner, name: $name) {
      defaultBranchRef {
        name
        target {
          oid
        }
      }
    }
  }
`;

/**
 * For each of a batch of commits: the merged pull requests it belongs to, and the checks and
 * statuses on each one's last commit (was taskgate's green?).
 */
export function authorizationQuery(count: number): string {
  const vars = ["$owner: String!", "$name: String!"];
  const fields: string[] = [];
  for (let index = 0; index < count; index++) {
    vars.push(`$c${index}: GitObjectID!`);
    fields.push(`c${index}: object(oid: $c${index}) {
      ... on Commit {
        oid
        associatedPullRequests(first: 5) {
          nodes {
            number
            merged
            baseRefName
            commits(last: 1) {
              nodes {
                commit {
                  statusCheckRollup {
                    contexts(first: 100) {
                      nodes {
                        __typename
                        ... on CheckRun { name conclusion }
                        ... on StatusContext { context state }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }`);
  }
  return `query Authorizations(${vars.join(", ")}) {\n  repository(owner: $owner, name: $name) {\n    ${fields.join("\n    ") || "id"}\n  }\n}\n`;
}
