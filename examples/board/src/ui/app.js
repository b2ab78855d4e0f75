// The page shell: each route renders into the main element.
export const routes = {
  "/": () => "<h1>acme notes</h1>",
};

export function render(path) {
  const page = routes[path] ?? (() => "<p>Not found</p>");
  return `<main>${page()}</main>`;
}
