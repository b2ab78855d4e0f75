/**
 * Every GraphQL document taskgate sends to GitHub. They live here, side by side, so the tests can
 * validate each one against GitHub's published schema.
 */

/**
 * The pull request, its reviews, the config at the tip of its base branch, who the token is (the
 * viewer) and the comments taskgate may have written (the first and the last 50, with whether the
 * viewer wrote each, which GitHub decides): one request.
 */
export const PULL_REQUEST_FACTS = /* GraphQL */ `
  query PullRequestFacts($owner: String!, $name: String!, $number: Int!, $configPath: String!, $after: String) {
    viewer {
      login
    }
    repository(owner: $owner, name: $name) {
      nameWithOwner
      defaultBranchRef {
        name
      }
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
          __typename
          login
        }
        headRepository {
          nameWithOwner
        }
        reviews(first: 100, after: $after) {
          totalCount
          pageInfo {
            hasNextPage
            endCursor
          }
          nodes {
            author {
              __typename
              login
            }
            authorAssociation
            state
            commit {
              oid
            }
            submittedAt
            body
          }
        }
        firstComments: comments(first: 50) {
          totalCount
          nodes {
            databaseId
            viewerDidAuthor
            body
          }
        }
        lastComments: comments(last: 50) {
          nodes {
            databaseId
            viewerDidAuthor
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

/**
 * What a pull request's result depends on that can change between deliveries (its head, its base and
 * every review's state), and the last comments (to find a twin of taskgate's own comment a replica
 * wrote at the same moment): one request, asked after writing to confirm nothing moved meanwhile.
 */
export const PULL_REQUEST_VERSION = /* GraphQL */ `
  query PullRequestVersion($owner: String!, $name: String!, $number: Int!, $after: String) {
    repository(owner: $owner, name: $name) {
      pullRequest(number: $number) {
        state
        headRefOid
        baseRefName
        reviews(first: 100, after: $after) {
          totalCount
          pageInfo {
            hasNextPage
            endCursor
          }
          nodes {
            author {
              login
            }
            state
            submittedAt
          }
        }
        lastComments: comments(last: 50) {
          nodes {
            databaseId
            viewerDidAuthor
            body
          }
        }
      }
    }
  }
`;

/**
 * One batch of blobs, repository permissions, team members and the authors GitHub links to commits
 * (the git author and every `Co-authored-by:` trailer), built for what one check needs.
 */
export function batchQuery(counts: { blobs: number; people: number; teams: number; commits?: number }): string {
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
  for (let index = 0; index < (counts.commits ?? 0); index++) {
    vars.push(`$k${index}: GitObjectID!`);
    repo.push(
      `k${index}: object(oid: $k${index}) { ... on Commit { oid authors(first: 20) { nodes { name email user { login } } } } }`,
    );
  }
  for (let index = 0; index < counts.teams; index++) {
    vars.push(`$o${index}: String!`, `$t${index}: String!`);
    top.push(
      `t${index}: organization(login: $o${index}) { team(slug: $t${index}) { members(first: 100, membership: ALL) { totalCount nodes { login } } } }`,
    );
  }
  return `query Batch(${vars.join(", ")}) {\n  repository(owner: $owner, name: $name) {\n    ${repo.join("\n    ") || "id"}\n  }\n  ${top.join("\n  ")}\n}\n`;
}

/**
 * Folders, one level of a walk down trees: each commit's root folder or each folder's own entries by
 * object id (`o<n>`), and folders by path at a commit (`e<n>`, `<commit>:<path>`). Each entry's name,
 * mode, object id and size (a file's byte size); the mode says the type (a folder, a submodule, a
 * file): `type` would only add bytes.
 */
export function foldersQuery(count: number, expressions = 0): string {
  const vars: string[] = ["$owner: String!", "$name: String!"];
  const fields: string[] = [];
  for (let index = 0; index < count; index++) {
    vars.push(`$o${index}: GitObjectID!`);
    fields.push(
      `o${index}: object(oid: $o${index}) { ... on Commit { tree { ...Folder } } ... on Tree { ...Folder } }`,
    );
  }
  for (let index = 0; index < expressions; index++) {
    vars.push(`$e${index}: String!`);
    fields.push(`e${index}: object(expression: $e${index}) { ... on Tree { ...Folder } }`);
  }
  return `query Folders(${vars.join(", ")}) {\n  repository(owner: $owner, name: $name) {\n    ${fields.join("\n    ") || "id"}\n  }\n}\n\nfragment Folder on Tree {\n  oid\n  entries {\n    name\n    mode\n    oid\n    size\n  }\n}\n`;
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

/** The default branch, its tip and who the token is: one request. */
export const DEFAULT_BRANCH = /* GraphQL */ `
  query DefaultBranch($owner: String!, $name: String!) {
    viewer {
      login
    }
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
 * For each of a batch of commits on the default branch: the merged pull requests it belongs to (the
 * commit that landed each, its head, when it merged, who opened it), the check suites the given app
 * made on each one's last commit with their runs of the given name (GitHub files a check suite under
 * the app that created it: nobody else can add one), and whether the commit's first parent holds the
 * config (before taskgate was set up, nothing could be gone around).
 */
export function landingsQuery(count: number, options: { checks: boolean }): string {
  const vars = [
    "$owner: String!",
    "$name: String!",
    ...(options.checks ? ["$appId: Int!", "$checkName: String!"] : []),
  ];
  const checks = `
            commits(last: 1) {
              nodes {
                commit {
                  oid
                  checkSuites(first: 10, filterBy: { appId: $appId }) {
                    nodes {
                      app {
                        databaseId
                      }
                      checkRuns(first: 10, filterBy: { checkName: $checkName }) {
                        nodes {
                          name
                          conclusion
                        }
                      }
                    }
                  }
                }
              }
            }`;
  const fields: string[] = [];
  for (let index = 0; index < count; index++) {
    vars.push(`$c${index}: GitObjectID!`, `$e${index}: String!`);
    fields.push(`c${index}: object(oid: $c${index}) {
      ... on Commit {
        oid
        associatedPullRequests(first: 5) {
          nodes {
            number
            merged
            mergedAt
            baseRefName
            headRefOid
            author {
              __typename
              login
            }
            mergeCommit {
              oid
            }${options.checks ? checks : ""}
          }
        }
      }
    }
    e${index}: object(expression: $e${index}) {
      oid
    }`);
  }
  return `query Landings(${vars.join(", ")}) {\n  repository(owner: $owner, name: $name) {\n    ${fields.join("\n    ") || "id"}\n  }\n}\n`;
}
